import type { Entry } from '../../model.js';
import type { SessionPlace, StoredSession } from '../types.js';
import type { PgClient } from './client.js';
import { ENTRY_COLUMNS, type EntryRow, type SessionRow, toEntry, toSession } from './rows.js';

export async function browseSession(db: PgClient, id: string): Promise<StoredSession | null> {
  const row = (await db.query<SessionRow>('SELECT * FROM moon.sessions WHERE id = $1', [id])).rows[0];
  return row ? toSession(row) : null;
}

/** A session's entries in session order. */
export async function browseEntries(db: PgClient, sessionId: string): Promise<Entry[]> {
  const result = await db.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM moon.entries e WHERE e.session_id = $1 ORDER BY e.seq, e.rowid`, [sessionId]);
  return result.rows.map(toEntry);
}

/** Entries by their own ids, in one session or any, by session then session order (BrowsePort.getEntriesByIds). */
export async function browseEntriesByIds(db: PgClient, ids: readonly string[], sessionId?: string): Promise<Entry[]> {
  if (ids.length === 0) return [];
  const wanted = [...new Set(ids)];
  const result =
    sessionId === undefined
      ? await db.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM moon.entries e WHERE e.id = ANY ($1::text[]) ORDER BY e.session_id COLLATE "C", e.seq, e.rowid`, [wanted])
      : await db.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM moon.entries e WHERE e.session_id = $1 AND e.id = ANY ($2::text[]) ORDER BY e.seq, e.rowid`, [
          sessionId,
          wanted,
        ]);
  return result.rows.map(toEntry);
}

/** Every session's id, cwd and project (BrowsePort.listSessionPlaces). */
export async function browseSessionPlaces(db: PgClient): Promise<SessionPlace[]> {
  const result = await db.query<SessionPlace>('SELECT id, cwd, project FROM moon.sessions ORDER BY id COLLATE "C"');
  return result.rows.map((row) => ({ id: row.id, cwd: row.cwd, project: row.project }));
}
