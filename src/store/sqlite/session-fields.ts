import type Database from 'better-sqlite3';
import type { SessionFieldPort } from '../ports.js';
import { SESSION_FIELDS, type SessionField, type SessionFieldPosting } from '../types.js';
import { type WriteLockOptions, runWriteTransaction } from './write-lock.js';

/**
 * SessionFieldPort over `session_fields` (one narrow row per session: version and field lengths), its texts in
 * `session_field_texts`, and `session_field_terms` (one row per term, session and field). A session's rows go
 * when the session does (triggers of migration 18).
 */
export function createSqliteSessionFields(
  db: Database.Database,
  lock: WriteLockOptions,
  /** Runs a write after the engine's queued transactions. */
  exclusive: <T>(work: () => T) => Promise<T>,
): SessionFieldPort {
  let prepared: ReturnType<typeof prepare> | null = null;
  const statements = (): ReturnType<typeof prepare> => (prepared ??= prepare());
  const lengthColumns = SESSION_FIELDS.map((field) => `len_${field}`);
  const prepare = () => ({
    exists: db.prepare<[string], number>('SELECT 1 FROM sessions WHERE id = ?').pluck(),
    removeTerms: db.prepare('DELETE FROM session_field_terms WHERE session_id = ?'),
    putRow: db.prepare(
      `INSERT INTO session_fields (session_id, version, ${lengthColumns.join(', ')}) VALUES (?, ?, ${lengthColumns.map(() => '?').join(', ')})
       ON CONFLICT (session_id) DO UPDATE SET version = excluded.version, ${lengthColumns.map((column) => `${column} = excluded.${column}`).join(', ')}`,
    ),
    putTexts: db.prepare(
      'INSERT INTO session_field_texts (session_id, texts) VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET texts = excluded.texts',
    ),
    putTerm: db.prepare('INSERT INTO session_field_terms (term, session_id, field, tf) VALUES (?, ?, ?, ?)'),
    stats: db.prepare<[], Record<string, number | null>>(
      `SELECT count(*) AS sessions, ${lengthColumns.map((column) => `sum(${column}) AS ${column}`).join(', ')} FROM session_fields`,
    ),
    // Fields as a bit mask: one statement whatever fields a query uses.
    count: db.prepare<[string, number], { postings: number; sessions: number }>(
      'SELECT count(*) AS postings, count(DISTINCT session_id) AS sessions FROM session_field_terms WHERE term = ? AND (? >> field) & 1 = 1',
    ),
    postings: db.prepare<[string, number], { term: string; session_id: string; field: number; tf: number; length: number }>(
      `SELECT t.term, t.session_id, t.field, t.tf,
         CASE t.field ${SESSION_FIELDS.map((field, index) => `WHEN ${index} THEN f.len_${field}`).join(' ')} END AS length
       FROM session_field_terms t JOIN session_fields f ON f.session_id = t.session_id
       WHERE t.term = ? AND (? >> t.field) & 1 = 1 ORDER BY t.session_id, t.field`,
    ),
    texts: db.prepare<[string], string>('SELECT texts FROM session_field_texts WHERE session_id = ?').pluck(),
    stale: db.prepare<[number], string>(
      `SELECT s.id FROM sessions s LEFT JOIN session_fields f ON f.session_id = s.id
       WHERE f.session_id IS NULL OR f.version < ? ORDER BY s.id`,
    ).pluck(),
  });

  return {
    put: (docs) =>
      exclusive(() =>
        runWriteTransaction(
          db,
          () => {
            const s = statements();
            for (const doc of docs) {
              if (s.exists.get(doc.sessionId) === undefined) continue;
              s.removeTerms.run(doc.sessionId);
              s.putRow.run(doc.sessionId, doc.version, ...SESSION_FIELDS.map((field) => doc.lengths[field]));
              s.putTexts.run(doc.sessionId, JSON.stringify(doc.texts));
              for (const { term, field, tf } of doc.terms) s.putTerm.run(term, doc.sessionId, SESSION_FIELDS.indexOf(field), tf);
            }
          },
          lock,
        ),
      ),
    readStats: async () => {
      const row = statements().stats.get()!;
      const totalLengths = Object.fromEntries(SESSION_FIELDS.map((field) => [field, Number(row[`len_${field}`] ?? 0)])) as Record<SessionField, number>;
      return { sessions: Number(row.sessions ?? 0), totalLengths };
    },
    countTerms: async (terms, fields) => {
      const mask = toMask(fields);
      const counts = new Map<string, { postings: number; sessions: number }>();
      for (const term of new Set(terms)) counts.set(term, statements().count.get(term, mask) ?? { postings: 0, sessions: 0 });
      return counts;
    },
    listPostings: async (terms, fields) => {
      const mask = toMask(fields);
      const out: SessionFieldPosting[] = [];
      for (const term of [...new Set(terms)].sort()) {
        for (const row of statements().postings.all(term, mask)) {
          out.push({ term: row.term, sessionId: row.session_id, field: SESSION_FIELDS[row.field]!, tf: row.tf, length: row.length });
        }
      }
      return out;
    },
    readTexts: async (sessionIds) => {
      const texts = new Map<string, Record<SessionField, string>>();
      for (const id of new Set(sessionIds)) {
        const json = statements().texts.get(id);
        if (json !== undefined) texts.set(id, JSON.parse(json) as Record<SessionField, string>);
      }
      return texts;
    },
    listStale: async (version) => statements().stale.all(version),
  };
}

/** The fields' numbers as bits (SESSION_FIELDS order). */
function toMask(fields: readonly SessionField[]): number {
  return fields.reduce((mask, field) => mask | (1 << SESSION_FIELDS.indexOf(field)), 0);
}
