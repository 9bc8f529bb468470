import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { makeTempDir } from '../helpers/cli.js';
import { listFixtureCommits, withoutDocuments } from '../helpers/prepared.js';

/**
 * Index documents prepared beside the parse (on an ingest worker) and a session indexed from memory must give
 * the index exactly what the writer builds from stored rows: every (term, row, column, offset) of both full-text
 * tables is compared, for whole files and for files committed in two halves (the second half merges into rows
 * of the first, where a prepared document no longer fits and must not be used).
 */
let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ path: root, cleanup } = makeTempDir('moon-prepared-'));
});
afterEach(() => cleanup());

/** Everything both full-text tables hold, whatever their segment layout. */
function readIndex(path: string): unknown[] {
  const db = new Database(path);
  try {
    db.exec('CREATE VIRTUAL TABLE temp.words USING fts5vocab(main, entries_fts, instance); CREATE VIRTUAL TABLE temp.grams USING fts5vocab(main, entries_tri, instance);');
    return [
      db.prepare('SELECT * FROM temp.words ORDER BY term, doc, col, offset').raw().all(),
      db.prepare('SELECT * FROM temp.grams ORDER BY term, doc, col, offset').raw().all(),
    ];
  } finally {
    db.close();
  }
}

test.each([false, true])('prepared documents and in-memory neighbours index exactly as stored rows do (halves: %s)', (halves) => {
  const prepared = openSqliteStore(join(root, 'prepared.db'));
  const stored = openSqliteStore(join(root, 'stored.db'));
  const files = listFixtureCommits(join(root, 'home'), halves);
  for (const commits of files) {
    for (const commit of commits) {
      expect(commit.documents?.size).toBeGreaterThan(0);
      prepared.commitFile(commit);
      stored.commitFile(withoutDocuments(commit));
    }
  }
  prepared.close();
  stored.close();
  expect(files.length).toBeGreaterThan(10);
  // The stored side's word index is then rebuilt from its rows, read back (the path a migration takes).
  const db = new Database(join(root, 'stored.db'));
  db.prepare("INSERT INTO meta (key, value) VALUES ('rebuild_fts', '1')").run();
  db.close();
  const rebuilt = openSqliteStore(join(root, 'stored.db'));
  rebuilt.finishPendingRebuild!();
  rebuilt.close();
  const [words, grams] = readIndex(join(root, 'prepared.db')) as [unknown[], unknown[]];
  expect(words.length).toBeGreaterThan(1000);
  expect(grams.length).toBeGreaterThan(100);
  expect(readIndex(join(root, 'stored.db'))).toEqual([words, grams]);
});
