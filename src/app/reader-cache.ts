import { statSync } from 'node:fs';
import type { StoreEngine } from '../store/ports.js';

/**
 * Index readers kept open across the requests of a process that answers many hooks (the hook server): opening an
 * index — its connection, pragmas, statements and the home-layout check, or a PostgreSQL pool — is work every
 * hook in its own process pays and a server need not. A reader is kept per key (what the engine was opened with)
 * and opened again when its SQLite file is no longer the one it opened (a rebuild renames a new file over it, a
 * home's index removed). Reads through it see every commit, as a new connection would: each statement is its own
 * read transaction.
 */
export interface ReaderCache {
  /** The reader for `key`, opened with `open` unless one is kept for the same file. `file`: the SQLite file, null for PostgreSQL. */
  get(key: string, file: string | null, open: () => Promise<StoreEngine>): Promise<StoreEngine>;
  /** Close every kept reader (the process is ending). */
  closeAll(): Promise<void>;
}

export function createReaderCache(): ReaderCache {
  const kept = new Map<string, { engine: Promise<StoreEngine>; identity: string | null }>();
  const drop = async (key: string): Promise<void> => {
    const entry = kept.get(key);
    kept.delete(key);
    await entry?.engine.then(
      (engine) => engine.close(),
      () => undefined,
    );
  };
  return {
    async get(key, file, open) {
      const identity = file === null ? null : identify(file);
      const entry = kept.get(key);
      if (entry !== undefined && entry.identity === identity && identity !== 'missing') return entry.engine;
      if (entry !== undefined) await drop(key).catch(() => undefined);
      const engine = open();
      kept.set(key, { engine, identity });
      // A reader that failed to open is not kept: the next request tries again.
      engine.catch(() => {
        if (kept.get(key)?.engine === engine) kept.delete(key);
      });
      return engine;
    },
    async closeAll() {
      await Promise.all([...kept.keys()].map((key) => drop(key).catch(() => undefined)));
    },
  };
}

/** The file as the file system names it: a file renamed over it, or removed and made again, is another file. */
function identify(file: string): string {
  const stat = statSync(file, { throwIfNoEntry: false, bigint: true });
  return stat === undefined ? 'missing' : `${stat.dev}:${stat.ino}`;
}
