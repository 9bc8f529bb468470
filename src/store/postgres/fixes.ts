import type { FixEvent, FixEventFilter } from '../../records/fixes.js';
import { type FixEventRow, fixEventData, toFixEvent } from '../fix-rows.js';
import type { PgClient } from './client.js';

/** FixPort on PostgreSQL: `putFixEvents` runs on a client inside a transaction. */
export async function putFixEvents(db: PgClient, sessionId: string, events: readonly FixEvent[]): Promise<void> {
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
