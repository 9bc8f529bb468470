import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../archive/write.js';

/** What the watcher has done, for `moon status` and for its own rules (cooldown, once-a-day synthesis). */
export interface CycleSummary {
  started_at_epoch_secs: number;
  finished_at_epoch_secs: number;
  trigger: 'start' | 'poll' | 'files' | 'usage' | 'once';
  files_indexed: number;
  entries: number;
  l1: { state: 'ran' | 'skipped' | 'cooldown' | 'idle'; written: number; failed: number; remaining: number; owner?: number };
  syns: { day: string; outcome: string } | null;
  /** Run digests written this cycle for finished sessions, and how many wait for a later cycle. */
  digests?: { written: number; remaining: number; failed: number };
  errors: string[];
}

export interface UsageRecord {
  session_id: string;
  path: string;
  used_tokens: number;
  max_tokens: number;
  usage_ratio: number;
  captured_at_epoch_secs: number;
  provider: string;
  model?: string;
  level: string;
  /** When the watcher read it (captured_at is the transcript's own time). */
  read_at_epoch_secs?: number;
}

export interface WatchState {
  version: 1;
  cycles: number;
  last_cycle: CycleSummary | null;
  /** When L1 last wrote a block (the cooldown counts from it). */
  last_l1_epoch_secs: number | null;
  /** The residential day whose first cycle ran (or skipped, with nothing to read) L2 synthesis. */
  last_syns_day: string | null;
  last_syns: { day: string; outcome: string; at_epoch_secs: number; reason?: string } | null;
  /** Latest context usage per active session. */
  usage: Record<string, UsageRecord>;
}

export function watchStatePath(home: string): string {
  return join(home, 'state', 'watcher.json');
}

export function readWatchState(path: string): WatchState {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<WatchState>;
    if (value.version === 1) {
      return {
        version: 1,
        cycles: value.cycles ?? 0,
        last_cycle: value.last_cycle ?? null,
        last_l1_epoch_secs: value.last_l1_epoch_secs ?? null,
        last_syns_day: value.last_syns_day ?? null,
        last_syns: value.last_syns ?? null,
        usage: value.usage ?? {},
      };
    }
  } catch {
    // missing or damaged: start afresh (the worst case is one more L1 pass, which rewrites the same blocks)
  }
  return { version: 1, cycles: 0, last_cycle: null, last_l1_epoch_secs: null, last_syns_day: null, last_syns: null, usage: {} };
}

export function writeWatchState(path: string, state: WatchState): void {
  writeFileAtomic(path, `${JSON.stringify(state, null, 1)}\n`);
}
