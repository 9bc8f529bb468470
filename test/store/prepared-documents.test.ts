import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { prepareFile } from '../../src/ingest/index-file.js';
import { createIngestContext } from '../../src/ingest/settings.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { FileCommit, StoredSession } from '../../src/store/store.js';
import { REPO, makeTempDir } from '../helpers/cli.js';

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

function listFixtures(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return listFixtures(path);
    return name.endsWith('.jsonl') ? [path] : [];
  });
}

const FIXTURES = [...listFixtures(join(REPO, 'test', 'fixtures')), ...listFixtures(join(REPO, 'examples'))];

function commitsOf(path: string, halves: boolean): FileCommit[] {
  const context = createIngestContext({
    home: join(root, 'home'),
    redact: { enabled: true, extraPatterns: [] },
    minMessageChars: 0,
    timezone: 'UTC',
    maxLineBytes: 8 * 1024 * 1024,
    exclude: [],
    excludeSessionIds: [],
  });
  const prepared = prepareFile(context, path, null, {});
  if (prepared.kind !== 'read') return [];
  const { chunk } = prepared.transcript.normalized;
  if (chunk.fork || chunk.entries.length === 0) return [];
  const session: StoredSession = {
    ...chunk.session,
    entryCount: 0,
    filteredNoiseCount: 0,
    skipped: {},
    archivePath: null,
    projectionPath: null,
    contentHash: null,
    projectionStale: true,
  };
  const file = { path, sessionId: session.id, source: chunk.session.source, size: 1, mtimeMs: 1, prefixHash: '', contentHash: '', offset: 1, line: 1, carry: null, excluded: null, indexedAtMs: 1 };
  const base = { file, session, anchors: [], usage: [] };
  const documents = prepared.transcript.documents;
  expect(documents?.size, path).toBeGreaterThan(0);
  if (!halves) return [{ ...base, reset: true, entries: chunk.entries, results: chunk.results, documents: documents! }];
  // The second half repeats the last entry of the first under its key (a streamed message split in two).
  const middle = Math.floor(chunk.entries.length / 2);
  const first = chunk.entries.slice(0, middle + 1);
  const second = [...chunk.entries.slice(middle, middle + 1).map((entry) => ({ ...entry, text: `${entry.text} continued` })), ...chunk.entries.slice(middle + 1)];
  const { prepareDocuments } = documentsModule;
  return [
    { ...base, reset: true, entries: first, results: [], documents: prepareDocuments(first, []) },
    { ...base, reset: false, entries: second, results: chunk.results, documents: prepareDocuments(second, chunk.results) },
  ];
}

const documentsModule = await import('../../src/store/index-document.js');

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
  let files = 0;
  for (const path of FIXTURES) {
    const commits = commitsOf(path, halves);
    if (commits.length > 0) files += 1;
    for (const commit of commits) {
      prepared.commitFile(commit);
      const { documents: _documents, ...plain } = commit;
      stored.commitFile(plain);
    }
  }
  prepared.close();
  stored.close();
  expect(files).toBeGreaterThan(10);
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
