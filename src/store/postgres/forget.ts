import type { ForgetSelector, ForgottenSession, Tombstone } from '../types.js';
import type { PgClient } from './client.js';
import { deleteSessionContent } from './commit.js';
import { Params, escapeLike } from './filters.js';
import { type SessionRow, toSession } from './rows.js';

/** Which sessions a forget selector names: the SQLite engine's rules (forget.ts there), in PostgreSQL's words. */
export async function findForgettable(db: PgClient, selector: ForgetSelector): Promise<string[]> {
  const params = new Params();
  const where: string[] = [];
  if (selector.sessionIds && selector.sessionIds.length > 0) where.push(`id = ANY (${params.add(selector.sessionIds)}::text[])`);
  if (selector.project !== undefined) {
    where.push(
      selector.project.includes('/')
        ? `cwd LIKE ${params.add(`%${escapeLike(selector.project)}%`)}`
        : `lower(project) = lower(${params.add(selector.project)})`,
    );
  }
  if (selector.beforeMs !== undefined) where.push(`coalesce(end_ms, start_ms) < ${params.add(selector.beforeMs)}`);
  if (where.length === 0) return [];
  const result = await db.query<{ id: string }>(`SELECT id FROM moon.sessions WHERE ${where.join(' AND ')} ORDER BY start_ms, id`, params.values);
  return result.rows.map((row) => row.id);
}

/**
 * Remove sessions and leave tombstones, on a client inside a transaction. A tombstone is written even for an id
 * the index never had: another machine sharing the database may index it later.
 */
export async function forgetSessions(db: PgClient, sessionIds: readonly string[], reason: string, atMs: number): Promise<ForgottenSession[]> {
  const forgotten: ForgottenSession[] = [];
  for (const id of new Set(sessionIds)) {
    const found = await db.query<SessionRow>('SELECT * FROM moon.sessions WHERE id = $1', [id]);
    const session = found.rows[0] ? toSession(found.rows[0]) : null;
    await db.query(
      `INSERT INTO moon.tombstones (session_id, namespace, project, reason, forgotten_ms) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (session_id) DO UPDATE SET reason = excluded.reason, forgotten_ms = excluded.forgotten_ms`,
      [id, session?.project ?? '', session?.project ?? null, reason, atMs],
    );
    if (!session) continue;
    await deleteSessionContent(db, id);
    await db.query('DELETE FROM moon.archived WHERE session_id = $1', [id]);
    // Its fix facts quote its error output: they go with it.
    await db.query('DELETE FROM moon.fix_events WHERE session_id = $1', [id]);
    await db.query('DELETE FROM moon.sessions WHERE id = $1', [id]);
    // The file states stay (on every machine), marked: an unchanged transcript is not even read again.
    await db.query(`UPDATE moon.files SET excluded = 'forgotten', "offset" = 0, carry = NULL WHERE session_id = $1`, [id]);
    forgotten.push({ id, project: session.project, archivePath: session.archivePath, projectionPath: session.projectionPath });
  }
  return forgotten;
}

export async function listTombstones(db: PgClient): Promise<Tombstone[]> {
  const result = await db.query<{ session_id: string; project: string | null; reason: string; forgotten_ms: number }>(
    'SELECT session_id, project, reason, forgotten_ms FROM moon.tombstones ORDER BY forgotten_ms, session_id',
  );
  return result.rows.map((row) => ({ sessionId: row.session_id, project: row.project, reason: row.reason, forgottenAtMs: row.forgotten_ms }));
}

export async function isForgotten(db: PgClient, sessionId: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM moon.tombstones WHERE session_id = $1', [sessionId])).rows.length > 0;
}
