import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createEntry, createSession, type Entry, type Session } from '../../src/model.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { BatchAbortedError, type FileCommit, type Store, type StoredSession } from '../../src/store/store.js';
import { makeTempDir } from '../helpers/cli.js';

let store: Store;
let cleanup: () => void;

beforeEach(() => {
  const temp = makeTempDir('moon-store-');
  cleanup = temp.cleanup;
  store = openSqliteStore(join(temp.path, 'moon.db'));
});
afterEach(() => {
  store.close();
  cleanup();
});

function session(id: string): StoredSession {
  const base: Session = createSession({ id, source: 'claude-code', path: `/t/${id}.jsonl`, project: 'p', cwd: '/p', branch: null, parentSessionId: null, startMs: 0, endMs: 10_000 });
  return { ...base, entryCount: 0, filteredNoiseCount: 0, skipped: {}, archivePath: null, projectionPath: null, contentHash: null, projectionStale: true };
}

function entry(sessionId: string, index: number, text: string): Entry {
  return createEntry({ id: `${sessionId}-${index}`, key: `k${index}`, sessionId, seq: index * 1000, line: index, ts: index * 1000, role: 'user', text });
}

function commit(id: string, texts: string[], offset = 100): FileCommit {
  return {
    file: { path: `/t/${id}.jsonl`, sessionId: id, source: 'claude-code', size: offset, mtimeMs: 1, prefixHash: 'x', contentHash: 'y', offset, line: texts.length, carry: null, excluded: null, indexedAtMs: 1 },
    session: session(id),
    reset: true,
    entries: texts.map((text, index) => entry(id, index + 1, text)),
    results: [],
    anchors: [],
    usage: [],
  };
}

const search = (term: string, context = true) =>
  store.searchLexical({ any: [term], all: [], none: [], filters: {}, limit: 10, context }).map((candidate) => candidate.entry.id);

describe('SqliteStore', () => {
  test('a failed commit inside a batch rolls back the whole batch — no half file, no earlier file', () => {
    const broken = commit('b', ['fine text here']);
    (broken.entries[0] as { text: unknown }).text = null; // violates NOT NULL mid-file
    expect(() =>
      store.batch(() => {
        store.commitFile(commit('a', ['alpha message one', 'alpha message two']));
        store.commitFile(broken);
      }),
    ).toThrow(BatchAbortedError);
    expect(store.stats().entries).toBe(0);
    expect(store.getFile('/t/a.jsonl')).toBeNull();
  });

  test('entries are found through their neighbours’ words, but --require tests the entry itself', () => {
    store.commitFile(commit('c', ['what have you been researching lately', 'adoption agencies, mostly', 'nice, good luck']));
    const found = search('researching');
    expect(found[0]).toBe('c-1');
    expect([...found].sort()).toEqual(['c-1', 'c-2', 'c-3']);
    expect(search('researching', false)).toEqual(['c-1']);
    // ranked words may come from neighbours; required words must be in the entry itself
    const required = store.searchLexical({ any: ['researching'], all: ['agencies'], none: [], filters: {}, limit: 10 });
    expect(required.map((candidate) => candidate.entry.id)).toEqual(['c-2']);
    const excluded = store.searchLexical({ any: ['researching'], all: [], none: ['agencies'], filters: {}, limit: 10 });
    expect(excluded.map((candidate) => candidate.entry.id).sort()).toEqual(['c-1', 'c-3']);
  });

  test('a later chunk updates the neighbour context of the entries before it', () => {
    store.commitFile(commit('d', ['first question about kubernetes']));
    expect(search('helm')).toEqual([]);
    store.commitFile({ ...commit('d', []), reset: false, entries: [entry('d', 2, 'answer: use the helm chart')] });
    expect(search('helm')).toEqual(['d-2', 'd-1']);
  });

  test('hostile terms are data, never FTS syntax', () => {
    store.commitFile(commit('e', ['a "quoted" NEAR thing (with) parens * and: colons']));
    for (const term of ['"', 'NEAR(', 'AND', 'OR NOT', '*', 'a:b', '(((', ')', '^', '-x', 'col:value']) {
      expect(() => search(term)).not.toThrow();
    }
    expect(search('NEAR')).toEqual(['e-1']);
  });
});

