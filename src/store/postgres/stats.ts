import { failureFromColumns, runFromColumns } from '../row-mapping.js';
import type { EmbeddingModel, FailureRecord, RunRecord, StoreStats } from '../types.js';
import type { PgClient } from './client.js';

export async function readStats(db: PgClient, model: EmbeddingModel | null): Promise<StoreStats> {
  const counts = await db.query<Record<string, number>>(
    `SELECT (SELECT count(*) FROM moon.sessions) AS sessions, (SELECT count(*) FROM moon.entries) AS entries,
       (SELECT count(*) FROM moon.files) AS files, (SELECT count(*) FROM moon.anchors) AS anchors,
       (SELECT count(*) FROM moon.embeddings) AS embeddings,
       (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'moon' AND c.relkind IN ('r', 'm')) AS bytes`,
  );
  const bySource: StoreStats['bySource'] = {};
  const sources = await db.query<{ source: string; sessions: number; entries: number }>(
    'SELECT source, count(*) AS sessions, coalesce(sum(entry_count), 0) AS entries FROM moon.sessions GROUP BY source ORDER BY source',
  );
  for (const row of sources.rows) bySource[row.source] = { sessions: Number(row.sessions), entries: Number(row.entries) };
  const last = await db.query<Record<string, number | string>>('SELECT * FROM moon.runs ORDER BY rowid DESC LIMIT 1');
  const run = last.rows[0];
  const row = counts.rows[0] ?? {};
  return {
    sessions: Number(row.sessions ?? 0),
    entries: Number(row.entries ?? 0),
    files: Number(row.files ?? 0),
    anchors: Number(row.anchors ?? 0),
    embeddings: Number(row.embeddings ?? 0),
    embeddingModel: model,
    bySource,
    dbBytes: Number(row.bytes ?? 0),
    lastRun: run ? runFromColumns(run) : null,
  };
}

export async function recordRun(db: PgClient, machine: string, run: RunRecord): Promise<void> {
  await db.query(
    `INSERT INTO moon.runs (machine, started_ms, finished_ms, command, files, files_changed, entries, warnings, errors)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [machine, run.startedAtMs, run.finishedAtMs, run.command, run.files, run.filesChanged, run.entries, run.warnings, run.errors],
  );
}

/**
 * What can be checked of a server's database from here: the rows agree with each other (every entry, anchor and
 * vector belongs to a session that exists; every session's count matches its entries). The server guards its
 * own pages.
 */
export async function checkIntegrity(db: PgClient): Promise<string[]> {
  const problems: string[] = [];
  const orphans = await db.query<{ what: string; n: number }>(
    `SELECT 'entries without a session' AS what, count(*) AS n FROM moon.entries e WHERE NOT EXISTS (SELECT 1 FROM moon.sessions s WHERE s.id = e.session_id)
     UNION ALL SELECT 'anchors without a session', count(*) FROM moon.anchors a WHERE NOT EXISTS (SELECT 1 FROM moon.sessions s WHERE s.id = a.session_id)
     UNION ALL SELECT 'sessions whose entry count is wrong', count(*) FROM moon.sessions s
       WHERE s.entry_count <> (SELECT count(*) FROM moon.entries e WHERE e.session_id = s.id)
     UNION ALL SELECT 'corpus totals that disagree with the entries (BM25 statistics)', count(*)
       FROM moon.corpus c, (SELECT count(*) AS n, coalesce(sum(doc_len), 0) AS t, coalesce(sum(tri_len), 0) AS tt FROM moon.entries) a
       WHERE c.rows <> a.n OR c.tokens <> a.t OR c.tri_tokens <> a.tt
     UNION ALL SELECT 'lexeme counts that disagree with the entries (BM25 statistics)', count(*)
       FROM moon.lexemes l
       FULL JOIN (SELECT u.lexeme, count(*) AS n, count(*) FILTER (WHERE u.weights && '{A,B,C}'::text[]) AS own
                  FROM moon.entries e, unnest(e.tv) u GROUP BY u.lexeme) a ON a.lexeme = l.lexeme
       WHERE coalesce(l.rows, 0) <> coalesce(a.n, 0) OR coalesce(l.own_rows, 0) <> coalesce(a.own, 0)`,
  );
  for (const row of orphans.rows) if (Number(row.n) > 0) problems.push(`${row.what}: ${row.n}`);
  return problems;
}

export async function listFailures(db: PgClient, machine: string): Promise<FailureRecord[]> {
  const result = await db.query<{ key: string; kind: string; path: string; fingerprint: string; reason: string; failed_ms: number }>(
    'SELECT key, kind, path, fingerprint, reason, failed_ms FROM moon.failures WHERE machine = $1 ORDER BY path, key',
    [machine],
  );
  return result.rows.map(failureFromColumns);
}

export async function putFailure(db: PgClient, machine: string, failure: FailureRecord): Promise<void> {
  await db.query(
    `INSERT INTO moon.failures (machine, key, kind, path, fingerprint, reason, failed_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (machine, key) DO UPDATE SET kind = excluded.kind, path = excluded.path, fingerprint = excluded.fingerprint,
       reason = excluded.reason, failed_ms = excluded.failed_ms`,
    [machine, failure.key, failure.kind, failure.path, failure.fingerprint, failure.reason, failure.failedAtMs],
  );
}
