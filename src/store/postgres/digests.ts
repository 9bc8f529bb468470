import { type RunDigest, digestSearchText } from '../../records/digests.js';
import type { DigestPort } from '../ports.js';
import type { PgClient } from './client.js';

/** The query's words as a tsquery of alternatives (`'a' | 'b'`): letters, digits and `_` only, so nothing is syntax. */
export function digestTsQuery(text: string): string | null {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) return null;
  return [...new Set(words.map((word) => word.toLowerCase()))].map((word) => `'${word}'`).join(' | ');
}

const LIVE = '(expires_at_ms IS NULL OR expires_at_ms > $NOW)';

/** DigestPort over moon.run_digests: an upsert that skips an unchanged digest, tsvector search ranked by ts_rank. */
export function createPostgresDigests(db: PgClient): DigestPort {
  const live = (index: number): string => LIVE.replace('$NOW', `$${index}`);
  const records = (rows: { record: RunDigest }[]): RunDigest[] => rows.map((row) => row.record);
  return {
    async put(digest) {
      const result = await db.query<{ inserted: boolean }>(
        `INSERT INTO moon.run_digests AS d (session_id, content_hash, namespace_id, repo, security_scope, trust_class, produced_by,
           created_at_ms, expires_at_ms, record, body)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11)
         ON CONFLICT (session_id) DO UPDATE SET content_hash = excluded.content_hash, namespace_id = excluded.namespace_id,
           repo = excluded.repo, security_scope = excluded.security_scope, trust_class = excluded.trust_class,
           produced_by = excluded.produced_by, created_at_ms = excluded.created_at_ms, expires_at_ms = excluded.expires_at_ms,
           record = excluded.record, body = excluded.body
         WHERE d.content_hash <> excluded.content_hash OR d.produced_by <> excluded.produced_by
         RETURNING (xmax = 0) AS inserted`,
        [
          digest.session_id,
          digest.content_hash,
          digest.namespace_id,
          digest.repo,
          digest.security_scope,
          digest.trust_class,
          digest.produced_by,
          digest.created_at_ms,
          digest.expires_at_ms,
          JSON.stringify(digest),
          digestSearchText(digest),
        ],
      );
      const row = result.rows[0];
      if (!row) return 'unchanged';
      return row.inserted ? 'inserted' : 'replaced';
    },
    async get(sessionId, nowMs) {
      const result = await db.query<{ record: RunDigest }>(`SELECT record FROM moon.run_digests WHERE session_id = $1 AND ${live(2)}`, [sessionId, nowMs]);
      return result.rows[0]?.record ?? null;
    },
    async list({ namespace, limit, nowMs }) {
      const result = await db.query<{ record: RunDigest }>(
        `SELECT record FROM moon.run_digests WHERE ($1::text IS NULL OR namespace_id = $1) AND ${live(2)}
         ORDER BY created_at_ms DESC, session_id LIMIT $3`,
        [namespace, nowMs, Math.max(0, Math.trunc(limit))],
      );
      return records(result.rows);
    },
    async search({ text, namespace, limit, nowMs }) {
      const query = digestTsQuery(text);
      if (!query) return [];
      const result = await db.query<{ record: RunDigest; score: number }>(
        `SELECT record, ts_rank(tv, q)::float8 AS score FROM moon.run_digests, to_tsquery('english', $1) AS q
         WHERE tv @@ q AND ($2::text IS NULL OR namespace_id = $2) AND ${live(3)}
         ORDER BY score DESC, session_id LIMIT $4`,
        [query, namespace, nowMs, Math.max(0, Math.trunc(limit))],
      );
      return result.rows.map((row) => ({ digest: row.record, score: Number(row.score) }));
    },
    async remove({ sessionIds = [], expiredAtMs }) {
      const result = await db.query(
        `DELETE FROM moon.run_digests WHERE session_id = ANY ($1::text[]) OR ($2::bigint IS NOT NULL AND expires_at_ms IS NOT NULL AND expires_at_ms <= $2)`,
        [[...sessionIds], expiredAtMs ?? null],
      );
      return result.rowCount ?? 0;
    },
  };
}
