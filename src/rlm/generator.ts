import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { MoonError } from '../errors.js';
import type { Provider } from '../llm/provider.js';
import { acquireLockWaiting } from '../lock/wait-lock.js';
import { DEFAULT_MARKER_CONFIG, type MarkerConfig } from '../markers/extract.js';
import type { ParsedHistory, ParsedPrompt } from '../sources/puffin-history.js';
import { CHARS_PER_TOKEN, renderSegmentContent, renderTurn } from './content.js';
import { detectChanges, hashBranch, hashHistory, hashPrompt } from './hashes.js';
import { carrySummary, describeFullReindex, planUpdate, shouldFullReindex, type UpdatePlan } from './incremental.js';
import { collectHistoryMarkers } from './markers.js';
import { readHistoryFile, type ReadHistory } from './read-history.js';
import { DEFAULT_SEGMENTATION, segmentHistory, type PlannedSegment } from './segmenter.js';
import { readIndex, writeIndex } from './serializer.js';
import { ProcessingStats } from './stats.js';
import { cachePathFor, openSummaryCache, type SummaryCache } from './summary-cache.js';
import { summarizeSegmentLocally } from './summary-local.js';
import { TEMPLATE_VERSION } from './summary-prompt.js';
import { summarizeSegments, type SummaryJob, type SummaryOutcome } from './summaries.js';
import {
  HISTORY_INDEX_VERSION,
  type HistoryIndex,
  type IndexBranch,
  type IndexGeneratorInfo,
  type IndexMarker,
  type IndexSegment,
  type ProcessingStatistics,
  type SegmentationConfig,
} from './types.js';

/**
 * The index generator (seed 004, main entry point): history → hashes → token counts → segments → markers →
 * summaries → one validated index written atomically, under a lock on the output path (waited for up to 30 s).
 * An incremental run keeps every unchanged segment's summary and asks only for the affected ones — or
 * regenerates everything when more than half are affected (seed 004 §6), saying so in the statistics.
 */
export type RlmPhase = 'read' | 'hash' | 'tokens' | 'segment' | 'summarize' | 'write';

export interface GenerateOptions {
  historyPath: string;
  outputPath: string;
  incremental: boolean;
  /** Null: the local extractive summariser (offline, deterministic). */
  provider: Provider | null;
  /** Token counts (cl100k_base, the hooks' tokenizer), in order. */
  countTokens(texts: string[]): Promise<number[]>;
  segmentation?: Partial<SegmentationConfig>;
  markerConfig?: MarkerConfig;
  readHistory?: ReadHistory;
  /** Where model answers are cached; default `<outputPath>.cache.json`, null for none. */
  cachePath?: string | null;
  lockTimeoutMs?: number;
  onProgress?: (phase: RlmPhase, done: number, total: number) => void;
  onNotice?: (message: string) => void;
  now?: () => number;
  /** Tuning for tests: parallel calls, attempts, backoff. */
  summaries?: { concurrency?: number; maxAttempts?: number; retryBaseMs?: number; sleep?: (ms: number) => Promise<void> };
}

export interface GenerateResult {
  index: HistoryIndex;
  stats: ProcessingStatistics;
  /** The incremental plan (null on a full run, or when there was no index to update). */
  plan: UpdatePlan | null;
}

export const RLM_LOCK_TIMEOUT_MS = 30_000;
const TOKEN_BATCH = 2_000;

export async function generateHistoryIndex(options: GenerateOptions): Promise<GenerateResult> {
  const now = options.now ?? Date.now;
  const stats = new ProcessingStats(now);
  const outputPath = resolve(options.outputPath);
  const historyPath = resolve(options.historyPath);
  const lock = await acquireLockWaiting(`${outputPath}.lock`, { pid: process.pid, started_at: new Date(now()).toISOString(), command: 'rlm index' }, {
    timeoutMs: options.lockTimeoutMs ?? RLM_LOCK_TIMEOUT_MS,
    subject: `the history index ${outputPath}`,
    onWait: () => options.onNotice?.(`waiting for another run writing ${outputPath} (up to ${Math.round((options.lockTimeoutMs ?? RLM_LOCK_TIMEOUT_MS) / 1000)} s)`),
    now,
  });
  try {
    return await generateLocked({ ...options, outputPath, historyPath }, stats, now);
  } finally {
    lock.release();
  }
}

