import type { Entry } from '../../model.js';
import type { StoredSession } from '../types.js';
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