describe('embeddings', () => {
  test('vectors are incremental, and a changed model fingerprint drops them for re-embedding', () => {
    store.commitFile(commit('v', ['alpha entry text', 'beta entry text', 'gamma entry text']));
    store.setEmbeddingModel({ id: 'model-a', dims: 2 });
    const pending = store.listPendingEmbeddings(2);
    expect(pending).toHaveLength(2);
    store.putEmbeddings(pending.map((item) => ({ rowid: item.rowid, vector: new Float32Array([1, 0]) })));
    expect(store.countEmbeddings()).toBe(2);
    expect(store.listPendingEmbeddings(10).map((item) => item.entry.id)).toEqual(['v-3']);
    store.setEmbeddingModel({ id: 'model-a', dims: 2 });
    expect(store.countEmbeddings()).toBe(2);
    store.setEmbeddingModel({ id: 'model-b', dims: 2 });
    expect(store.countEmbeddings()).toBe(0);
    expect(store.getEmbeddingModel()).toEqual({ id: 'model-b', dims: 2 });
  });

  test('vector search ranks by cosine similarity, with filters applied first', () => {
    store.commitFile(commit('w', ['north', 'east', 'north east']));
    store.setEmbeddingModel({ id: 'm', dims: 2 });
    const vectors: Record<string, number[]> = { 'w-1': [1, 0], 'w-2': [0, 1], 'w-3': [0.7, 0.7] };
    store.putEmbeddings(store.listPendingEmbeddings(10).map((item) => ({ rowid: item.rowid, vector: new Float32Array(vectors[item.entry.id]!) })));
    const near = (filters = {}) =>
      store.searchVector({ vector: new Float32Array([1, 0.1]), all: [], none: [], filters, limit: 2 }).map((candidate) => candidate.entry.id);
    expect(near()).toEqual(['w-1', 'w-3']);
    expect(near({ windows: [{ startMs: 1500, endMs: 10_000 }] })).toEqual(['w-3', 'w-2']);
  });
});

describe('migrations', () => {
  test('an index from schema 1 gains trigram rows and neighbour context when opened', async () => {
    const temp = makeTempDir('moon-migrate-');
    try {
      const path = join(temp.path, 'moon.db');
      const first = openSqliteStore(path);
      first.commitFile(commit('m', ['what have you been researching', 'adoption agencies, mostly: see agency_list.md', 'thanks for sharing that']));
      first.close();
      // Rewind to schema 1: its FTS table had no context column, and there was no trigram table or meta.
      const { default: Database } = await import('better-sqlite3');
      const raw = new Database(path);
      raw.exec(`
        DROP TABLE entries_fts; DROP TABLE entries_tri; DROP TABLE embeddings; DROP TABLE meta;
        CREATE VIRTUAL TABLE entries_fts USING fts5(text, role, tool, target, keywords, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2');
        INSERT INTO entries_fts (rowid, text, role) SELECT rowid, text, role FROM entries;
        ALTER TABLE sessions DROP COLUMN title; ALTER TABLE sessions DROP COLUMN agent_type;
        ALTER TABLE sessions DROP COLUMN agent_description; ALTER TABLE entries DROP COLUMN kind;
        ALTER TABLE entries DROP COLUMN exit_code; ALTER TABLE entries DROP COLUMN duration_ms;
        ALTER TABLE entries DROP COLUMN status; DROP TABLE archived; DROP TABLE session_terms; DROP TABLE IF EXISTS tombstones; DROP TABLE failures; DROP TABLE IF EXISTS copied;
      `);
      raw.pragma('user_version = 1');
      raw.close();
      const reopened = openSqliteStore(path);
      try {
        const words = reopened.searchLexical({ any: ['researching'], all: [], none: [], filters: {}, limit: 10 });
        expect(words.map((candidate) => candidate.entry.id).sort()).toEqual(['m-1', 'm-2', 'm-3']);
        const partial = reopened.searchTrigram({ any: ['agency_li'], all: [], none: [], filters: {}, limit: 10 });
        expect(partial.map((candidate) => candidate.entry.id)).toEqual(['m-2']);
      } finally {
        reopened.close();
      }
    } finally {
      temp.cleanup();
    }
  });
});