async function generateLocked(options: GenerateOptions, stats: ProcessingStats, now: () => number): Promise<GenerateResult> {
  const progress = options.onProgress ?? (() => undefined);
  const segmentation: SegmentationConfig = { ...DEFAULT_SEGMENTATION, ...options.segmentation };
  checkSegmentation(segmentation);
  // Read (and so validate) whatever is at the output first: an invalid file there is never overwritten. The
  // old index and the history (every prompt's text) live only inside buildIndex: they are garbage by the time the
  // new index is serialised, so the three are never held at once.
  const { index, plan, cache } = await buildIndex(options, readIndex(options.outputPath), segmentation, stats, now);
  progress('write', 0, 1);
  stats.recordSegmentGenerated(index.segments.length);
  writeIndex(index, options.outputPath);
  try {
    cache.save();
  } catch (error) {
    stats.recordError('cache', error);
  }
  progress('write', 1, 1);
  return { index, stats: stats.finalize(), plan };
}

async function buildIndex(
  options: GenerateOptions,
  existing: HistoryIndex | null,
  segmentation: SegmentationConfig,
  stats: ProcessingStats,
  now: () => number,
): Promise<{ index: HistoryIndex; plan: UpdatePlan | null; cache: SummaryCache }> {
  const progress = options.onProgress ?? (() => undefined);
  progress('read', 0, 1);
  let history: ParsedHistory;
  if (!existsSync(options.historyPath)) {
    if (existing) {
      throw new MoonError('not_found', `no history file at ${options.historyPath}; the index ${options.outputPath} was left as it is`);
    }
    options.onNotice?.(`no history file at ${options.historyPath}: writing an empty index`);
    stats.recordError('read', `no history file at ${options.historyPath}`);
    history = { branches: [], totalPrompts: 0, dateRange: null, updatedAt: null, activeBranch: null, skipped: [] };
  } else {
    history = await (options.readHistory ?? readHistoryFile)(options.historyPath);
  }
  progress('read', 1, 1);
  for (const skipped of history.skipped) {
    const where = skipped.branchId === null ? 'history' : `branch ${skipped.branchId}${skipped.index === null ? '' : ` entry ${skipped.index}`}`;
    stats.recordError('parse', `${where}: ${skipped.reason}`);
  }
  stats.recordPromptProcessed(history.totalPrompts);

  const prompts: ParsedPrompt[] = [];
  for (const branch of history.branches) for (const prompt of branch.prompts) prompts.push(prompt);
  const byId = new Map(prompts.map((prompt) => [prompt.id, prompt]));
  progress('hash', 0, prompts.length);
  const hashes = new Map(prompts.map((prompt) => [prompt.id, hashPrompt(prompt)]));
  progress('hash', prompts.length, prompts.length);

  const useExisting = options.incremental && existing !== null;
  const tokens = await countPromptTokens(prompts, hashes, useExisting ? existing : null, options.countTokens, progress);
  progress('segment', 0, 1);
  const planned = segmentHistory(history, { tokensOf: (id) => tokens.get(id) ?? 0, hashOf: (id) => hashes.get(id)! }, segmentation);
  const segmentOf = new Map<string, string>();
  for (const segment of planned) for (const id of segment.promptIds) segmentOf.set(id, segment.id);
  progress('segment', 1, 1);

  const markers = collectHistoryMarkers(history, segmentOf, options.markerConfig ?? DEFAULT_MARKER_CONFIG);
  for (const marker of markers) stats.recordMarkerExtracted(marker.type);
  const markersOf = new Map<string, IndexMarker[]>();
  for (const marker of markers) {
    const list = markersOf.get(marker.segmentId) ?? [];
    list.push(marker);
    markersOf.set(marker.segmentId, list);
  }

  const provider = options.provider;
  const generator: IndexGeneratorInfo = {
    summarizer: provider ? provider.name : 'local',
    model: provider ? provider.model : 'extractive',
    template: TEMPLATE_VERSION,
    segmentation,
  };

  const { plan, reuse } = options.incremental ? planIncrementalRun(options, existing, planned, hashes, generator, stats) : { plan: null, reuse: new Map<string, IndexSegment>() };

  const cache = openSummaryCache(provider ? (options.cachePath === undefined ? cachePathFor(options.outputPath) : options.cachePath) : null, now, options.onNotice);
  const contentOptions = { overlapTokens: segmentation.segmentOverlap, maxChars: (segmentation.maxTokensPerSegment + segmentation.segmentOverlap) * CHARS_PER_TOKEN };
  const jobs: SummaryJob[] = planned
    .filter((segment) => !reuse.has(segment.id))
    .map((segment) => ({
      segmentId: segment.id,
      segmentHash: segment.hash,
      content: () => renderSegmentContent(segment, byId, contentOptions),
      local: () => summarizeSegmentLocally(segment.promptIds.map((id) => byId.get(id)!), markersOf.get(segment.id) ?? []),
    }));
  progress('summarize', 0, jobs.length);
  const outcomes = await summarizeSegments(jobs, {
    provider,
    cache,
    stats,
    countTokens: options.countTokens,
    ...options.summaries,
    onProgress: (done, total) => progress('summarize', done, total),
  });

  return { index: assembleIndex(options, history, planned, hashes, tokens, markers, outcomes, reuse, generator, stats, now), plan, cache };
}

