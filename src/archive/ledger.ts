import { appendFileSync, closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ArchiveRecord } from '../model.js';
import { isEnvironmentError, toIoError } from '../errors.js';
import { resolveHomePath, toHomeRelative } from './home-path.js';
import { ensurePrivateDir, writeFileAtomic } from './write.js';

/**
 * archives/ledger.jsonl: one ArchiveRecord (seed 001) per distinct (session, content hash). Appending the same
 * pair again is a no-op, so re-running a snapshot is idempotent. A session taken back with `moon forget` gets a
 * tombstone line (`{"session_id", "tombstone": true, "reason", "forgotten_at_epoch_secs"}`): readers of
 * ArchiveRecords skip it, and the index keeps refusing the session even after a rebuild.
 *
 * `archive_path` is written relative to the home (`archives/raw/codex/<id>.jsonl`) and read back resolved
 * against the home in use, so a moved or copied home names its own files. A line an older moon wrote holds an
 * absolute path: it is read as it is (and made relative once, by maintain/home-layout.ts).
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

  /** `home` defaults to the folder above `archives/`, where the ledger lives. */
  constructor(
    private readonly path: string,
    readonly home: string = dirname(dirname(path)),
  ) {}

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
      appendFileSync(this.path, `${prefix}${JSON.stringify({ ...record, archive_path: toHomeRelative(this.home, record.archive_path) })}\n`, { mode: 0o600 });
    } catch (error) {
      // A torn line left by a full disk is skipped when read; the pair stays pending in the index and is
      // appended again by the next run.
      throw isEnvironmentError(error) ? toIoError(this.path, error) : error;
    }
    seen.add(key);
    this.seenSize = sizeOf(this.path);
    return true;
  }

  /** Every archived pair, `archive_path` resolved against the home. */
  records(): ArchiveRecord[] {
    return this.readLines()
      .filter((line): line is ArchiveRecord => (line as Partial<LedgerTombstone>).tombstone !== true)
      .map((record) => (typeof record.archive_path === 'string' ? { ...record, archive_path: resolveHomePath(this.home, record.archive_path) } : record));
  }

  /**
   * Rewrite every record's stored `archive_path` through `rewrite` (tombstones and unreadable lines are kept as
   * they are), atomically: a temporary file renamed over the ledger. Returns how many lines changed; when none
   * did, the file is not touched. The caller keeps other writers out (maintain/home-layout.ts holds a lock).
   */
  rewriteArchivePaths(rewrite: (stored: string) => string): number {
    if (!existsSync(this.path)) return 0;
    let changed = 0;
    const lines = readFileSync(this.path, 'utf8').split('\n').filter((line) => line.trim() !== '');
    const out = lines.map((line) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        return line;
      }
      const record = parsed as Partial<ArchiveRecord & LedgerTombstone> | null;
      if (!record || typeof record !== 'object' || record.tombstone === true || typeof record.archive_path !== 'string') return line;
      const next = rewrite(record.archive_path);
      if (next === record.archive_path) return line;
      changed += 1;
      return JSON.stringify({ ...record, archive_path: next });
    });
    if (changed > 0) {
      writeFileAtomic(this.path, `${out.join('\n')}\n`);
      this.seen = null;
    }
    return changed;
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