describe('archived pairs and the ledger', () => {
  const record = (sessionId: string, hash: string) => ({
    session_id: sessionId,
    archive_path: `/a/${sessionId}.jsonl`,
    content_hash: hash,
    created_at_epoch_secs: 1,
    indexed_collection: 'moon',
    projection_filtered_noise_count: 0,
  });

  test('a pair is handed to the ledger once, after its commit, whichever connection flushes', () => {
    const temp = makeTempDir('moon-ledger-');
    const path = join(temp.path, 'moon.db');
    const a = openSqliteStore(path);
    const b = openSqliteStore(path);
    try {
      a.commitFile({ ...commit('p', ['first message text']), archived: record('p', 'h1') });
      b.commitFile({ ...commit('p', ['first message text']), archived: record('p', 'h1') });
      b.commitFile({ ...commit('p', ['first message text', 'second']), archived: record('p', 'h2') });
      const written: string[] = [];
      expect(a.flushLedger((item) => written.push(`${item.session_id}/${item.content_hash}`))).toBe(2);
      expect(b.flushLedger((item) => written.push(`${item.session_id}/${item.content_hash}`))).toBe(0);
      expect(written).toEqual(['p/h1', 'p/h2']);
    } finally {
      a.close();
      b.close();
      temp.cleanup();
    }
  });

  test('a failed append leaves the pair pending for the next flush', () => {
    store.commitFile({ ...commit('q', ['some message text']), archived: record('q', 'h') });
    expect(() =>
      store.flushLedger(() => {
        throw new Error('disk full');
      }),
    ).toThrow('disk full');
    const written: string[] = [];
    expect(store.flushLedger((item) => written.push(item.content_hash))).toBe(1);
    expect(written).toEqual(['h']);
  });
});

describe('browsing sessions', () => {
  const at = (id: string, project: string, source: 'claude-code' | 'codex', startMs: number, endMs: number, tools: string[]): FileCommit => {
    const base = commit(id, ['a user message here', 'an assistant reply here']);
    const entries = [
      { ...base.entries[0]!, ts: startMs },
      { ...base.entries[1]!, role: 'assistant' as const, ts: startMs + 1 },
      ...tools.map((tool, index) => ({ ...entry(id, 10 + index, `run ${tool}`), role: 'tool' as const, toolName: tool, ts: endMs })),
    ];
    return { ...base, session: { ...session(id), project, cwd: `/home/${project}`, source, startMs, endMs }, entries };
  };

  beforeEach(() => {
    store.commitFile(at('old', 'shop', 'claude-code', 1_000, 5_000, ['Bash', 'Bash', 'Edit']));
    store.commitFile(at('mid', 'api', 'codex', 10_000, 20_000, ['exec_command']));
    store.commitFile(at('new', 'shop', 'claude-code', 30_000, 40_000, []));
  });

  test('newest first, with message counts and tools most used first', () => {
    const all = store.listSessionSummaries({});
    expect(all.map((item) => item.id)).toEqual(['new', 'mid', 'old']);
    const old = all[2]!;
    expect(old.messages).toBe(2);
    expect(old.tools).toEqual([
      { name: 'Bash', count: 2 },
      { name: 'Edit', count: 1 },
    ]);
    expect(all[0]!.tools).toEqual([]);
  });

  test('project (name or cwd part), source, overlap with [since, until) and limit', () => {
    const ids = (filter: Parameters<Store['listSessionSummaries']>[0]) => store.listSessionSummaries(filter).map((item) => item.id);
    expect(ids({ projects: ['SHOP'] })).toEqual(['new', 'old']);
    expect(ids({ projects: ['home/ap'] })).toEqual(['mid']);
    expect(ids({ sources: ['codex'] })).toEqual(['mid']);
    expect(ids({ sinceMs: 15_000 })).toEqual(['new', 'mid']);
    expect(ids({ untilMs: 10_000 })).toEqual(['old']);
    expect(ids({ sinceMs: 4_000, untilMs: 10_001 })).toEqual(['mid', 'old']);
    expect(ids({ limit: 1 })).toEqual(['new']);
  });

  test('session ids by prefix: exact first, LIKE wildcards taken literally, case as written', () => {
    store.commitFile(at('mid_2', 'api', 'codex', 50_000, 60_000, []));
    const ids = (prefix: string) => store.findSessionsByPrefix(prefix, 5).map((match) => match.id);
    expect(ids('mid')).toEqual(['mid', 'mid_2']);
    expect(ids('mi')).toEqual(['mid', 'mid_2']);
    expect(ids('m%')).toEqual([]);
    expect(ids('mid_')).toEqual(['mid_2']);
    expect(ids('MID')).toEqual([]);
  });
});