/**
 * What an incremental run keeps: with an index to update, the plan (added, updated, removed, unchanged segments)
 * and the unchanged segments whose summaries carry over — none when a full reindex is due; the statistics say
 * which it was.
 */
function planIncrementalRun(
  options: GenerateOptions,
  existing: HistoryIndex | null,
  planned: readonly PlannedSegment[],
  hashes: ReadonlyMap<string, string>,
  generator: IndexGeneratorInfo,
  stats: ProcessingStats,
): { plan: UpdatePlan | null; reuse: Map<string, IndexSegment> } {
  let plan: UpdatePlan | null = null;
  let reuse = new Map<string, IndexSegment>();
  const oldHashes = new Map((existing?.prompts ?? []).map((prompt) => [prompt.id, prompt.hash]));
  const changes = detectChanges(oldHashes, hashes);
  if (existing) {
    plan = planUpdate(existing, planned, changes, generator, options.provider?.generative ?? false);
    const full = shouldFullReindex(plan);
    if (full) options.onNotice?.(`full reindex: ${describeFullReindex(plan)}`);
    else {
      const unchanged = new Set(plan.segmentsUnchanged);
      reuse = new Map(existing.segments.filter((segment) => unchanged.has(segment.id)).map((segment) => [segment.id, segment]));
    }
    stats.setIncrementalStats({
      segmentsSkipped: full ? 0 : plan.segmentsUnchanged.length,
      segmentsUpdated: full ? planned.length - plan.segmentsToAdd.length : plan.segmentsToUpdate.length,
      segmentsAdded: plan.segmentsToAdd.length,
      segmentsRemoved: plan.segmentsToRemove.length,
      promptsAdded: changes.added.length,
      promptsModified: changes.modified.length,
      promptsRemoved: changes.removed.length,
      fullReindex: full,
      fullReindexReason: full ? describeFullReindex(plan) : null,
    });
  } else {
    options.onNotice?.(`no index at ${options.outputPath} yet: building it whole`);
    stats.setIncrementalStats({
      segmentsSkipped: 0,
      segmentsUpdated: 0,
      segmentsAdded: planned.length,
      segmentsRemoved: 0,
      promptsAdded: changes.added.length,
      promptsModified: 0,
      promptsRemoved: 0,
      fullReindex: true,
      fullReindexReason: 'there was no index to update',
    });
  }
  return { plan, reuse };
}

