import type { SessionUsageSnapshot } from '../model.js';

/** `ok`: nothing to do; `compaction`: the agent will compact soon; `emergency`: it may compact at any turn. */
export type UsageLevel = 'ok' | 'compaction' | 'emergency';

export interface UsageThresholds {
  /** `context.compaction_start_ratio`. */
  startRatio: number;
  /** `context.compaction_emergency_ratio`. */
  emergencyRatio: number;
}

/**
 * How close a session is to compaction. The watcher snapshots and indexes a session at once at `compaction` or
 * `emergency`, before the agent's compaction replaces what it holds with a summary. The emergency threshold is
 * checked first, so a configuration with emergency below start still reports an emergency.
 */
export function classifyUsage(snapshot: Pick<SessionUsageSnapshot, 'usage_ratio'>, thresholds: UsageThresholds): UsageLevel {
  const ratio = snapshot.usage_ratio;
  if (ratio >= thresholds.emergencyRatio) return 'emergency';
  if (ratio >= thresholds.startRatio) return 'compaction';
  return 'ok';
}
