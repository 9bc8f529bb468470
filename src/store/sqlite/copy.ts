import type Database from 'better-sqlite3';
import type { ArchiveRecord, UsageSnapshot } from '../../model.js';
import { runFromColumns } from '../row-mapping.js';
import type { RunRecord, SessionExtras } from '../store.js';

/** The SQLite side of CopyPort (ports.ts): what `moon migrate` reads of a session beyond its entries, and writes back. */
export function readSessionExtras(db: Database.Database, sessionId: string): SessionExtras {
  const usage = db
    .prepare<[string], { captured_s: number; used_tokens: number; max_tokens: number; usage_ratio: number; provider: string }>(
      'SELECT * FROM usage WHERE session_id = ? ORDER BY captured_s, provider',
    )
    .all(sessionId)
    .map(
      (row): UsageSnapshot => ({
        session_id: sessionId,
        captured_at_epoch_secs: row.captured_s,
        used_tokens: row.used_tokens,
        max_tokens: row.max_tokens,
        usage_ratio: row.usage_ratio,
        provider: row.provider,
      }),
    );
  const terms = db.prepare<[string], string>('SELECT term FROM session_terms WHERE session_id = ? ORDER BY term').pluck().all(sessionId);
  const vectors = db
    .prepare<[string], { key: string; vector: Buffer }>(
      'SELECT e.key, v.vector FROM embeddings v JOIN entries e ON e.rowid = v.rowid WHERE e.session_id = ? ORDER BY e.rowid',
    )
    .all(sessionId)
    .map((row) => ({ key: row.key, vector: new Float32Array(row.vector.buffer.slice(row.vector.byteOffset, row.vector.byteOffset + row.vector.byteLength)) }));
  const archived = db
    .prepare<[string], { record: string; ledgered: number }>('SELECT record, ledgered FROM archived WHERE session_id = ? ORDER BY rowid')
    .all(sessionId)
    .map((row) => ({ record: JSON.parse(row.record) as ArchiveRecord, ledgered: row.ledgered === 1 }));
  return { usage, terms, vectors, archived };
}

export function writeSessionExtras(db: Database.Database, sessionId: string, extras: Omit<SessionExtras, 'usage'>): void {
  db.prepare('DELETE FROM session_terms WHERE session_id = ?').run(sessionId);
  const term = db.prepare('INSERT OR IGNORE INTO session_terms (term, session_id) VALUES (?, ?)');
  for (const value of extras.terms) term.run(value, sessionId);
  const rowOf = db.prepare<[string, string], { rowid: number }>('SELECT rowid FROM entries WHERE session_id = ? AND key = ?');
  const vector = db.prepare('INSERT OR REPLACE INTO embeddings (rowid, vector) VALUES (?, ?)');
  for (const item of extras.vectors) {
    const row = rowOf.get(sessionId, item.key);
    if (row) vector.run(row.rowid, Buffer.from(item.vector.buffer, item.vector.byteOffset, item.vector.byteLength));
  }
  const pair = db.prepare('INSERT OR IGNORE INTO archived (session_id, content_hash, record, ledgered) VALUES (?, ?, ?, ?)');
  for (const item of extras.archived) pair.run(item.record.session_id, item.record.content_hash, JSON.stringify(item.record), item.ledgered ? 1 : 0);
}

export function listRuns(db: Database.Database): RunRecord[] {
  return db
    .prepare<[], Record<string, number | string>>('SELECT * FROM runs ORDER BY rowid')
    .all()
    .map(runFromColumns);
}

export function listCopied(db: Database.Database, source: string): Map<string, string | null> {
  const rows = db.prepare<[string], { session_id: string; content_hash: string | null }>('SELECT session_id, content_hash FROM copied WHERE source = ?').all(source);
  return new Map(rows.map((row) => [row.session_id, row.content_hash]));
}

export function markCopied(db: Database.Database, source: string, sessionId: string, contentHash: string | null): void {
  db.prepare(
    `INSERT INTO copied (source, session_id, content_hash) VALUES (?, ?, ?)
     ON CONFLICT(source, session_id) DO UPDATE SET content_hash = excluded.content_hash`,
  ).run(source, sessionId, contentHash);
}
