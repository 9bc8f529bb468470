import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { threadId } from 'node:worker_threads';
import { isEnvironmentError, toIoError } from '../errors.js';

/** Archives hold verbatim transcripts, secrets included: owner-only folders and files. */
export function ensurePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
}

/**
 * Write through a temporary file and rename, so a crash never leaves a half-written file in place. On failure
 * the temporary file is removed (a full disk must not fill up further with half copies); a failure of the
 * machine (disk full, read-only file system) becomes a MoonError naming the file.
 */
export function writeFileAtomic(path: string, data: string | Buffer, mode = 0o600): void {
  // Threads of one process (ingest workers) may write at once: the thread id keeps their temporaries apart.
  const temporary = `${path}.tmp-${process.pid}-${threadId}`;
  try {
    ensurePrivateDir(dirname(path));
    writeFileSync(temporary, data, { mode });
    chmodSync(temporary, mode);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw isEnvironmentError(error) ? toIoError(path, error) : error;
  }
}
