import type Database from 'better-sqlite3';
import type { FixEvent, FixEventFilter } from '../../fixes/types.js';
import { type FixEventRow, fixEventData, toFixEvent } from '../fix-rows.js';

/** FixPort on SQLite. The caller holds the write transaction for putFixEvents. */
export function putFixEvents(db: Database.Database, sessionId: string, events: readonly FixEvent[]): void {
  db.prepare('DELETE FROM fix_events WHERE session_id = ?').run(sessionId);
  const insert = db.prepare(
    `INSERT OR REPLACE INTO fix_events (session_id, seq, namespace, repo, ts, kind, signature, target, message_id, data)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const event of events) {
    insert.run(sessionId, event.seq, event.namespace, event.repo, event.ts, event.kind, event.signature, event.target, event.messageId, JSON.stringify(fixEventData(event)));
  }
}

/** Facts of sessions still indexed (a forgotten session's facts are not evidence). */
export function listFixEvents(db: Database.Database, filter: FixEventFilter): FixEvent[] {
  const where = ['f.session_id IN (SELECT id FROM sessions)'];
  const params: string[] = [];
  if (filter.namespaces !== null) {
    if (filter.namespaces.length === 0) return [];
    where.push(`f.namespace IN (${filter.namespaces.map(() => '?').join(', ')})`);
    params.push(...filter.namespaces);
  }
  const rows = db.prepare<string[], FixEventRow>(`SELECT f.* FROM fix_events f WHERE ${where.join(' AND ')} ORDER BY coalesce(f.ts, 0), f.session_id, f.seq`).all(...params);
  return rows.map(toFixEvent);
}

export function listFixNamespaces(db: Database.Database): string[] {
  return db
    .prepare<[], { namespace: string }>('SELECT DISTINCT namespace FROM fix_events WHERE session_id IN (SELECT id FROM sessions) ORDER BY namespace')
    .all()
    .map((row) => row.namespace);
}
