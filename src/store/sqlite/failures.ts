import type Database from 'better-sqlite3';
import { type FailureColumns, failureFromColumns } from '../row-mapping.js';
import type { FailureRecord } from '../store.js';

type FailureRow = FailureColumns;

export function listFailureRows(db: Database.Database): FailureRecord[] {
  return db
    .prepare<[], FailureRow>('SELECT * FROM failures ORDER BY path, key')
    .all()
    .map(failureFromColumns);
}

export function putFailureRow(db: Database.Database, failure: FailureRecord): void {
  db.prepare(
    `INSERT INTO failures (key, kind, path, fingerprint, reason, failed_ms) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT(key) DO UPDATE SET kind = excluded.kind, path = excluded.path, fingerprint = excluded.fingerprint,
       reason = excluded.reason, failed_ms = excluded.failed_ms`,
  ).run(failure.key, failure.kind, failure.path, failure.fingerprint, failure.reason, failure.failedAtMs);
}

export function deleteFailureRow(db: Database.Database, key: string): void {
  db.prepare('DELETE FROM failures WHERE key = ?').run(key);
}

/** How many problems quick_check reports at most: enough to name the damage, not a page per line. */
const MAX_PROBLEMS = 10;

/**
 * `PRAGMA quick_check`: the b-tree structure of every page (not index-to-table agreement, which integrity_check
 * adds at several times the cost). A damaged page that no query has touched yet is found here.
 */
export function quickCheck(db: Database.Database): string[] {
  const rows = db.prepare(`PRAGMA quick_check(${MAX_PROBLEMS})`).pluck().all() as string[];
  return rows.length === 1 && rows[0] === 'ok' ? [] : rows;
}
