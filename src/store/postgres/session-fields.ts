import type { SessionFieldPort } from '../ports.js';
import { SESSION_FIELDS, type SessionField, type SessionFieldPosting } from '../types.js';
import type { PgClient } from './client.js';

/**
 * SessionFieldPort over moon.session_fields (one row per session: version, field lengths, the texts) and
 * moon.session_field_terms (one row per term, session and field); both go with their session (foreign keys of
 * migration 21). Counts and postings come back exactly as SQLite's do (sqlite/session-fields.ts), so the score
 * computed from them (fields/rank-sessions.ts) is the same.
 */
export function createPostgresSessionFields(db: PgClient, inTransaction: <T>(work: (client: PgClient) => Promise<T>) => Promise<T>): SessionFieldPort {
  const lengthColumns = SESSION_FIELDS.map((field) => `len_${field}`);
  return {
    put: async (docs) => {
      if (docs.length === 0) return;
      await inTransaction(async (client) => {
        for (const doc of docs) {
          const exists = await client.query('SELECT 1 FROM moon.sessions WHERE id = $1 FOR KEY SHARE', [doc.sessionId]);
          if (exists.rows.length === 0) continue;
          await client.query('DELETE FROM moon.session_field_terms WHERE session_id = $1', [doc.sessionId]);
          await client.query(
            `INSERT INTO moon.session_fields (session_id, version, texts, ${lengthColumns.join(', ')})
             VALUES ($1, $2, $3::jsonb, ${lengthColumns.map((_, index) => `$${index + 4}`).join(', ')})
             ON CONFLICT (session_id) DO UPDATE SET version = excluded.version, texts = excluded.texts,
               ${lengthColumns.map((column) => `${column} = excluded.${column}`).join(', ')}`,
            [doc.sessionId, doc.version, JSON.stringify(doc.texts), ...SESSION_FIELDS.map((field) => doc.lengths[field])],
          );
          if (doc.terms.length === 0) continue;
          await client.query(
            `INSERT INTO moon.session_field_terms (term, session_id, field, tf)
             SELECT t.term, $1, t.field, t.tf FROM unnest($2::text[], $3::smallint[], $4::integer[]) AS t (term, field, tf)`,
            [
              doc.sessionId,
              doc.terms.map((item) => item.term),
              doc.terms.map((item) => SESSION_FIELDS.indexOf(item.field)),
              doc.terms.map((item) => item.tf),
            ],
          );
        }
      });
    },
    readStats: async () => {
      const row = (
        await db.query<Record<string, string | number | null>>(
          `SELECT count(*) AS sessions, ${lengthColumns.map((column) => `sum(${column}) AS ${column}`).join(', ')} FROM moon.session_fields`,
        )
      ).rows[0]!;
      const totalLengths = Object.fromEntries(SESSION_FIELDS.map((field) => [field, Number(row[`len_${field}`] ?? 0)])) as Record<SessionField, number>;
      return { sessions: Number(row.sessions ?? 0), totalLengths };
    },
    countTerms: async (terms, fields) => {
      const distinct = [...new Set(terms)];
      const rows = await db.query<{ term: string; postings: string; sessions: string }>(
        `SELECT term, count(*) AS postings, count(DISTINCT session_id) AS sessions
         FROM moon.session_field_terms WHERE term = ANY ($1::text[]) AND field = ANY ($2::smallint[]) GROUP BY term`,
        [distinct, toNumbers(fields)],
      );
      const found = new Map(rows.rows.map((row) => [row.term, { postings: Number(row.postings), sessions: Number(row.sessions) }]));
      return new Map(distinct.map((term) => [term, found.get(term) ?? { postings: 0, sessions: 0 }]));
    },
    listPostings: async (terms, fields) => {
      const distinct = [...new Set(terms)].sort();
      if (distinct.length === 0) return [];
      const rows = await db.query<{ term: string; session_id: string; field: number; tf: number; length: number }>(
        `SELECT t.term, t.session_id, t.field, t.tf,
           CASE t.field ${SESSION_FIELDS.map((field, index) => `WHEN ${index} THEN f.len_${field}`).join(' ')} END AS length
         FROM moon.session_field_terms t JOIN moon.session_fields f ON f.session_id = t.session_id
         WHERE t.term = ANY ($1::text[]) AND t.field = ANY ($2::smallint[])
         ORDER BY t.term COLLATE "C", t.session_id COLLATE "C", t.field`,
        [distinct, toNumbers(fields)],
      );
      return rows.rows.map(
        (row): SessionFieldPosting => ({
          term: row.term,
          sessionId: row.session_id,
          field: SESSION_FIELDS[Number(row.field)]!,
          tf: Number(row.tf),
          length: Number(row.length),
        }),
      );
    },
    readTexts: async (sessionIds) => {
      const rows = await db.query<{ session_id: string; texts: Record<SessionField, string> }>(
        'SELECT session_id, texts FROM moon.session_fields WHERE session_id = ANY ($1::text[])',
        [[...new Set(sessionIds)]],
      );
      return new Map(rows.rows.map((row) => [row.session_id, row.texts]));
    },
    listStale: async (version) =>
      (
        await db.query<{ id: string }>(
          `SELECT s.id FROM moon.sessions s LEFT JOIN moon.session_fields f ON f.session_id = s.id
           WHERE f.session_id IS NULL OR f.version < $1 ORDER BY s.id COLLATE "C"`,
          [version],
        )
      ).rows.map((row) => row.id),
  };
}

/** The fields' numbers (SESSION_FIELDS order), as the table stores them. */
function toNumbers(fields: readonly SessionField[]): number[] {
  return fields.map((field) => SESSION_FIELDS.indexOf(field));
}
