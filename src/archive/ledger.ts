import { appendFileSync, closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ArchiveRecord } from '../model.js';
import { isEnvironmentError, toIoError } from '../errors.js';
import { ensurePrivateDir } from './write.js';

/**
 * archives/ledger.jsonl: one ArchiveRecord (seed 001) per distinct (session, content hash). Appending the same
 * pair again is a no-op, so re-running a snapshot is idempotent. A session taken back with `moon forget` gets a
 * tombstone line (`{"session_id", "tombstone": true, "reason", "forgotten_at_epoch_secs"}`): readers of
 * ArchiveRecords skip it, and the index keeps refusing the session even after a rebuild.
 */
export interface LedgerTombstone {
  session_id: string;
  tombstone: true;
  reason: string;
  forgotten_at_epoch_secs: number;
}

export class Ledger {
  private seen: Set<string> | null = null;
  /** Size of the file when `seen` was read: another process may append, and then we read it again. */
  private seenSize = -1;

  constructor(private readonly path: string) {}

  has(sessionId: string, contentHash: string): boolean {
    return this.load().has(ledgerKey(sessionId, contentHash));
  }

  append(record: ArchiveRecord): boolean {
    const key = ledgerKey(record.session_id, record.content_hash);
    const seen = this.load();
    if (seen.has(key)) return false;
    ensurePrivateDir(dirname(this.path));
    // A crash can leave a torn last line; start on a fresh line so the new record stays readable.
    const prefix = endsMidLine(this.path) ? '\n' : '';
    try {
      appendFileSync(this.path, `${prefix}${JSON.stringify(record)}\n`, { mode: 0o600 });
    } catch (error) {
      // A torn line left by a full disk is skipped when read; the pair stays pending in the index and is
      // appended again by the next run.
      throw isEnvironmentError(error) ? toIoError(this.path, error) : error;
    }
    seen.add(key);
    this.seenSize = sizeOf(this.path);
    return true;
  }

  records(): ArchiveRecord[] {
    return this.readLines().filter((line): line is ArchiveRecord => (line as Partial<LedgerTombstone>).tombstone !== true);
  }

  tombstones(): LedgerTombstone[] {
    return this.readLines().filter((line): line is LedgerTombstone => (line as Partial<LedgerTombstone>).tombstone === true);
  }

  appendTombstone(tombstone: LedgerTombstone): void {
    ensurePrivateDir(dirname(this.path));
    const prefix = endsMidLine(this.path) ? '\n' : '';
    try {
      appendFileSync(this.path, `${prefix}${JSON.stringify(tombstone)}\n`, { mode: 0o600 });
    } catch (error) {
      throw isEnvironmentError(error) ? toIoError(this.path, error) : error;
    }
  }

  private readLines(): (ArchiveRecord | LedgerTombstone)[] {
    if (!existsSync(this.path)) return [];
    const lines: (ArchiveRecord | LedgerTombstone)[] = [];
    for (const line of readFileSync(this.path, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        lines.push(JSON.parse(line) as ArchiveRecord | LedgerTombstone);
      } catch {
        // a torn last line from a crash is ignored; the next append starts a fresh line
      }
    }
    return lines;
  }

  private load(): Set<string> {
    const size = sizeOf(this.path);
    if (!this.seen || size !== this.seenSize) {
      this.seen = new Set(this.records().map((record) => ledgerKey(record.session_id, record.content_hash)));
      this.seenSize = size;
    }
    return this.seen;
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}

function endsMidLine(path: string): boolean {
  if (!existsSync(path)) return false;
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}

function ledgerKey(sessionId: string, contentHash: string): string {
  return `${sessionId}\u0000${contentHash}`;
}
