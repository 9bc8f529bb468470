import { classifyUsage } from '../usage/classify.js';
import { detectFileSource } from '../usage/list-usage.js';
import { readTranscriptUsage } from '../usage/read-session-usage.js';
import type { WatchState } from './state.js';

/**
 * On a transcript's file event: its context usage now (from the transcript's own usage fields), kept in the
 * watcher state for `moon status`, and whether it is near compaction — then the watcher captures it at once
 * instead of waiting out the debounce, before the agent's compaction replaces what it holds with a summary.
 * A file is read at most once per `minGapMs`; sessions not seen for a day are dropped.
 */
const DAY_SECS = 24 * 3600;

export function createUsageCheck(options: { startRatio: number; emergencyRatio: number; nowMs: () => number; minGapMs?: number }) {
  const lastRead = new Map<string, number>();
  const minGap = options.minGapMs ?? 2_000;
  return (path: string, state: WatchState): boolean => {
    const now = options.nowMs();
    if (now - (lastRead.get(path) ?? -Infinity) < minGap) return false;
    lastRead.set(path, now);
    try {
      const source = detectFileSource(path);
      if (!source) return false;
      const { snapshot } = readTranscriptUsage(path, source, now);
      if (!snapshot) return false;
      const level = classifyUsage(snapshot, options);
      state.usage[snapshot.session_id] = { ...snapshot, path, level, read_at_epoch_secs: Math.floor(now / 1000) };
      for (const [id, record] of Object.entries(state.usage)) {
        if (now / 1000 - (record.read_at_epoch_secs ?? record.captured_at_epoch_secs) > DAY_SECS) delete state.usage[id];
      }
      return level !== 'ok';
    } catch {
      // A half-written or vanished file: the cycle will read it (and report it) anyway.
      return false;
    }
  };
}
