import type { SessionUsageSnapshot } from '../model.js';
import { CLAUDE_CONTEXT_WINDOW, CLAUDE_LONG_CONTEXT_WINDOW, contextWindowFor, isClaudeModel } from './context-windows.js';

export type { SessionUsageSnapshot } from '../model.js';

/** What one format's reader found in a transcript: the latest usage and whatever it says about the session. */
export interface UsageReading {
  usedTokens: number;
  /** The window the transcript (or its companion file) states, when it states one. */
  windowTokens: number | null;
  model: string | null;
  provider: string | null;
  /** When the usage was recorded (epoch ms), or null when the record has no time. */
  atMs: number | null;
}

/**
 * The snapshot of a reading (seed 001 rules: max_tokens > 0, usage_ratio = used / max and may exceed 1.0), or
 * null when the numbers are not real counts. The window is the stated one, else the model's from the table — except
 * that a Claude session holding more than 200k tokens at once can only be on a 1M-context variant.
 * `captured_at_epoch_secs` is when the transcript recorded the usage, else `nowMs`.
 */
export function composeSnapshot(sessionId: string, reading: UsageReading, nowMs: number, fallbackProvider: string): SessionUsageSnapshot | null {
  const used = reading.usedTokens;
  if (!(Number.isFinite(used) && used > 0)) return null;
  const max = chooseWindow(reading);
  if (!(Number.isFinite(max) && max > 0)) return null;
  const atMs = reading.atMs !== null && Number.isFinite(reading.atMs) ? reading.atMs : nowMs;
  const snapshot: SessionUsageSnapshot = {
    session_id: sessionId,
    used_tokens: used,
    max_tokens: max,
    usage_ratio: used / max,
    captured_at_epoch_secs: Math.floor(atMs / 1000),
    provider: reading.provider ?? fallbackProvider,
  };
  if (reading.model) snapshot.model = reading.model;
  return snapshot;
}

function chooseWindow(reading: UsageReading): number {
  if (reading.windowTokens !== null && Number.isFinite(reading.windowTokens) && reading.windowTokens > 0) return reading.windowTokens;
  const window = contextWindowFor(reading.model);
  if (isClaudeModel(reading.model) && window === CLAUDE_CONTEXT_WINDOW && reading.usedTokens > CLAUDE_CONTEXT_WINDOW) return CLAUDE_LONG_CONTEXT_WINDOW;
  return window;
}
