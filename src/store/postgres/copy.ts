import type { ArchiveRecord, UsageSnapshot } from '../../model.js';
import { runFromColumns } from '../row-mapping.js';
import type { RunRecord, SessionExtras } from '../types.js';
import type { PgClient } from './client.js';
import { toJsonParam } from './clean.js';
import { toVectorLiteral } from './search.js';

/** The PostgreSQL side of CopyPort (ports.ts). Archived pairs are this machine's. */
export async function readSessionExtras(db: PgClient, machine: string, sessionId: string): Promise<SessionExtras> {
  const usage = (
    await db.query<{ captured_s: number; used_tokens: number; max_tokens: number; usage_ratio: number; provider: string }>(
      'SELECT captured_s, used_tokens, max_tokens, usage_ratio, provider FROM moon.usage WHERE session_id = $1 ORDER BY captured_s, provider',
      [sessionId],
    )
  ).rows.map(
    (row): UsageSnapshot => ({
      session_id: sessionId,
      captured_at_epoch_secs: Number(row.captured_s),
      used_tokens: Number(row.used_tokens),
      max_tokens: Number(row.max_tokens),
      usage_ratio: Number(row.usage_ratio),
      provider: row.provider,
    }),
  );
  const terms = (await db.query<{ term: string }>('SELECT term FROM moon.session_terms WHERE session_id = $1 ORDER BY term', [sessionId])).rows.map(
    (row) => row.term,
  );
  const vectors = (
    await db.query<{ key: string; vector: string }>(
      'SELECT e.key, v.vector::text AS vector FROM moon.embeddings v JOIN moon.entries e ON e.rowid = v.rowid WHERE e.session_id = $1 ORDER BY e.rowid',
      [sessionId],
    )
  ).rows.map((row) => ({ key: row.key, vector: Float32Array.from(JSON.parse(row.vector) as number[]) }));
  const archived = (
    await db.query<{ record: ArchiveRecord; ledgered: boolean }>(
      'SELECT record, ledgered FROM moon.archived WHERE machine = $1 AND session_id = $2 ORDER BY seq',
      [machine, sessionId],
    )
  ).rows.map((row) => ({ record: row.record, ledgered: row.ledgered }));
  return { usage, terms, vectors, archived };
}

export async function writeSessionExtras(db: PgClient, machine: string, sessionId: string, extras: Omit<SessionExtras, 'usage'>): Promise<void> {
  await db.query('DELETE FROM moon.session_terms WHERE session_id = $1', [sessionId]);
  await db.query(
    `INSERT INTO moon.session_terms (term, session_id, namespace)
     SELECT DISTINCT t, $2, coalesce((SELECT project FROM moon.sessions WHERE id = $2), '') FROM unnest($1::text[]) AS t ON CONFLICT DO NOTHING`,
    [extras.terms, sessionId],
  );
  if (extras.vectors.length > 0) {
    await db.query(
      `INSERT INTO moon.embeddings (rowid, namespace, vector)
       SELECT e.rowid, e.namespace, r.v::public.vector FROM unnest($2::text[], $3::text[]) AS r(key, v)
       JOIN moon.entries e ON e.session_id = $1 AND e.key = r.key
       ON CONFLICT (rowid) DO UPDATE SET vector = excluded.vector`,
      [sessionId, extras.vectors.map((item) => item.key), extras.vectors.map((item) => toVectorLiteral(item.vector))],
    );
  }
  for (const item of extras.archived) {
    await db.query(
      `INSERT INTO moon.archived (machine, session_id, content_hash, namespace, record, ledgered)
       VALUES ($1, $2, $3, coalesce((SELECT project FROM moon.sessions WHERE id = $2), ''), $4::jsonb, $5)
       ON CONFLICT (machine, session_id, content_hash) DO NOTHING`,
      [machine, item.record.session_id, item.record.content_hash, toJsonParam(item.record), item.ledgered],
    );
  }
}

export async function listRuns(db: PgClient, machine: string): Promise<RunRecord[]> {
  const rows = await db.query<Record<string, number | string>>('SELECT * FROM moon.runs WHERE machine = $1 ORDER BY rowid', [machine]);
  return rows.rows.map(runFromColumns);
}

export async function listCopied(db: PgClient, source: string): Promise<Map<string, string | null>> {
  const rows = await db.query<{ session_id: string; content_hash: string | null }>('SELECT session_id, content_hash FROM moon.copied WHERE source = $1', [source]);
  return new Map(rows.rows.map((row) => [row.session_id, row.content_hash]));
}

export async function markCopied(db: PgClient, source: string, sessionId: string, contentHash: string | null): Promise<void> {
  await db.query(
    `INSERT INTO moon.copied (source, session_id, content_hash) VALUES ($1, $2, $3)
     ON CONFLICT (source, session_id) DO UPDATE SET content_hash = excluded.content_hash`,
    [source, sessionId, contentHash],
  );
}
