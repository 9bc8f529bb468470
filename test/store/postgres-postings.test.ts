import { describe, expect, test } from 'vitest';
import type { PgClient } from '../../src/store/postgres/client.js';
import { openPostgresEngine } from '../../src/store/postgres/engine.js';
import { fillPostings } from '../../src/store/postgres/fill-postings.js';
import { inspectPostgres } from '../../src/store/postgres/health.js';
import { discardPostings, flushPostings, hasAllPostings, removePostings } from '../../src/store/postgres/postings.js';
import { createPool } from '../../src/store/postgres/client.js';
import type { LexicalQuery } from '../../src/store/types.js';
import { fileCommit, storedSession, turn } from '../contracts/fixtures.js';
import { usePostgres, withPgClient } from '../helpers/postgres.js';

/**
 * A PostgreSQL database from before postings (migration 19 finds entries and no postings) gets them at the next
 * write, a few sessions per transaction, and ranks word lists exactly as before; until then tsvector ranks them.
 */
const postgres = usePostgres();

describe('PostgreSQL postings', () => {
  test('an index without postings is filled by the next write and ranks the same', async () => {
    const url = await postgres().createDatabase('moon_postings_fill');
    const words = ['deploy', 'cache', 'retry', 'webhook', 'queue', 'error'];
    const engine = await openPostgresEngine(url, { machine: 'a' });
    try {
      await engine.ingest.transaction(async (tx) => {
        for (let s = 0; s < 7; s += 1) {
          const session = storedSession({ id: `f${s}`, source: 'claude-code', project: 'shop', cwd: '/home/dev/shop', startMs: s * 1000, endMs: s * 1000 + 900 });
          const entries = Array.from({ length: 30 }, (_, n) => turn(session.id, n + 1, { ts: s * 1000 + n, role: n % 2 ? 'assistant' : 'user', text: `${words[(n * 7 + s) % 6]} ${words[(n + s) % 6]} ${words[n % 6]} step ${n}` }));
          await tx.commitFile(fileCommit(session, entries));
        }
      });
      const queries: LexicalQuery[] = words.map((word, index) => ({ any: [word, words[(index + 2) % 6]!], all: [], none: [], filters: {}, limit: 15, context: index % 2 === 0 }));
      const ranked = async () => Promise.all(queries.map(async (query) => (await engine.search.searchLexical(query)).map((c) => `${c.entry.id}:${c.score}`)));
      const before = await ranked();
      expect(before.flat().length).toBeGreaterThan(50);
      // As a database from before postings: none, and the migration's flag.
      await withPgClient(url, (client) =>
        client.query("DELETE FROM moon.postings; DELETE FROM moon.entry_terms; DELETE FROM moon.posting_terms; INSERT INTO moon.meta (key, value) VALUES ('postings_pending', '1')"),
      );
      // tsvector ranks meanwhile: the same entries, with scores equal to 1e-6 (its column weights are float4, so its
      // frequencies differ from the exact ones in the last digits).
      const meanwhile = await ranked();
      meanwhile.forEach((list, index) => {
        const expected = new Map(before[index]!.map((item) => item.split(':') as [string, string]));
        expect(list.map((item) => item.split(':')[0]).sort()).toEqual([...expected.keys()].sort());
        for (const [id, score] of list.map((item) => item.split(':') as [string, string])) expect(Number(score)).toBeCloseTo(Number(expected.get(id)), 6);
      });
      // Interrupted: after the step that drops postings of deleted entries (none here), the second step of two
      // sessions each fails before it commits (a lost connection, a killed process). The first step's postings
      // stay, the flag stays, doctor counts how far it got.
      let steps = 0;
      const pool = await createPool(url);
      try {
        const interrupted = <T>(work: (client: PgClient) => Promise<T>): Promise<T> =>
          withTransaction(pool, async (client) => {
            const result = await work(client);
            steps += 1;
            if (steps === 3) throw new Error('connection lost');
            return result;
          });
        await expect(fillPostings(pool, interrupted, 2)).rejects.toThrow('connection lost');
        expect((await inspectPostgres(pool)).postings).toEqual({ pending: true, entries: 210, filled: 60 });
      } finally {
        await pool.end();
      }
      const later = await openPostgresEngine(url, { machine: 'a' });
      try {
        await later.ingest.transaction(async () => undefined);
        const state = await withPgClient(url, async (client) => ({
          pending: (await client.query("SELECT count(*)::int AS n FROM moon.meta WHERE key = 'postings_pending'")).rows[0].n,
          filled: (await client.query('SELECT count(*)::int AS n FROM moon.entry_terms')).rows[0].n,
        }));
        expect(state).toEqual({ pending: 0, filled: 210 });
        const pool = await createPool(url);
        try {
          expect((await inspectPostgres(pool)).postings).toEqual({ pending: false, entries: 0, filled: 0 });
        } finally {
          await pool.end();
        }
        expect(await ranked()).toEqual(before);
      } finally {
        await later.close();
      }
    } finally {
      await engine.close();
    }
  }, 120_000);
  test('what a moon from before postings writes or deletes here is seen, ranked by tsvector meanwhile, and mended by the next write', async () => {
    const url = await postgres().createDatabase('moon_postings_mixed');
    const words = ['deploy', 'cache', 'retry', 'webhook', 'queue', 'error'];
    const write = async (engine: Awaited<ReturnType<typeof openPostgresEngine>>, from: number, to: number) =>
      engine.ingest.transaction(async (tx) => {
        for (let s = from; s < to; s += 1) {
          const session = storedSession({ id: `m${s}`, source: 'claude-code', project: 'shop', cwd: '/home/dev/shop', startMs: s * 1000, endMs: s * 1000 + 900 });
          const entries = Array.from({ length: 20 }, (_, n) => turn(session.id, n + 1, { ts: s * 1000 + n, role: n % 2 ? 'assistant' : 'user', text: `${words[(n * 5 + s) % 6]} ${words[(n + s) % 6]} step ${n}` }));
          await tx.commitFile(fileCommit(session, entries));
        }
      });
    const engine = await openPostgresEngine(url, { machine: 'a' });
    const pool = await createPool(url);
    try {
      await write(engine, 0, 6);
      const queries: LexicalQuery[] = words.map((word) => ({ any: [word], all: [], none: [], filters: {}, limit: 200, context: true }));
      const ranked = async () => Promise.all(queries.map(async (query) => (await engine.search.searchLexical(query)).map((c) => `${c.entry.id}:${c.score}`)));
      const sameEntries = (a: string[][], b: string[][]) => expect(a.map((list) => list.map((item) => item.split(':')[0]).sort())).toEqual(b.map((list) => list.map((item) => item.split(':')[0]).sort()));

      // An older moon writes two sessions: entries without postings (written here, then their postings taken away).
      await write(engine, 6, 8);
      const everything = await ranked();
      await withTransaction(pool, async (client) => {
        const rows = await client.query<{ rowid: number }>("SELECT rowid FROM moon.entries WHERE session_id IN ('m6', 'm7')");
        removePostings(client, rows.rows.map((row) => Number(row.rowid)));
      });
      expect(await hasAllPostings(pool)).toBe(false);
      sameEntries(await ranked(), everything);
      await engine.ingest.transaction(async () => undefined);
      expect(await hasAllPostings(pool)).toBe(true);
      expect(await ranked()).toEqual(everything);

      // An older moon deletes a session: its entries go, their postings stay behind.
      await pool.query("DELETE FROM moon.entries WHERE session_id = 'm3'");
      expect(await hasAllPostings(pool)).toBe(false);
      const meanwhile = await ranked();
      expect(meanwhile.flat().some((item) => item.startsWith('m3.'))).toBe(false);
      await engine.ingest.transaction(async () => undefined);
      expect(await hasAllPostings(pool)).toBe(true);
      const mended = await ranked();
      sameEntries(mended, meanwhile);
      expect((await pool.query('SELECT count(*)::int AS n FROM moon.entry_terms')).rows[0]).toEqual({ n: 140 });

      // A newer moon migrates the database: this one still reads it, and writes nothing.
      await pool.query('INSERT INTO moon.migrations (version, applied_ms) SELECT max(version) + 1, 0 FROM moon.migrations');
      const older = await openPostgresEngine(url, { machine: 'b' });
      try {
        expect(await Promise.all(queries.map(async (query) => (await older.search.searchLexical(query)).map((c) => `${c.entry.id}:${c.score}`)))).toEqual(mended);
        await expect(write(older, 9, 10)).rejects.toThrow(/was migrated by a newer moon \(\d+ migrations; this one knows \d+\): it is not written from here/);
        await expect(older.forget.forget(['m1'], 'test', 0)).rejects.toThrow(/newer moon/);
      } finally {
        await older.close();
      }
    } finally {
      await pool.end();
      await engine.close();
    }
  }, 120_000);
});

/** One transaction on a client of the engine's kind, its postings applied before it commits. */
async function withTransaction<T>(pool: Awaited<ReturnType<typeof createPool>>, work: (client: PgClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await flushPostings(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    discardPostings(client);
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}
