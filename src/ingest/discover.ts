import { type Dirent, readdirSync, realpathSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { errnoOf } from '../errors.js';
import { isSourceFileName } from '../sources/index.js';

export interface Discovery {
  /** Paths as shown and remembered (a name that is not UTF-8 is shown with `\xNN` escapes). */
  files: string[];
  /** The byte path to open, for the files whose name is not valid UTF-8 (keyed by the shown path). */
  fsPaths: Map<string, Buffer>;
  warnings: string[];
}

type FsPath = string | Buffer;

/**
 * Every file under the given roots named as some format keeps its files (`*.jsonl`, `.puffin/history.json`: each
 * adapter's `fileName`, or `isName`), sorted, de-duplicated; a root may also be a file, listed whatever its name.
 * `skip` holds folders never to enter — moon's own home, whose raw archives are copies of what we index.
 * Symlinked folders are followed once each (a link back to a folder already walked is reported as a loop).
 * Anything so named that is not a regular file (a FIFO, a socket) is listed anyway, so the run reports it by name.
 */
export function discoverFiles(roots: readonly string[], skip: readonly string[] = [], isName: (path: string) => boolean = isSourceFileName): Discovery {
  const files = new Set<string>();
  const fsPaths = new Map<string, Buffer>();
  const warnings: string[] = [];
  const skipped = skip.map((path) => resolve(path));
  const visited = new Set<string>();
  const add = (shown: string, fsPath: FsPath): void => {
    files.add(shown);
    if (typeof fsPath !== 'string') fsPaths.set(shown, fsPath);
  };
  const enter = (fsPath: FsPath, shown: string): boolean => {
    let real: string;
    try {
      real = realpathSync.native(fsPath).toString();
    } catch {
      real = shown;
    }
    if (visited.has(real)) return false;
    visited.add(real);
    return true;
  };
  const walk = (dir: FsPath, shown: string): void => {
    if (skipped.includes(shown)) return;
    let names: Dirent<Buffer>[];
    try {
      names = readdirSync(dir, { withFileTypes: true, encoding: 'buffer' });
    } catch (error) {
      warnings.push(`${shown}: cannot read folder (${errnoOf(error) ?? (error as Error).message})`);
      return;
    }
    for (const dirent of names) {
      const name = decodeName(dirent.name);
      const childShown = `${shown}${sep}${name.shown}`;
      const child: FsPath = typeof dir === 'string' && name.valid ? childShown : joinBytes(dir, dirent.name);
      if (dirent.isDirectory()) {
        if (enter(child, childShown)) walk(child, childShown);
      } else if (dirent.isSymbolicLink()) {
        followLink(child, childShown, isName(childShown));
      } else if (isName(childShown)) {
        add(childShown, child);
      }
    }
  };
  const followLink = (link: FsPath, shown: string, isTranscriptName: boolean): void => {
    let target;
    try {
      target = statSync(link);
    } catch (error) {
      const code = errnoOf(error);
      if (code === 'ELOOP') warnings.push(`${shown}: symlink loop; not followed`);
      // A dangling link named like a transcript is listed, so the run names it as a failed file.
      else if (isTranscriptName) add(shown, link);
      return;
    }
    if (target.isDirectory()) {
      if (enter(link, shown)) walk(link, shown);
      else warnings.push(`${shown}: symlink to a folder already searched (a loop?); not followed again`);
    } else if (isTranscriptName) add(shown, link);
  };
  for (const root of roots) {
    const path = resolve(root);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (error) {
      warnings.push(errnoOf(error) === 'ELOOP' ? `${path}: symlink loop; not followed` : `${path}: no such file or folder`);
      continue;
    }
    if (isDirectory) {
      if (enter(path, path)) walk(path, path);
    } else add(path, path);
  }
  return { files: [...files].sort(), fsPaths, warnings };
}

/** A file name as text: itself when it is valid UTF-8, else with every byte outside printable ASCII as `\xNN`. */
function decodeName(bytes: Buffer): { shown: string; valid: boolean } {
  const text = bytes.toString('utf8');
  if (Buffer.from(text, 'utf8').equals(bytes)) return { shown: text, valid: true };
  let shown = '';
  for (const byte of bytes) shown += byte >= 0x20 && byte < 0x7f && byte !== 0x5c ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
  return { shown, valid: false };
}

function joinBytes(dir: FsPath, name: Buffer): Buffer {
  const head = typeof dir === 'string' ? Buffer.from(dir, 'utf8') : dir;
  return Buffer.concat([head, Buffer.from(sep), name]);
}
