import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createReaderCache } from '../../src/app/reader-cache.js';
import type { StoreEngine } from '../../src/store/ports.js';
import { openSqliteEngine } from '../../src/store/sqlite/engine.js';
import { makeTempDir } from '../helpers/cli.js';

/** The hook server's readers: one open index per file, opened again when the file is another. */
describe('reader cache', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  test('keeps a reader while its file is the same, opens the new file when one is renamed over it, and closes the old', async () => {
    const temp = makeTempDir('moon-reader-cache-');
    cleanups.push(temp.cleanup);
    const db = join(temp.path, 'moon.db');
    const opened: StoreEngine[] = [];
    const open = async (): Promise<StoreEngine> => {
      const engine = openSqliteEngine(db);
      opened.push(engine);
      return engine;
    };
    // Made before the cache sees it, as an index is.
    await (await open()).close();
    opened.length = 0;
    const cache = createReaderCache();
    const first = await cache.get('k', db, open);
    expect(await cache.get('k', db, open)).toBe(first);
    expect(opened).toHaveLength(1);
    expect((await first.stats.stats()).entries).toBe(0);

    // A rebuild: another index renamed over the file.
    const other = join(temp.path, 'other.db');
    await openSqliteEngine(other).close();
    renameSync(other, db);
    rmSync(`${db}-wal`, { force: true });
    rmSync(`${db}-shm`, { force: true });
    const second = await cache.get('k', db, open);
    expect(second).not.toBe(first);
    expect(opened).toHaveLength(2);
    // The old reader was closed.
    await expect(first.stats.stats()).rejects.toThrow();
    // Another key is another reader.
    expect(await cache.get('other-key', db, open)).not.toBe(second);
    await cache.closeAll();
    await expect(second.stats.stats()).rejects.toThrow();
  });

  test('a reader that fails to open is not kept: the next request opens again', async () => {
    const cache = createReaderCache();
    let tries = 0;
    const failing = async (): Promise<StoreEngine> => {
      tries += 1;
      throw new Error('no index');
    };
    await expect(cache.get('k', '/nonexistent/moon.db', failing)).rejects.toThrow('no index');
    await expect(cache.get('k', '/nonexistent/moon.db', failing)).rejects.toThrow('no index');
    expect(tries).toBe(2);
  });
});
