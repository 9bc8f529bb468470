import { isObject, str } from '../sources/json-value.js';
import { parseTimestamp } from '../sources/timestamp.js';
import { type UsageCollector, countTokens } from './collector.js';
import type { UsageReading } from './snapshot.js';

/**
 * OpenClaw / pi: the last assistant message's `usage` (`input`, `output`, `cacheRead`, `cacheWrite`,
 * `totalTokens`). The context holds all of it after that turn: `totalTokens`, else the sum of the four. A reply
 * that failed or was aborted (`stopReason` `error` / `aborted`) carries partial or no counts and is passed over.
 */
export function createOpenClawCollector(): UsageCollector {
  let found: UsageReading | null = null;
  return {
    mustContain: ['"usage"'],
    visit(record) {
      const reading = readOpenClawUsage(record);
      if (!reading) return 'continue';
      found = reading;
      return 'stop';
    },
    wantsMore: () => found === null,
    result: () => found,
  };
}

const FAILED_STOPS = new Set(['error', 'aborted']);

export function readOpenClawUsage(record: unknown): UsageReading | null {
  if (!isObject(record) || record.type !== 'message' || !isObject(record.message)) return null;
  const message = record.message;
  if (message.role !== 'assistant' || !isObject(message.usage)) return null;
  if (typeof message.stopReason === 'string' && FAILED_STOPS.has(message.stopReason)) return null;
  const usage = message.usage;
  const used =
    countTokens(usage.totalTokens) ||
    countTokens(usage.input) + countTokens(usage.output) + countTokens(usage.cacheRead) + countTokens(usage.cacheWrite);
  if (used <= 0) return null;
  return {
    usedTokens: used,
    windowTokens: null,
    model: str(message.model),
    provider: str(message.provider),
    atMs: parseTimestamp(record.timestamp) ?? parseTimestamp(message.timestamp),
  };
}

/** What OpenClaw's gateway keeps about a session in `sessions.json` beside its transcripts. */
export interface OpenClawSessionEntry {
  /** `contextTokens`: the session's context window. */
  contextTokens: number | null;
  /** `totalTokens`: tokens in the context after the last run (null when marked stale: `totalTokensFresh: false`). */
  totalTokens: number | null;
  model: string | null;
  provider: string | null;
  updatedAtMs: number | null;
}

/**
 * The entry of `sessions.json` (a map of session key → entry) whose `sessionId` is this session's; the most
 * recently updated one when several keys point at it. Null when none does.
 */
export function findOpenClawSessionEntry(store: unknown, sessionId: string): OpenClawSessionEntry | null {
  if (!isObject(store)) return null;
  let best: OpenClawSessionEntry | null = null;
  for (const value of Object.values(store)) {
    if (!isObject(value) || value.sessionId !== sessionId) continue;
    const entry: OpenClawSessionEntry = {
      contextTokens: countTokens(value.contextTokens) || null,
      totalTokens: value.totalTokensFresh === false ? null : countTokens(value.totalTokens) || null,
      model: str(value.model),
      provider: str(value.modelProvider),
      updatedAtMs: parseTimestamp(value.updatedAt),
    };
    if (best === null || (entry.updatedAtMs ?? 0) > (best.updatedAtMs ?? 0)) best = entry;
  }
  return best;
}

/**
 * The transcript's own usage, with the gateway's window (`contextTokens`) when it states one; the gateway's
 * `totalTokens` stands in only when the transcript has no usage line. Its model and provider fill gaps.
 */
export function mergeOpenClawEntry(reading: UsageReading | null, entry: OpenClawSessionEntry | null): UsageReading | null {
  if (!entry) return reading;
  if (reading) {
    return {
      ...reading,
      windowTokens: entry.contextTokens ?? reading.windowTokens,
      model: reading.model ?? entry.model,
      provider: reading.provider ?? entry.provider,
    };
  }
  if (entry.totalTokens === null) return null;
  return { usedTokens: entry.totalTokens, windowTokens: entry.contextTokens, model: entry.model, provider: entry.provider, atMs: entry.updatedAtMs };
}
