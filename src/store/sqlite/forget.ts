import type Database from 'better-sqlite3';
import type { ForgetSelector, Tombstone } from '../store.js';

/**
 * Which sessions a forget selector names. A project matches like recall's `--project` (the name, any case; with
 * a `/`, part of the cwd); `beforeMs` takes sessions that ended before it (a session still running past it
 * stays); named ids must exist. The criteria narrow each other.
 */
export function findForgettableSessions(db: Database.Database, selector: ForgetSelector): string[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (selector.sessionIds && selector.sessionIds.length > 0) {
    where.push('id IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(selector.sessionIds));
  }
  if (selector.project !== undefined) {
    if (selector.project.includes('/')) {
      where.push("cwd LIKE ? ESCAPE '\\'");
      params.push(`%${selector.project.replace(/[\\%_]/g, (char) => `\\${char}`)}%`);
    } else {
      where.push('project = ? COLLATE NOCASE');
      params.push(selector.project);
    }
  }
  if (selector.beforeMs !== undefined) {
    where.push('coalesce(end_ms, start_ms) < ?');
    params.push(selector.beforeMs);
  }
  // No criterion is no selection: forgetting everything takes an explicit selector.
  if (where.length === 0) return [];
  return db
    .prepare<unknown[], { id: string }>(`SELECT id FROM sessions WHERE ${where.join(' AND ')} ORDER BY start_ms, id`)
    .all(...params)
    .map((row) => row.id);
}

export function putTombstone(db: Database.Database, tombstone: Tombstone): void {
  db.prepare(
    `INSERT INTO tombstones (session_id, project, reason, forgotten_ms) VALUES (?, ?, ?, ?)
     ON CONFLICT(session_id) DO UPDATE SET reason = excluded.reason, forgotten_ms = excluded.forgotten_ms`,
  ).run(tombstone.sessionId, tombstone.project, tombstone.reason, tombstone.forgottenAtMs);
}

export function listTombstoneRows(db: Database.Database): Tombstone[] {
  return db
    .prepare<[], { session_id: string; project: string | null; reason: string; forgotten_ms: number }>(
      'SELECT * FROM tombstones ORDER BY forgotten_ms, session_id',
    )
    .all()
    .map((row) => ({ sessionId: row.session_id, project: row.project, reason: row.reason, forgottenAtMs: row.forgotten_ms }));
}

export function hasTombstone(db: Database.Database, sessionId: string): boolean {
  return db.prepare('SELECT 1 FROM tombstones WHERE session_id = ?').get(sessionId) !== undefined;
}
