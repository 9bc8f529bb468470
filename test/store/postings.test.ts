import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Entry, Role } from '../../src/model.js';
import { decodeBlock, encodeBlock } from '../../src/store/postings/block-codec.js';
import { editTermBlocks } from '../../src/store/postings/block-edits.js';
import { toPostingPhrases } from '../../src/store/postings/query-phrases.js';
import { SqlitePostings } from '../../src/store/sqlite/postings.js';
import { probeSqliteFile } from '../../src/store/sqlite/probe.js';
import { searchWords } from '../../src/store/sqlite/search.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import type { LexicalQuery } from '../../src/store/types.js';
import { fileCommit, storedSession, turn } from '../contracts/fixtures.js';
import { makeTempDir } from '../helpers/cli.js';

/**
 * The word list from postings (store/postings/) equals FTS5's exact list — the same rows, scores and order —
 * after every kind of write: inserts in several chunks (neighbours' context rewritten), results attached to
 * earlier calls, sessions re-indexed, dropped and forgotten, and the backfill of an index that had none.
 */

/** A seeded generator, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

// Common words in many entries (several blocks of postings each), rare ones in few; "deploying" and "deploy" share a stem.
const WORDS = ['error', 'test', 'deploy', 'deploying', 'config', 'build', 'cache', 'timeout', 'queue', 'retry', 'flaky', 'webhook', 'invoice', 'postgres', 'zstd', 'quokka', 'flamegraph', 'idempotent'];

function makeText(next: () => number, words: number): string {
  const parts: string[] = [];
  for (let index = 0; index < words; index += 1) {
    // Zipf-like: the first words far more often.
    const word = WORDS[Math.min(WORDS.length - 1, Math.floor(WORDS.length * next() ** 3))]!;
    parts.push(next() < 0.1 ? word.toUpperCase() : word);
  }
  return parts.join(next() < 0.5 ? ' ' : ', ');
}

const PROJECTS = ['shop', 'blog', 'infra'];

function sessionOf(index: number) {
  return storedSession({ id: `s${index}`, source: 'claude-code', project: PROJECTS[index % PROJECTS.length]!, cwd: `/home/dev/${PROJECTS[index % PROJECTS.length]}`, startMs: index * 100_000, endMs: index * 100_000 + 90_000 });
}

function makeTurns(next: () => number, sessionIndex: number, from: number, count: number): Entry[] {
  const roles: Role[] = ['user', 'assistant', 'assistant'];
  return Array.from({ length: count }, (_, offset) => {
    const n = from + offset;
    const tool = next() < 0.2;
    return turn(`s${sessionIndex}`, n, {
      ts: sessionIndex * 100_000 + n * 10,
      role: tool ? 'assistant' : roles[n % roles.length]!,
      text: makeText(next, 1 + Math.floor(next() * 12)),
      ...(tool ? { tool: 'Bash', target: `npm run ${WORDS[Math.floor(next() * 6)]}` } : {}),
    });
  });
}

function makeQueries(next: () => number): LexicalQuery[] {
  const pick = () => WORDS[Math.floor(WORDS.length * next() ** 2)]!;
  const queries: LexicalQuery[] = [];
  for (let index = 0; index < 60; index += 1) {
    const any = Array.from({ length: 1 + Math.floor(next() * 5) }, pick);
    const shape = index % 10;
    queries.push({
      any,
      all: shape === 3 ? [pick()] : [],
      none: shape === 4 ? [pick()] : [],
      filters:
        shape === 5 ? { projects: ['shop'] } : shape === 6 ? { roles: ['user'] } : shape === 7 ? { sinceMs: 1_000_000, untilMs: 2_500_000 } : shape === 8 ? { sessionIds: ['s1', 's2'] } : {},
      limit: [1, 3, 10, 50, 200][index % 5]!,
      context: shape !== 9,
      every: shape === 2,
    });
  }
  // Phrases of several words (tool targets are "npm run <word>") and prefixes, ranked with one-word terms.
  for (const [index, word] of ['build', 'test', 'deploy', 'error'].entries()) {
    queries.push({ any: [`npm run ${word}`, pick(), pick()], all: [], none: index === 1 ? ['run error'] : [], filters: {}, limit: [3, 50][index % 2]!, context: true });
    queries.push({ any: [word.slice(0, 3), pick().slice(0, 4)], all: [], none: [], filters: {}, limit: 10, context: false, prefix: true });
  }
  return queries;
}

let store: Store;
let path: string;
let cleanup: () => void;

beforeEach(() => {
  const temp = makeTempDir('moon-postings-');
  cleanup = temp.cleanup;
  path = join(temp.path, 'moon.db');
  store = openSqliteStore(path);
});
afterEach(() => {
  store.close();
  cleanup();
});

/** Every query, from postings and from FTS5 alone: rows, scores and order equal; returns how many rows were compared. */
function expectSameLists(queries: LexicalQuery[]): number {
  const db = new Database(path, { readonly: true });
  try {
    const postings = new SqlitePostings(db);
    let rows = 0;
    for (const query of queries) {
      expect(toPostingPhrases(query)).not.toBeNull();
      const fromFts = searchWords(db, query, null).map((candidate) => [candidate.rowid, candidate.score]);
      const fromPostings = searchWords(db, query, postings).map((candidate) => [candidate.rowid, candidate.score]);
      expect(fromPostings, JSON.stringify(query)).toEqual(fromFts);
      rows += fromFts.length;
    }
    return rows;
  } finally {
    db.close();
  }
}

