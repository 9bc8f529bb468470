import { isObject, str } from '../sources/json-value.js';
import { parseTimestamp } from '../sources/timestamp.js';
import { type UsageCollector, countTokens } from './collector.js';
import type { UsageReading } from './snapshot.js';

/**
 * Codex: the last `event_msg` of payload type `token_count` with an `info`. `info.last_token_usage` is the last
 * request — what sat in the context window: its `total_tokens` (input, cached input included, plus output), else
 * input + output. Rollouts without it only have the running `total_token_usage`, which equals it in a
 * one-request session and overstates it after that; it is used only then. The window is the one Codex states
 * (`info.model_context_window`, else the nearest earlier one stated — `task_started`, an earlier `token_count` —
 * else a later one), else the model's from the table. The model is the `turn_context` of the turn the count
 * belongs to (the nearest one before it), else a later one, else the first in the file's head.
 */
export function createCodexCollector(): UsageCollector {
  let found: UsageReading | null = null;
  let olderWindow: number | null = null;
  let newerWindow: number | null = null;
  let olderModel: string | null = null;
  let newerModel: string | null = null;
  return {
    mustContain: ['"token_count"', '"turn_context"', '"model_context_window"'],
    visit(record) {
      if (!isObject(record) || !isObject(record.payload)) return 'continue';
      const payload = record.payload;
      if (record.type === 'turn_context') {
        const model = str(payload.model);
        if (found) olderModel ??= model;
        else newerModel ??= model;
      } else if (record.type === 'event_msg') {
        const stated = readWindow(payload.type === 'token_count' && isObject(payload.info) ? payload.info : payload);
        const used = !found && payload.type === 'token_count' ? readTokenCount(payload.info) : 0;
        if (used > 0) found = { usedTokens: used, windowTokens: stated, model: null, provider: null, atMs: parseTimestamp(record.timestamp) };
        else if (found) olderWindow ??= stated;
        else newerWindow ??= stated;
      }
      return found !== null && (found.windowTokens ?? olderWindow) !== null && olderModel !== null ? 'stop' : 'continue';
    },
    wantsMore: () => found === null,
    result: () => {
      if (!found) return null;
      return { ...found, windowTokens: found.windowTokens ?? olderWindow ?? newerWindow, model: olderModel ?? newerModel };
    },
  };
}

/** Tokens in the context at the last request of a token_count's `info`, or 0. */
export function readTokenCount(info: unknown): number {
  if (!isObject(info)) return 0;
  const usage = isObject(info.last_token_usage) ? info.last_token_usage : isObject(info.total_token_usage) ? info.total_token_usage : null;
  if (!usage) return 0;
  return countTokens(usage.total_tokens) || countTokens(usage.input_tokens) + countTokens(usage.output_tokens);
}

function readWindow(holder: Record<string, unknown>): number | null {
  const window = countTokens(holder.model_context_window);
  return window > 0 ? window : null;
}
