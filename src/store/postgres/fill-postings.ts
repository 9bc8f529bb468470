import type { PgClient } from './client.js';
import { refreshIndex } from './commit.js';
import { hasAllPostings, removePostings } from './postings.js';
import { ENTRY_COLUMNS, type EntryRow, toEntry } from './rows.js';

/**
 * Entries indexed before postings existed (migration 19) get theirs, a few sessions per locked transaction:
 * interrupted, it resumes where it stopped (an entry with terms is done), and another writer may run beside it.
 * The same mends what a moon from before postings did to a database that has them: entries it wrote get their
 * postings, and the postings of entries it deleted go (postings.ts hasAllPostings sees both as counts that differ).
 * Until every entry has them, word lists are ranked with tsvector alone.
 */
export async function fillPostings(db: PgClient, inLockedTransaction: <T>(work: (client: PgClient) => Promise<T>) => Promise<T>, sessionsPerTransaction = 50): Promise<void> {
  if (await hasAllPostings(db)) return;
  await inLockedTransaction(async (client) => {
    const gone = await client.query<{ rowid: number }>(
      'SELECT t.rowid FROM moon.entry_terms t WHERE NOT EXISTS (SELECT 1 FROM moon.entries e WHERE e.rowid = t.rowid)',
    );
    removePostings(client, gone.rows.map((row) => Number(row.rowid)));
  });
  // Sessions in id order, each step after the last one done: the session index is walked once, not the whole
  // anti-join once per step. A session written meanwhile gets its postings from that write.
  let after = '';
  for (;;) {
    const next = await inLockedTransaction(async (client) => {
      const sessions = await client.query<{ id: string }>(
        `SELECT DISTINCT e.session_id AS id FROM moon.entries e
         WHERE e.session_id > $1 AND NOT EXISTS (SELECT 1 FROM moon.entry_terms t WHERE t.rowid = e.rowid) ORDER BY 1 LIMIT $2`,
        [after, sessionsPerTransaction],
      );
      for (const { id } of sessions.rows) {
        const rows = await client.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM moon.entries e WHERE e.session_id = $1`, [id]);
        await refreshIndex(client, id, new Map(rows.rows.map((row) => [Number(row.rowid), toEntry(row)])), { postingsOnly: true });
      }
      const finished = sessions.rows.length < sessionsPerTransaction;
      if (finished) await client.query("DELETE FROM moon.meta WHERE key = 'postings_pending'");
      return finished ? null : sessions.rows[sessions.rows.length - 1]!.id;
    });
    if (next === null) return;
    after = next;
  }
}
