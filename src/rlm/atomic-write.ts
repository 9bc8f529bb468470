import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { toIoError } from '../errors.js';

/**
 * Write a file through a temporary file beside it and one rename: readers see the old file or the new one, never
 * half of either, and a failed write leaves the old file as it was. The new file keeps the old one's mode (a
 * file in a user's project is the user's, not owner-only like $MOON_HOME's archives). The data may come in parts,
 * written in order, so a large file need not be one string first.
 */
export function writeFileAtomically(path: string, data: string | Iterable<string>): void {
  const temporary = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  let mode = 0o644;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    // a new file
  }
  let fd: number | null = null;
  try {
    fd = openSync(temporary, 'wx', mode);
    if (typeof data === 'string') writeSync(fd, data);
    else for (const part of data) writeSync(fd, part);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(temporary, path);
  } catch (error) {
    if (fd !== null) closeSync(fd);
    rmSync(temporary, { force: true });
    throw toIoError(path, error);
  }
}
