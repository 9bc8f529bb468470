import { renameSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { toIoError } from '../../errors.js';

const SIDE_FILES = ['-wal', '-shm', '-journal'];

/** Remove a database file and its WAL/SHM companions (a half-built rebuild left by a crash). */
export function removeDatabaseFiles(path: string): void {
  for (const suffix of ['', ...SIDE_FILES]) rmSync(`${path}${suffix}`, { force: true });
}

/**
 * Make a finished database one self-contained file: checkpoint the WAL into it and leave WAL mode, so no
 * companion file has to move with it. (Opening it as the index turns WAL mode back on.)
 */
export function sealDatabase(path: string): void {
  const db = new Database(path);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/**
 * Put a sealed database in place of another by rename: a crash before the rename leaves the old index, after
 * it the new one. The old file's WAL and SHM go first — an old WAL beside the new file would be replayed into
 * it. (They belong to an index being replaced; a crash between the two steps loses only their unmerged tail.)
 */
export function swapDatabase(built: string, target: string): void {
  try {
    for (const suffix of SIDE_FILES) rmSync(`${target}${suffix}`, { force: true });
    renameSync(built, target);
  } catch (error) {
    throw toIoError(target, error, 'replace');
  }
}
