import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';

/** Every path under $MOON_HOME, in one place. */
export interface MoonPaths {
  home: string;
  db: string;
  archives: string;
  raw: string;
  mlib: string;
  ledger: string;
  logs: string;
  /** Daily memory files (L1): memory/YYYY-MM-DD.md. */
  memory: string;
  /** Durable memory (L2): MEMORY.md. */
  memoryFile: string;
  continuity: string;
  /** Embedding models pulled by name (`moon models pull`): models/<name>/, each with its moon-model.json. */
  models: string;
}

/** `logsDir`: logs.dir / MOON_LOGS_DIR when set; $MOON_HOME/logs otherwise. */
export function resolvePaths(home: string, logsDir?: string): MoonPaths {
  const archives = join(home, 'archives');
  return {
    home,
    db: join(home, 'moon.db'),
    archives,
    raw: join(archives, 'raw'),
    mlib: join(archives, 'mlib'),
    ledger: join(archives, 'ledger.jsonl'),
    logs: logsDir ? resolve(logsDir) : join(home, 'logs'),
    memory: join(home, 'memory'),
    memoryFile: join(home, 'MEMORY.md'),
    continuity: join(home, 'continuity'),
    models: join(home, 'models'),
  };
}

/** Session ids become file names: keep them readable, but never let one escape its folder. */
export function toFileStem(sessionId: string): string {
  const stem = sessionId.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_');
  return stem === '' ? '_' : stem.slice(0, 200);
}

export function projectionPathFor(paths: MoonPaths, sessionId: string): string {
  return join(paths.mlib, `${toFileStem(sessionId)}.md`);
}

export function rawArchivePathFor(paths: MoonPaths, source: string, sessionId: string): string {
  return join(paths.raw, source, `${toFileStem(sessionId)}.jsonl`);
}

/** Path parts a whole-file document's raw copy keeps from the original (`<project>/.puffin/history.json`). */
const DOCUMENT_TAIL_PARTS = 3;

/**
 * The raw copy of a whole-file document, which holds many sessions: one per original file, in a folder named by
 * a hash of the original path, keeping the file's last path parts, so that a rebuild discovers it by the same
 * name and reads the same project from it (`archives/raw/puffin/<hash>/<project>/.puffin/history.json`).
 */
export function rawDocumentArchivePathFor(paths: MoonPaths, source: string, path: string): string {
  const key = createHash('sha256').update(path).digest('hex').slice(0, 16);
  const tail = path.split(/[\\/]/).filter((part) => part !== '').slice(-DOCUMENT_TAIL_PARTS).map((part) => (part === '.' || part === '..' ? '_' : part));
  return join(paths.raw, source, key, ...tail);
}
