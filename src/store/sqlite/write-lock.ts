import type Database from 'better-sqlite3';
import { MoonError } from '../../errors.js';

export interface WriteLockOptions {
  /** The database file, named in messages. */
  path: string;
  /** Give up after waiting this long for another writer in total. */
  timeoutMs: number;
  /**
   * When given, `timeoutMs` bounds the waits of every write sharing this object together, not each write's: a
   * hook's capture waits its share once in all. Kept here: the time of the attempts that found the database
   * locked (an attempt that gets the lock inside SQLite's busy wait is not counted — its time includes the work).
   */
  shared?: { waitedMs: number };
  /** Told once when the write lock is held by another process and this one starts waiting. */
  onWait?: (message: string) => void;
}

/**
 * Run `work` in a write transaction begun IMMEDIATE. A deferred transaction that reads first and writes later
 * fails at once with "database is locked" when another process committed in between (SQLite cannot wait
 * without breaking the reader's snapshot); taking the write lock at BEGIN lets the busy timeout apply, so a
 * second writer waits for the first. Each attempt waits up to the connection's busy timeout; this loop keeps
 * trying until `timeoutMs`, then names the database in the error.
 */
export function runWriteTransaction<T>(db: Database.Database, work: () => T, options: WriteLockOptions): T {
  return retryWhileLocked(db, () => db.transaction(work).immediate(), options);
}

export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * BEGIN IMMEDIATE with the same waiting as runWriteTransaction, for a transaction whose work is async (the
 * engine's `transaction(async (tx) => …)`): the caller commits or rolls back with `endWrite`.
 */
export function beginWrite(db: Database.Database, options: WriteLockOptions): void {
  retryWhileLocked(db, () => db.exec('BEGIN IMMEDIATE'), options);
}

/**
 * Run `attempt` until it does not find the database locked by another process (each try waits up to the
 * connection's busy timeout), for at most `timeoutMs` in all; then fail naming the database. Also for the
 * statements that open an index (switching a new file to WAL), which two first runs may race for.
 */
export function retryWhileLocked<T>(db: Database.Database, attempt: () => T, options: WriteLockOptions): T {
  const startedAtMs = Date.now();
  const before = options.shared?.waitedMs ?? 0;
  let told = false;
  for (;;) {
    try {
      return attempt();
    } catch (error) {
      if (!isBusy(error) || db.inTransaction) throw error;
      const waitedMs = Date.now() - startedAtMs;
      if (options.shared) options.shared.waitedMs = before + waitedMs;
      if (before + waitedMs >= options.timeoutMs) {
        throw new MoonError('store', `database ${options.path} is locked: another moon process has been writing to it for ${Math.round(waitedMs / 1000)} s`, {
          hint: 'wait for it to finish, or raise index.lock_timeout_ms',
          cause: error,
        });
      }
      if (!told) {
        options.onWait?.(`waiting for another moon process writing ${options.path}`);
        told = true;
      }
    }
  }
}

export function endWrite(db: Database.Database, outcome: 'commit' | 'rollback'): void {
  if (!db.inTransaction) return;
  db.exec(outcome === 'commit' ? 'COMMIT' : 'ROLLBACK');
}
