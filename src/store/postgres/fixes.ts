import type { FactFold, FactFoldState, FixEvent, FixEventFilter } from '../../records/fixes.js';
import { type FixEventRow, fixEventData, isSameFixEvents, toFixEvent } from '../fix-rows.js';
import type { PgClient } from './client.js';

/** FixPort on PostgreSQL: `putFixEvents` runs on a client inside a transaction. */
export async function putFixEvents(db: PgClient, sessionId: string, events: readonly FixEvent[]): Promise<void> {
  const stored = (await db.query<FixEventRow>('SELECT * FROM moon.fix_events WHERE session_id = $1 ORDER BY seq', [sessionId])).rows.map(toFixEvent);
  if (isSameFixEvents(stored, events)) return;
  await db.query('DELETE FROM moon.fix_events WHERE session_id = $1', [sessionId]);
  if (events.length === 0) return;
  // One statement: parallel arrays unnested together.
  await db.query(
    `INSERT INTO moon.fix_events (session_id, seq, namespace, repo, ts, kind, signature, target, message_id, data)
     SELECT $1, e.seq, e.namespace, e.repo, e.ts, e.kind, e.signature, e.target, e.message_id, e.data
     FROM unnest($2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[], $10::jsonb[])
       AS e (seq, namespace, repo, ts, kind, signature, target, message_id, data)
     ON CONFLICT (session_id, seq) DO UPDATE SET namespace = excluded.namespace, repo = excluded.repo, ts = excluded.ts, kind = excluded.kind,
       signature = excluded.signature, target = excluded.target, message_id = excluded.message_id, data = excluded.data`,
    [
      sessionId,
      events.map((event) => event.seq),
      events.map((event) => event.namespace),
      events.map((event) => event.repo),
      events.map((event) => event.ts),
      events.map((event) => event.kind),
      events.map((event) => event.signature),
      events.map((event) => event.target),
      events.map((event) => event.messageId),
      events.map((event) => JSON.stringify(fixEventData(event))),
    ],
  );
}

/** Facts of sessions still indexed (a forgotten session's facts are not evidence). */
export async function listFixEvents(db: PgClient, filter: FixEventFilter): Promise<FixEvent[]> {
  if (filter.namespaces !== null && filter.namespaces.length === 0) return [];
  const scoped = filter.namespaces !== null;
  const rows = await db.query<FixEventRow>(
    `SELECT f.* FROM moon.fix_events f
     WHERE EXISTS (SELECT 1 FROM moon.sessions s WHERE s.id = f.session_id) ${scoped ? 'AND f.namespace = ANY ($1::text[])' : ''}
     ORDER BY coalesce(f.ts, 0), f.session_id, f.seq`,
    scoped ? [[...filter.namespaces!]] : [],
  );
  return rows.rows.map(toFixEvent);
}

export async function listFixNamespaces(db: PgClient): Promise<string[]> {
  const rows = await db.query<{ namespace: string }>(
    'SELECT DISTINCT f.namespace FROM moon.fix_events f WHERE EXISTS (SELECT 1 FROM moon.sessions s WHERE s.id = f.session_id) ORDER BY f.namespace',
  );
  return rows.rows.map((row) => row.namespace);
}

/** The namespace's facts version (schema triggers change it; '0' before it has any) and the fold kept for it by `build`. */
export async function readFactFold(db: PgClient, namespace: string, build: string): Promise<FactFoldState> {
  const result = await db.query<{ version: string; body: string | null }>(
    `SELECT v.version, f.body
     FROM (SELECT coalesce((SELECT version FROM moon.fact_versions WHERE namespace = $1), '0') AS version) v
     LEFT JOIN moon.fact_folds f ON f.namespace = $1 AND f.build = $2 AND f.version = v.version`,
    [namespace, build],
  );
  return { version: result.rows[0]?.version ?? '0', body: result.rows[0]?.body ?? null };
}

/**
 * Keep a fold while its version is the namespace's, inside the caller's transaction: it waits at most a moment for
 * a row another transaction holds (a reader does not queue behind a writer to save what it can compute again).
 * False when not kept: the facts moved on, or the row stayed locked.
 */
export async function putFactFold(db: PgClient, namespace: string, fold: FactFold): Promise<boolean> {
  await db.query("SET LOCAL lock_timeout = '100ms'");
  try {
    const result = await db.query(
      `INSERT INTO moon.fact_folds (namespace, version, build, body)
       SELECT $1, $2, $3, $4 WHERE coalesce((SELECT version FROM moon.fact_versions WHERE namespace = $1), '0') = $2
       ON CONFLICT (namespace) DO UPDATE SET version = excluded.version, build = excluded.build, body = excluded.body`,
      [namespace, fold.version, fold.build, fold.body],
    );
    return (result.rowCount ?? 0) > 0;
  } catch (error) {
    // 55P03 lock_not_available; 40001/40P01 a conflict with a writer: nothing kept, nothing lost.
    if (['55P03', '40001', '40P01'].includes(String((error as { code?: unknown }).code))) return false;
    throw error;
  }
}
