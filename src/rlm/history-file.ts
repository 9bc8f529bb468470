import { closeSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { errnoOf, MoonError } from '../errors.js';

/**
 * The history file held open for one run. Both passes of the generator — the outline, then the prompts read back
 * for their summaries — read through this one descriptor: when Puffin saves by writing a new file and renaming
 * it over the old one, the run goes on reading the file it started with; a save that rewrites the file in place
 * moves its size or modification time, which `checkUnchanged` turns into an error (an index is never built from
 * two versions of a history).
 */
export interface HistoryFile {
  readonly path: string;
  /** Its size when it was opened. */
  readonly size: number;
  /** Bytes read into `buffer` from `position`: `length` of them, fewer only at the end of the file. */
  readAt(buffer: Buffer, position: number, length: number): number;
  /** Throws MoonError('unreadable') when the file was rewritten since it was opened. */
  checkUnchanged(): void;
  close(): void;
}

export function openHistoryFile(path: string): HistoryFile {
  let fd: number;
  let opened: Stats;
  try {
    fd = openSync(path, 'r');
    opened = fstatSync(fd);
  } catch (error) {
    throw cannotRead(path, error);
  }
  let closed = false;
  return {
    path,
    size: opened.size,
    readAt(buffer, position, length) {
      let filled = 0;
      try {
        while (filled < length) {
          const read = readSync(fd, buffer, filled, length - filled, position + filled);
          if (read === 0) break;
          filled += read;
        }
      } catch (error) {
        throw cannotRead(path, error);
      }
      return filled;
    },
    checkUnchanged() {
      let now: Stats;
      try {
        now = fstatSync(fd);
      } catch (error) {
        throw cannotRead(path, error);
      }
      if (now.size !== opened.size || now.mtimeMs !== opened.mtimeMs) throw createChangedError(path);
    },
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  };
}

/** The history was rewritten while a run read it. */
export function createChangedError(path: string): MoonError {
  return new MoonError('unreadable', `${path} changed while it was being indexed`, {
    hint: 'run moon rlm index again once the history is saved',
  });
}

function cannotRead(path: string, error: unknown): MoonError {
  return new MoonError('unreadable', `${path}: cannot read (${errnoOf(error) ?? (error as Error).message})`, { cause: error });
}