/** Token counts per prompt: kept from the old index where the prompt's hash is unchanged, counted otherwise. */
async function countPromptTokens(
  prompts: readonly ParsedPrompt[],
  hashes: ReadonlyMap<string, string>,
  existing: HistoryIndex | null,
  countTokens: (texts: string[]) => Promise<number[]>,
  progress: (phase: RlmPhase, done: number, total: number) => void,
): Promise<Map<string, number>> {
  const tokens = new Map<string, number>();
  if (existing) {
    // A title or timestamp edit alone keeps the hash (seed 004 hashes id, prompt and response): its count is kept.
    for (const prompt of existing.prompts) if (hashes.get(prompt.id) === prompt.hash) tokens.set(prompt.id, prompt.tokens);
  }
  const missing = prompts.filter((prompt) => !tokens.has(prompt.id));
  progress('tokens', 0, missing.length);
  for (let start = 0; start < missing.length; start += TOKEN_BATCH) {
    const batch = missing.slice(start, start + TOKEN_BATCH);
    const counts = await countTokens(batch.map(renderTurn));
    batch.forEach((prompt, index) => tokens.set(prompt.id, counts[index] ?? 0));
    progress('tokens', Math.min(missing.length, start + TOKEN_BATCH), missing.length);
  }
  return tokens;
}

function assembleIndex(
  options: GenerateOptions,
  history: ParsedHistory,
  planned: readonly PlannedSegment[],
  hashes: ReadonlyMap<string, string>,
  tokens: ReadonlyMap<string, number>,
  markers: IndexMarker[],
  outcomes: ReadonlyMap<string, SummaryOutcome>,
  reuse: ReadonlyMap<string, IndexSegment>,
  generator: IndexGeneratorInfo,
  stats: ProcessingStats,
  now: () => number,
): HistoryIndex {
  const segments: IndexSegment[] = planned.map((segment) => {
    const kept = reuse.get(segment.id);
    if (kept) return { ...segment, ...carrySummary(kept) };
    const outcome = outcomes.get(segment.id)!;
    return { ...segment, ...outcome.summary, summarySource: outcome.source };
  });
  const topicIndex: Record<string, string[]> = {};
  for (const segment of segments) {
    for (const topic of segment.topics) {
      // Own keys only: a topic named `constructor` or `__proto__` must not reach the prototype.
      if (!Object.hasOwn(topicIndex, topic)) Object.defineProperty(topicIndex, topic, { value: [], enumerable: true, writable: true, configurable: true });
      topicIndex[topic]!.push(segment.id);
    }
  }
  const segmentsOfBranch = new Map<string, string[]>();
  for (const segment of segments) {
    const list = segmentsOfBranch.get(segment.branchId) ?? [];
    list.push(segment.id);
    segmentsOfBranch.set(segment.branchId, list);
  }
  const branches: IndexBranch[] = history.branches.map((branch) => ({
    id: branch.id,
    name: branch.name,
    hash: hashBranch(branch.id, branch.prompts.map((prompt) => hashes.get(prompt.id)!)),
    promptCount: branch.prompts.length,
    segmentIds: segmentsOfBranch.get(branch.id) ?? [],
  }));
  const prompts = history.branches.flatMap((branch) => branch.prompts.map((prompt) => ({ id: prompt.id, hash: hashes.get(prompt.id)!, tokens: tokens.get(prompt.id) ?? 0 })));
  return {
    version: HISTORY_INDEX_VERSION,
    generatedAt: new Date(now()).toISOString(),
    historyFile: options.historyPath,
    contentHash: hashHistory(branches.map((branch) => branch.hash)),
    generator,
    segments,
    markers,
    topicIndex,
    branches,
    prompts,
    statistics: {
      totalPrompts: prompts.length,
      totalSegments: segments.length,
      totalMarkers: markers.length,
      processingTimeMs: Math.max(0, Math.round(now() - stats.startedAt)),
      llmCallCount: stats.llmCallCount,
    },
  };
}

function checkSegmentation(config: SegmentationConfig): void {
  if (!Number.isInteger(config.maxTokensPerSegment) || config.maxTokensPerSegment < 1) {
    throw new MoonError('bad_usage', `maxTokensPerSegment must be a positive whole number, got ${config.maxTokensPerSegment}`);
  }
  if (!Number.isInteger(config.segmentOverlap) || config.segmentOverlap < 0) {
    throw new MoonError('bad_usage', `segmentOverlap must be a whole number of tokens, 0 or more, got ${config.segmentOverlap}`);
  }
}
