import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { StoreEngine } from '../../src/store/ports.js';
import { openPostgresEngine } from '../../src/store/postgres/engine.js';
import { usePostgres, withPgClient } from '../helpers/postgres.js';
import { listFixtureCommits } from '../helpers/prepared.js';

/**
 * BM25's document frequency of a one-word phrase comes from per-lexeme counts that statement triggers keep
 * (migration 6), not from counting matches per query. They must equal a recount of the entries after inserts,
 * rows merged in place (the word index updated), and sessions forgotten — and `checkIntegrity` must notice when
 * they do not.
 */
const postgres = usePostgres();
let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'moon-lexemes-'));
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

/** Lexemes whose kept counts differ from a recount of every entry's word index. */
async function driftOf(url: string): Promise<unknown[]> {
  return withPgClient(url, async (client) =>
    (
      await client.query(
        `SELECT coalesce(l.lexeme, a.lexeme) AS lexeme, l.rows, a.n, l.own_rows, a.own
         FROM moon.lexemes l
         FULL JOIN (SELECT u.lexeme, count(*)::bigint AS n, count(*) FILTER (WHERE u.weights && '{A,B,C}'::text[])::bigint AS own
                    FROM moon.entries e, unnest(e.tv) u GROUP BY u.lexeme) a ON a.lexeme = l.lexeme
         WHERE coalesce(l.rows, 0) <> coalesce(a.n, 0) OR coalesce(l.own_rows, 0) <> coalesce(a.own, 0)`,
      )
    ).rows,
  );
}

describe('PostgreSQL lexeme counts', () => {
  test('follow inserts, rows merged in place and forgotten sessions; checkIntegrity reports a drift', async () => {
    const url = await postgres().createDatabase('lexemes');
    const engine: StoreEngine = await openPostgresEngine(url, { machine: 'lexemes' });
    try {
      // Every fixture in two halves: the second half repeats the first's last entry with more text (an UPDATE).
      const files = listFixtureCommits(join(home, 'home'), true);
      for (const commits of files) {
        for (const commit of commits) await engine.ingest.transaction(async (tx) => tx.commitFile(commit));
      }
      const counted = await withPgClient(url, async (client) => Number((await client.query('SELECT count(*) AS n FROM moon.lexemes WHERE rows > 0')).rows[0].n));
      expect(counted).toBeGreaterThan(500);
      expect(await driftOf(url)).toEqual([]);
      const sessions = files.map(([commit]) => commit!.session!.id);
      await engine.forget.forget(sessions.slice(0, Math.ceil(sessions.length / 2)), 'test', Date.UTC(2026, 0, 1));
      expect(await driftOf(url)).toEqual([]);
      expect(await engine.stats.checkIntegrity()).toEqual([]);
      await withPgClient(url, (client) => client.query("UPDATE moon.lexemes SET own_rows = own_rows + 1 WHERE lexeme = (SELECT min(lexeme) FROM moon.lexemes WHERE rows > 0)"));
      expect(await engine.stats.checkIntegrity()).toEqual(['lexeme counts that disagree with the entries (BM25 statistics): 1']);
    } finally {
      await engine.close();
    }
  });

  test('a database indexed before the counts existed gets them from its entries when it is opened', async () => {
    const url = await postgres().createDatabase('lexemes_backfill');
    const first = await openPostgresEngine(url, { machine: 'lexemes' });
    try {
      for (const [commit] of listFixtureCommits(join(home, 'backfill'), false)) await first.ingest.transaction(async (tx) => tx.commitFile(commit!));
    } finally {
      await first.close();
    }
    // Back to the schema before migration 6, with the entries in place.
    await withPgClient(url, (client) =>
      client.query(`DROP TRIGGER lexemes_insert ON moon.entries; DROP TRIGGER lexemes_delete ON moon.entries; DROP TRIGGER lexemes_update ON moon.entries;
        DROP FUNCTION moon.count_lexemes(); DROP FUNCTION moon.fold_lexemes(); DROP TABLE moon.lexemes; DROP TABLE moon.lexeme_changes;
        DELETE FROM moon.migrations WHERE version >= 6;`),
    );
    const reopened = await openPostgresEngine(url, { machine: 'lexemes' });
    try {
      expect(await withPgClient(url, async (client) => Number((await client.query('SELECT count(*) AS n FROM moon.lexemes')).rows[0].n))).toBeGreaterThan(500);
      expect(await driftOf(url)).toEqual([]);
      expect(await reopened.stats.checkIntegrity()).toEqual([]);
    } finally {
      await reopened.close();
    }
  });
});
