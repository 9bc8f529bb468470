import { MoonError } from '../errors.js';
import type { Provider, ProviderUsage } from '../llm/provider.js';
import type { ProcessingStats } from './stats.js';
import { createCacheKey, type SummaryCache } from './summary-cache.js';
import type { SegmentSummary } from './summary-local.js';
import { parseSummaryAnswer, renderSummaryPrompt, SUMMARY_MAX_TOKENS, TEMPLATE_VERSION } from './summary-prompt.js';
import type { SummarySource } from './types.js';

/**
 * The summary generator (seed 004 §4): each segment's summary, topics, key entities and importance from the
 * configured provider with seed 004's template, or from the local summariser when there is none.
 *
 * - **Parallel**: up to `concurrency` (4) segments are asked at once; a segment's content is rendered only when
 *   its turn comes, so at most that many contents are held.
 * - **Retries**: a failed call is tried again up to `maxAttempts` (3) attempts in all, waiting `retryBaseMs`
 *   doubled per retry (an HTTP provider's own retries of 429/5xx happen inside each attempt). A configuration
 *   error (a bad key, an unknown model, a command that does not exist) stops the run: every segment would fail
 *   the same way. After the last attempt the segment gets the local summary and the error is recorded.
 * - **Invalid JSON**: fields are recovered by pattern, the rest taken from the local summary (`llm-fallback`).
 * - **Cache**: answers that parsed whole are kept by provider, model, template and segment hash, and reused.
 */
export interface SummaryJob {
  segmentId: string;
  segmentHash: string;
  /** The segment's content for the template, rendered when asked. */
  content(): string;
  /** The local summariser's answer for the segment. */
  local(): SegmentSummary;
}

export interface SummaryOutcome {
  summary: SegmentSummary;
  source: SummarySource;
}

export interface SummarizerOptions {
  /** Null: the local summariser for every segment. */
  provider: Provider | null;
  cache: SummaryCache;
  stats: ProcessingStats;
  /** Token counts for calls whose provider reports none. */
  countTokens(texts: string[]): Promise<number[]>;
  concurrency?: number;
  maxAttempts?: number;
  retryBaseMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** After each segment, done of total. */
  onProgress?: (done: number, total: number) => void;
}

export const SUMMARY_CONCURRENCY = 4;
export const SUMMARY_MAX_ATTEMPTS = 3;
export const SUMMARY_RETRY_BASE_MS = 1_000;

export async function summarizeSegments(jobs: readonly SummaryJob[], options: SummarizerOptions): Promise<Map<string, SummaryOutcome>> {
  const results = new Map<string, SummaryOutcome>();
  const total = jobs.length;
  let done = 0;
  const finish = (job: SummaryJob, outcome: SummaryOutcome): void => {
    results.set(job.segmentId, outcome);
    done += 1;
    options.onProgress?.(done, total);
  };
  const provider = options.provider;
  if (!provider) {
    for (const job of jobs) {
      finish(job, { summary: job.local(), source: 'local' });
      // Give the event loop a turn now and then: progress is drawn and signals are heard on a long local run.
      if (done % 64 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return results;
  }
  let next = 0;
  let fatal: unknown = null;
  const worker = async (): Promise<void> => {
    while (fatal === null && next < jobs.length) {
      const job = jobs[next++]!;
      try {
        finish(job, await summarizeOne(provider, job, options));
      } catch (error) {
        fatal ??= error;
      }
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? SUMMARY_CONCURRENCY, jobs.length));
  await Promise.all(Array.from({ length: workers }, () => worker()));
  if (fatal !== null) throw fatal;
  return results;
}

async function summarizeOne(provider: Provider, job: SummaryJob, options: SummarizerOptions): Promise<SummaryOutcome> {
  const key = createCacheKey(provider.name, provider.model, TEMPLATE_VERSION, job.segmentHash);
  const cached = options.cache.get(key);
  if (cached) {
    options.stats.recordCacheHit();
    return { summary: cached, source: 'llm' };
  }
  const prompt = renderSummaryPrompt(job.content());
  const attempts = Math.max(1, options.maxAttempts ?? SUMMARY_MAX_ATTEMPTS);
  const base = options.retryBaseMs ?? SUMMARY_RETRY_BASE_MS;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let lastError: unknown = null;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await sleep(base * 2 ** (attempt - 2));
    let usage: ProviderUsage = {};
    let answer: string;
    try {
      answer = await provider.complete(prompt, { json: true, maxTokens: SUMMARY_MAX_TOKENS, onUsage: (reported) => (usage = reported) });
    } catch (error) {
      await recordCall(options, prompt, '', usage);
      if (error instanceof MoonError && error.code === 'bad_config') throw error;
      lastError = error;
      continue;
    }
    await recordCall(options, prompt, answer, usage);
    const parsed = parseSummaryAnswer(answer, job.local);
    if (!parsed) {
      options.stats.recordError('summarize', `segment ${job.segmentId}: the ${provider.name} answer held no summary; used the local summary`);
      return { summary: job.local(), source: 'local' };
    }
    if (parsed.source === 'llm') options.cache.put(key, parsed.summary);
    return parsed;
  }
  const reason = lastError instanceof Error ? lastError.message : String(lastError);
  options.stats.recordError('summarize', `segment ${job.segmentId}: ${attempts} attempts failed (${reason}); used the local summary`);
  return { summary: job.local(), source: 'local' };
}

async function recordCall(options: SummarizerOptions, prompt: string, answer: string, usage: ProviderUsage): Promise<void> {
  let tokens = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  if (usage.inputTokens === undefined) {
    const [promptTokens = 0, answerTokens = 0] = await options.countTokens([prompt, answer]);
    tokens = promptTokens + (usage.outputTokens ?? answerTokens);
  }
  options.stats.recordLLMCall(tokens, usage.costUsd ?? 0);
}
