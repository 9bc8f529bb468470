import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../archive/write.js';
import { errnoOf } from '../errors.js';

/**
 * What L1 has written: per projection file, the content hash its block was written for, the day file that
 * holds it, and the file's mtime then (so an unchanged projection is not even opened next cycle). A projection
 * is pending until its block is written for its current hash (issue: L1 normalisation).
 */
export interface L1Entry {
  session_id: string;
  hash: string;
  day: string;
  mtime_ms: number;
  written_at_epoch_secs: number;
}

export interface L1StateFile {
  version: 1;
  /** By projection file name (`<stem>.md`). */
  projections: Record<string, L1Entry>;
  /** Projections that could not be read, by file name, with their mtime: retried when they change. */
  failed: Record<string, { mtime_ms: number; reason: string }>;
  last_run_epoch_secs: number | null;
}

export function l1StatePath(home: string): string {
  return join(home, 'state', 'l1.json');
}

export function readL1State(path: string): L1StateFile {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<L1StateFile>;
    if (value && value.version === 1 && typeof value.projections === 'object') {
      return { version: 1, projections: value.projections ?? {}, failed: value.failed ?? {}, last_run_epoch_secs: value.last_run_epoch_secs ?? null };
    }
  } catch (error) {
    // Missing: a first run. Damaged: every projection is pending again, which re-writes the same blocks.
    if (errnoOf(error) !== 'ENOENT' && !(error instanceof SyntaxError)) throw error;
  }
  return { version: 1, projections: {}, failed: {}, last_run_epoch_secs: null };
}

export function writeL1State(path: string, state: L1StateFile): void {
  writeFileAtomic(path, `${JSON.stringify(state, null, 1)}\n`);
}
