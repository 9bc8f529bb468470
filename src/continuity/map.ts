import type { ContinuityMap } from '../model.js';

/** Key decisions carried over at most: the projection's own cap. */
export const MAX_KEY_DECISIONS = 20;

export interface ContinuityParts {
  sourceSessionId: string;
  targetSessionId: string;
  archiveRefs: readonly string[];
  dailyMemoryRefs: readonly string[];
  decisions: readonly string[];
  nowMs: number;
}

/**
 * Seed 001 ContinuityMap from its parts. Deterministic: keys in the seed's order, references de-duplicated in the
 * order given (callers sort them), decisions de-duplicated (case and spacing aside) in session order and cut to
 * MAX_KEY_DECISIONS; the only time in it is `nowMs`, the caller's clock.
 */
export function composeContinuityMap(parts: ContinuityParts): ContinuityMap {
  return {
    source_session_id: parts.sourceSessionId,
    target_session_id: parts.targetSessionId,
    archive_refs: unique(parts.archiveRefs),
    daily_memory_refs: unique(parts.dailyMemoryRefs),
    key_decisions: dedupeDecisions(parts.decisions, MAX_KEY_DECISIONS),
    generated_at_epoch_secs: Math.floor(parts.nowMs / 1000),
  };
}

/** The map as written to its file and printed by `--json`: two-space indent, one trailing newline. */
export function serializeContinuityMap(map: ContinuityMap): string {
  return `${JSON.stringify(map, null, 2)}\n`;
}

export function dedupeDecisions(lines: readonly string[], max: number): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const line of lines) {
    const text = line.replace(/\s+/g, ' ').trim();
    const key = text.toLowerCase();
    if (text === '' || seen.has(key)) continue;
    seen.add(key);
    kept.push(text);
    if (kept.length === max) break;
  }
  return kept;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
