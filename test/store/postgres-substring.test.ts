import { describe, expect, test } from 'vitest';
import { openPostgresEngine } from '../../src/store/postgres/engine.js';
import { overlapsItself } from '../../src/store/postgres/search.js';
import { SCORE_DECIMALS, inverseDocumentFrequency } from '../../src/store/top-k.js';
import { fileCommit, storedSession, turn } from '../contracts/fixtures.js';
import { usePostgres, withPgClient } from '../helpers/postgres.js';

/**
 * The substring list's BM25 is written into its query (postgres/search.ts renderSubstringScore) rather than called
 * as moon.bm25_substr per row: the same floats, for needles that can overlap themselves ("abab" in "ababab"
 * twice) and those that cannot, one needle or several.
 */
const postgres = usePostgres();

describe('PostgreSQL substring scores', () => {
  test('a needle overlaps itself when a proper prefix is also a suffix', () => {
    expect(['abab', 'aaa', 'v1.v1', 'xx', 'src/lib/payments.ts'].map(overlapsItself)).toEqual([true, true, true, true, true]);
    expect(['docker-compose.yml', 'lib/payments.ts', 'abc', 'ab', '東京タ'].map(overlapsItself)).toEqual([false, false, false, false, false]);
  });

  test('the scores equal moon.bm25_substr over the same rows', async () => {
    const url = await postgres().createDatabase('moon_substring_scores');
    const engine = await openPostgresEngine(url, { machine: 'a' });
    try {
      const texts = [
        'ran ./build/ababab.sh then ./build/abab.sh --env=prod',
        'v1.v1.v1 and v1.v1 released; docker-compose.yml changed',
        'docker-compose.yml docker-compose.yml.bak src/lib/payments.ts',
        'src/lib/payments.ts imports src/lib/payments.tsx (aaaa_aaa)',
        'nothing technical in this one at all',
        'aaaaaa_bbb v1.v1.v1.v1 ababababab.ts',
      ];
      await engine.ingest.transaction(async (tx) => {
        const session = storedSession({ id: 's1', source: 'claude-code', project: 'shop', cwd: '/home/dev/shop', startMs: 0, endMs: 1000 });
        await tx.commitFile(fileCommit(session, texts.map((text, n) => turn('s1', n + 1, { ts: n, role: 'assistant', text }))));
      });
      for (const needles of [['abab'], ['v1.v1'], ['aaa'], ['docker-compose.yml'], ['lib/payments.ts'], ['src/lib/payments.ts', 'abab', 'v1.v1', 'aaa', 'docker-compose']]) {
        const found = await engine.search.searchTrigram({ any: needles, all: [], none: [], filters: {}, limit: 20 });
        expect(found.length, needles.join()).toBeGreaterThan(0);
        const expected = await withPgClient(url, async (client) => {
          const corpus = (await client.query('SELECT rows, tri_tokens FROM moon.corpus WHERE id = 1')).rows[0];
          const rows = Number(corpus.rows);
          const hits = await Promise.all(
            needles.map(async (needle) => Number((await client.query('SELECT count(*) AS n FROM moon.entries WHERE tri LIKE $1', [`%${needle}%`])).rows[0].n)),
          );
          const scored = await client.query(
            `SELECT id, round(moon.bm25_substr(tri, tri_len, $1::text[], $2::float8[], $3::float8)::numeric, ${SCORE_DECIMALS})::float8 AS score FROM moon.entries`,
            [needles, hits.map((count) => inverseDocumentFrequency(rows, count)), Number(corpus.tri_tokens) / rows],
          );
          return new Map(scored.rows.map((row) => [row.id as string, Number(row.score)]));
        });
        for (const candidate of found) expect(candidate.score, `${needles.join()} ${candidate.entry.id}`).toBe(expected.get(candidate.entry.id));
      }
    } finally {
      await engine.close();
    }
  }, 60_000);
});
