import { isObject, str } from '../sources/json-value.js';
import { parseTimestamp } from '../sources/timestamp.js';
import { type UsageCollector, countTokens } from './collector.js';
import type { UsageReading } from './snapshot.js';

/** Claude Code's placeholder model on messages the harness wrote itself (API errors): no usage of the model. */
const SYNTHETIC_MODEL = '<synthetic>';

/**
 * Claude Code: the last assistant line's `message.usage`. What the context holds after that turn is everything
 * the model read — fresh input, cache writes and cache reads — plus the reply it wrote, which the next request
 * carries: `input_tokens + cache_creation_input_tokens + cache_read_input_tokens + output_tokens`. (One API
 * message split over several lines repeats its usage, the last line with the final output count.) Lines of an
 * inline sidechain (a 2025 Task agent's turns inside the main transcript) measure the agent's context, not the
 * session's, and are passed over; a subagent's own transcript (`agentId` on every line) is measured as usual.
 */
export function createClaudeCodeCollector(): UsageCollector {
  let found: UsageReading | null = null;
  return {
    mustContain: ['"usage"'],
    visit(record) {
      const reading = readClaudeUsage(record);
      if (!reading) return 'continue';
      found = reading;
      return 'stop';
    },
    wantsMore: () => found === null,
    result: () => found,
  };
}

export function readClaudeUsage(record: unknown): UsageReading | null {
  if (!isObject(record) || record.type !== 'assistant' || !isObject(record.message)) return null;
  if (record.isSidechain === true && str(record.agentId) === null) return null;
  const message = record.message;
  const usage = message.usage;
  const model = str(message.model);
  if (!isObject(usage) || model === SYNTHETIC_MODEL) return null;
  const used =
    countTokens(usage.input_tokens) +
    countTokens(usage.cache_creation_input_tokens) +
    countTokens(usage.cache_read_input_tokens) +
    countTokens(usage.output_tokens);
  if (used <= 0) return null;
  return { usedTokens: used, windowTokens: null, model, provider: 'anthropic', atMs: parseTimestamp(record.timestamp) };
}