describe('postings', () => {
  test('a block packs and unpacks its postings, also when appended to one already stored', () => {
    const block = { rowids: [5, 9, 2 ** 40], all: [10, 3, 70_000], own: [10, 0, 60_000], lengths: [1, 200, 9] };
    expect(decodeBlock(Buffer.from(encodeBlock(block)))).toEqual(block);
    const head = Buffer.from(encodeBlock({ rowids: [1, 3], all: [1, 1], own: [1, 1], lengths: [2, 2] }));
    const tail = Buffer.from(encodeBlock({ rowids: [4, 8], all: [6, 3], own: [0, 3], lengths: [5, 5] }, 3));
    expect(decodeBlock(Buffer.concat([head, tail]))).toEqual({ rowids: [1, 3, 4, 8], all: [1, 1, 6, 3], own: [1, 1, 0, 3], lengths: [2, 2, 5, 5] });
  });

  test('a change lands in the block holding its row id: below the first block in the first, past the last in the last; blocks are cut at 128', () => {
    const block = (rowids: number[]) => ({ rowids, all: rowids.map(() => 10), own: rowids.map(() => 10), lengths: rowids.map(() => 5) });
    const loaded = [
      { first: 10, block: block([10, 12, 14]) },
      { first: 20, block: block([20, 22]) },
    ];
    const adds = block([5, 13, 21, ...Array.from({ length: 130 }, (_, index) => 100 + index)]);
    const { dropped, written } = editTermBlocks(loaded, { removes: [12, 22], adds });
    expect(dropped).toEqual([10, 20]);
    expect(written.map((columns) => Array.from(columns.rowids))).toEqual([
      [5, 10, 13, 14],
      [20, 21, ...Array.from({ length: 126 }, (_, index) => 100 + index)],
      [226, 227, 228, 229],
    ]);
    // A term with no block yet: one new block.
    expect(editTermBlocks([], { removes: [], adds: block([3, 4]) })).toEqual({ dropped: [], written: [block([3, 4])] });
  });

  test('one-word terms are walked in the postings, keeping FTS5’s duplicates; phrases of several words and prefixes go to FTS5', () => {
    expect(toPostingPhrases({ any: ['deploy', 'Deploying', 'deploy', '!!', 'src/lib'], all: ['cache'], none: ['zstd'], context: false })).toEqual({
      phrases: [
        // Porter stems both to one term; FTS5 still counts them as two phrases.
        { term: 'deploi', text: 'deploy', prefix: false, columns: 'own', must: false },
        { term: 'deploi', text: 'Deploying', prefix: false, columns: 'own', must: false },
        { term: null, text: 'src/lib', prefix: false, columns: 'own', must: false },
        { term: 'cach', text: 'cache', prefix: false, columns: 'own', must: true },
      ],
      excluded: [{ term: 'zstd', text: 'zstd', prefix: false, columns: 'own', must: false }],
    });
    expect(toPostingPhrases({ any: ['wrangl'], all: [], none: [], prefix: true })?.phrases[0]).toMatchObject({ term: null, prefix: true });
  });

  test('the lists equal FTS5’s after inserts in chunks, results attached later, re-indexing, dropping and forgetting', () => {
    const next = random(7);
    const queries = makeQueries(random(11));
    const sessions = Array.from({ length: 12 }, (_, index) => sessionOf(index));
    // First chunks: each session's first turns.
    store.batch(() => {
      sessions.forEach((session, index) => store.commitFile(fileCommit(session, makeTurns(next, index, 1, 120))));
    });
    expect(expectSameLists(queries)).toBeGreaterThan(500);
    // Later chunks append turns (the last turns before them get new neighbours) and attach results to earlier calls.
    sessions.forEach((session, index) => {
      const calls = makeTurns(next, index, 121, 80);
      const patch = { key: 'k118', result: makeText(next, 30), resultId: `r${index}` };
      store.commitFile(fileCommit(session, calls, { reset: false, results: [patch] }));
    });
    expectSameLists(queries);
    // A session read again from the start; another dropped by its file; two forgotten.
    store.commitFile(fileCommit(sessions[3]!, makeTurns(next, 3, 1, 90)));
    store.commitFile({ ...fileCommit(sessions[4]!, []), session: null, dropSessions: ['s4'] });
    store.forgetSessions(['s5', 's6'], 'test', 1);
    expectSameLists(queries);
  });

  test('an index without postings gets them by the backfill, resumed after an interruption, and ranks the same', async () => {
    const next = random(3);
    const sessions = Array.from({ length: 9 }, (_, index) => sessionOf(index));
    store.batch(() => sessions.forEach((session, index) => store.commitFile(fileCommit(session, makeTurns(next, index, 1, 60)))));
    const queries = makeQueries(random(5));
    const before = expectSameLists(queries);
    store.close();
    // As an index from before postings: none, and the migration's flag.
    const db = new Database(path);
    db.exec("DELETE FROM postings; DELETE FROM entry_terms; DELETE FROM posting_terms; INSERT INTO meta (key, value) VALUES ('postings_pending', '1')");
    db.close();
    // A backfill fills every entry, in several transactions.
    store = openSqliteStore(path);
    expect(new Database(path, { readonly: true }).prepare("SELECT count(*) FROM meta WHERE key = 'postings_pending'").pluck().get()).toBe(0);
    expect(expectSameLists(queries)).toBe(before);
    store.close();
    // Interrupted part way: the first sessions have their postings, the others none, the flag still set.
    const raw = new Database(path);
    raw.transaction(() => {
      const postings = new SqlitePostings(raw);
      const later = raw.prepare("SELECT rowid FROM entries WHERE session_id >= 's5'").pluck().all() as number[];
      for (const rowid of later) postings.remove(rowid);
      postings.flush();
      raw.exec("INSERT INTO meta (key, value) VALUES ('postings_pending', '1')");
    })();
    expect(raw.prepare('SELECT count(*) FROM entry_terms').pluck().get()).toBeLessThan(raw.prepare('SELECT count(*) FROM entries').pluck().get() as number);
    raw.close();
    // moon doctor says so, and that the next index resumes it.
    expect(await probeSqliteFile(path)).toMatchObject({ ok: true, detail: expect.stringMatching(/postings being filled \(\d+ of \d+ entries; the next `moon index` resumes it\)/) });
    store = openSqliteStore(path);
    expect(await probeSqliteFile(path)).toMatchObject({ ok: true, detail: expect.stringContaining('word lists ranked from postings') });
    expect(expectSameLists(queries)).toBe(before);
  });
});
