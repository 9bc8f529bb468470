import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { MoonError, errnoOf } from '../errors.js';

/** What a path is, in words, when it is not a regular file. */
export function describeKind(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isDirectory()) return 'a folder';
  return 'not a regular file';
}

function notRegular(display: string, stat: Stats): MoonError {
  return new MoonError('bad_input', `${display}: ${describeKind(stat)}, not a transcript file; skipped`);
}

/** Refuse anything but a regular file, from its stat, before anything opens it. */
export function checkRegularFile(stat: Stats, display: string): void {
  if (!stat.isFile()) throw notRegular(display, stat);
}

/**
 * Read a whole regular file. Opened non-blocking and checked on the open descriptor: a FIFO swapped in after
 * the stat would otherwise block the run forever waiting for a writer. Reads to EOF, so bytes appended while
 * reading are taken whole or not at all (the next run gets them).
 */
export function readRegularFile(path: string | Buffer, display: string): { buffer: Buffer; stat: Stats } {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw notRegular(display, stat);
    const chunks: Buffer[] = [];
    let total = 0;
    let chunk = Buffer.allocUnsafe(Math.max(64 * 1024, stat.size + 1));
    for (;;) {
      let read: number;
      try {
        read = readSync(fd, chunk, 0, chunk.length, total);
      } catch (error) {
        if (errnoOf(error) === 'EAGAIN') continue;
        throw error;
      }
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      total += read;
      if (read === chunk.length) chunk = Buffer.allocUnsafe(chunk.length);
      else chunk = chunk.subarray(read);
    }
    return { buffer: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total), stat };
  } finally {
    closeSync(fd);
  }
}
