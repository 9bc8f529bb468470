import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { MoonError, errnoOf, toIoError } from '../errors.js';
import { sha256 } from './ledger.js';

/** An agent config file as it is now. */
export interface CurrentFile {
  /** The path written to: a symlinked config (a dotfiles checkout) is edited where it really lives. */
  file: string;
  exists: boolean;
  /** The text ('' when the file does not exist). */
  text: string;
  sha256: string | null;
  /** Permission bits to keep when the file is replaced. */
  mode: number | null;
}

export function readCurrent(path: string): CurrentFile {
  let file = path;
  try {
    file = realpathSync(path);
  } catch {
    // not there (or a dangling link): written at the path itself
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return { file, exists: false, text: '', sha256: null, mode: null };
    throw toIoError(file, error, 'read');
  }
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) {
    throw new MoonError('bad_input', `${file} is not UTF-8 text`, { hint: 'save it as UTF-8 and run the command again; nothing was written' });
  }
  return { file, exists: true, text, sha256: sha256(text), mode: statSync(file).mode & 0o7777 };
}

/** The folders `mkdir -p` would create for `file`, outermost first. */
export function missingDirs(file: string): string[] {
  const missing: string[] = [];
  let dir = dirname(file);
  while (!existsSync(dir) && dirname(dir) !== dir) {
    missing.unshift(dir);
    dir = dirname(dir);
  }
  return missing;
}

/**
 * Replace `file` with `text` through a temporary file and a rename in the same folder, keeping the old file's
 * permissions. `expected` is the sha256 the file must still have (null: it must still not exist): an agent that
 * wrote the file meanwhile is not overwritten.
 */
export function writeConfigFile(file: string, text: string, mode: number, expected: string | null): void {
  checkUnchanged(file, expected);
  const temporary = `${file}.moon-${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(temporary, text, { mode });
    chmodSync(temporary, mode);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw toIoError(file, error);
  }
}

export function removeConfigFile(file: string, expected: string | null): void {
  checkUnchanged(file, expected);
  try {
    rmSync(file, { force: true });
  } catch (error) {
    throw toIoError(file, error, 'remove');
  }
}

/** Remove the folders moon created that are empty now, innermost first (`dirs` outermost first). */
export function removeEmptyDirs(dirs: readonly string[]): void {
  for (const dir of [...dirs].reverse()) {
    try {
      rmdirSync(dir);
    } catch {
      // not empty (or gone): kept
    }
  }
}

function checkUnchanged(file: string, expected: string | null): void {
  let now: string | null = null;
  try {
    now = sha256(readFileSync(file).toString('utf8'));
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') throw toIoError(file, error, 'read');
  }
  if (now !== expected) {
    throw new MoonError('busy', `${file} changed while moon was editing it (the agent may be writing it)`, { hint: 'run the command again' });
  }
}
