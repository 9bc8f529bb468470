import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { MoonError } from '../errors.js';
import type { Provider } from '../llm/provider.js';
import { acquireLockWaiting } from '../lock/wait-lock.js';
import { DEFAULT_MARKER_CONFIG, type MarkerConfig } from '../markers/extract.js';
import { assembleIndex } from './assemble.js';
import { CHARS_PER_TOKEN, renderSegmentContent } from './content.js';
import type { PromptChanges } from './hashes.js';
import { openHistoryFile, type HistoryFile } from './history-file.js';
import type { SegmentSummaryFields, UpdatePlan } from './incremental.js';
import { planIncrementalRun } from './incremental-run.js';
import { planIndex, type IndexPlan } from './index-plan.js';
import { createEmptyOutline, outlineHistory, type HistoryOutline } from './outline.js';
import { createPromptLocator, readPromptsBack, type PromptLocator } from './prompt-text.js';
import { countPromptsBack, matchOldPrompts } from './token-counts.js';
import { DEFAULT_SEGMENTATION } from './segmenter.js';
import { startReadingOldIndex, type OldIndex, type OldIndexReading } from './old-index.js';
import { writeIndex } from './serializer.js';
import { ProcessingStats } from './stats.js';
import { cachePathFor, openSummaryCache, type SummaryCache } from './summary-cache.js';
import { collectSummaryInput, summarizeInputLocally } from './summary-local.js';
import { TEMPLATE_VERSION } from './summary-prompt.js';
import { summarizeSegments, type SummaryJob } from './summaries.js';
import type { HistoryIndex, IndexGeneratorInfo, IndexMarker, ProcessingStatistics, SegmentationConfig } from './types.js';

/**
 * The index generator (seed 004, main entry point): history → hashes → token counts → segments → markers →
 * summaries → one validated index written atomically, under a lock on the output path (waited for up to 30 s).
 * An incremental run keeps every unchanged segment's summary and asks only for the affected ones — or
 * regenerates everything when more than half are affected (seed 004 §6), saying so in the statistics.
 *
 * The history is read in two passes, so that its text is never held whole: the outline (outline.ts) streams the
 * file once and keeps, per prompt, its tree links, hash, token count, markers and byte range; the segments are
 * planned from that; then each segment to summarise has its prompts read back from the file (prompt-text.ts) —
 * every segment on a full run, one at a time; only the affected ones on an incremental run.
 *
 * Phases as reported: `read` (bytes of the file; hashing, markers and token counts are taken as it is read),
 * then `hash` and `tokens` once, when the reading is done, then `segment`, `summarize`, `write`.
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
  /**
   * Called once countTokens will be asked no more — after the first pass, when the local summariser makes the
   * summaries (a model's calls are counted too): a counter holding a tokenizer may let it go.
   */
  releaseTokenCounter?: () => Promise<void> | void;
  segmentation?: Partial<SegmentationConfig>;
  markerConfig?: MarkerConfig;
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
  // Whatever is at the output is read (and so validated: an invalid file there is never overwritten, nor used)
  // while the history's first pass runs — on a worker in the built package. Only an incremental run keeps a
  // digest of it.
  const reading = startReadingOldIndex({ path: options.outputPath, digest: options.incremental });
  const { index, plan, cache } = await buildIndex(options, reading, segmentation, stats, now);
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

interface BuiltIndex {
  index: HistoryIndex;
  plan: UpdatePlan | null;
  cache: SummaryCache;
}

async function buildIndex(
  options: GenerateOptions,
  reading: Promise<OldIndexReading>,
  segmentation: SegmentationConfig,
  stats: ProcessingStats,
  now: () => number,
): Promise<BuiltIndex> {
  const progress = options.onProgress ?? (() => undefined);
  progress('read', 0, 1);
  if (!existsSync(options.historyPath)) {
    const old = await reading;
    if (old.exists) {
      throw new MoonError('not_found', `no history file at ${options.historyPath}; the index ${options.outputPath} was left as it is`);
    }
    options.onNotice?.(`no history file at ${options.historyPath}: writing an empty index`);
    stats.recordError('read', `no history file at ${options.historyPath}`);
    const outline = createEmptyOutline();
    const planned = planOutline(options, outline, createPromptLocator(outline), 0, segmentation, stats, { old: old.digest, changes: { added: [], modified: [], removed: [] } });
    return summarizePlan(options, null, planned, segmentation, stats, now);
  }
  const file = openHistoryFile(options.historyPath);
  try {
    const planned = await readAndPlan(options, file, reading, segmentation, stats);
    const built = await summarizePlan(options, file, planned, segmentation, stats, now);
    // Every read is done: the history must still be the one the outline read.
    file.checkUnchanged();
    return built;
  } finally {
    file.close();
  }
}

interface PlannedRun {
  plan: IndexPlan;
  locator: PromptLocator;
  /** An incremental run's digest of the old index, and what changed since. */
  old: OldIndex | null;
  changes: PromptChanges | null;
}

/**
 * The first pass and the plan made from it. The outline lives only in here: what the summaries need of it (the
 * plan, and where each prompt lies in the file) is a fraction of its size.
 */
async function readAndPlan(options: GenerateOptions, file: HistoryFile, reading: Promise<OldIndexReading>, segmentation: SegmentationConfig, stats: ProcessingStats): Promise<PlannedRun> {
  const progress = options.onProgress ?? (() => undefined);
  // An incremental run over an index takes most token counts from it: the pass counts none, and the prompts the
  // index does not know are counted once it is read.
  const { outline, counted } = await outlineHistory(file, {
    countTokens: options.countTokens,
    deferCounts: options.incremental && existsSync(options.outputPath),
    markerConfig: options.markerConfig ?? DEFAULT_MARKER_CONFIG,
    onProgress: (done, total) => progress('read', done, total),
  });
  const { digest } = await reading;
  const locator = createPromptLocator(outline);
  let changes: PromptChanges | null = null;
  let recounted = 0;
  if (options.incremental) {
    const match = matchOldPrompts(outline, digest);
    await countPromptsBack(file, locator, match.uncounted, options.countTokens);
    changes = match.changes;
    recounted = match.uncounted.length;
  }
  // Every prompt is counted; with the local summariser nothing more will be.
  if (options.provider === null) await options.releaseTokenCounter?.();
  return planOutline(options, outline, locator, counted + recounted, segmentation, stats, { old: digest, changes });
}

function planOutline(
  options: GenerateOptions,
  outline: HistoryOutline,
  locator: PromptLocator,
  counted: number,
  segmentation: SegmentationConfig,
  stats: ProcessingStats,
  previous: Pick<PlannedRun, 'old' | 'changes'>,
): PlannedRun {
  const progress = options.onProgress ?? (() => undefined);
  progress('read', 1, 1);
  for (const skipped of outline.skipped) {
    const where = skipped.branchId === null ? 'history' : `branch ${skipped.branchId}${skipped.index === null ? '' : ` entry ${skipped.index}`}`;
    stats.recordError('parse', `${where}: ${skipped.reason}`);
  }
  stats.recordPromptProcessed(outline.totalPrompts);
  progress('hash', outline.totalPrompts, outline.totalPrompts);
  progress('tokens', counted, counted);
  progress('segment', 0, 1);
  const plan = planIndex(outline, locator.rowOf, segmentation);
  progress('segment', 1, 1);
  for (const marker of plan.markers) stats.recordMarkerExtracted(marker.type);
  return { plan, locator, ...previous };
}

/** The summaries of the segments to (re)generate, then the index. */
async function summarizePlan(
  options: GenerateOptions,
  file: HistoryFile | null,
  { plan: planned, locator, old, changes }: PlannedRun,
  segmentation: SegmentationConfig,
  stats: ProcessingStats,
  now: () => number,
): Promise<BuiltIndex> {
  const progress = options.onProgress ?? (() => undefined);
  const provider = options.provider;
  const generator: IndexGeneratorInfo = {
    summarizer: provider ? provider.name : 'local',
    model: provider ? provider.model : 'extractive',
    template: TEMPLATE_VERSION,
    segmentation,
  };
  const { plan, reuse } = options.incremental
    ? planIncrementalRun(old, planned, changes!, generator, { generative: provider?.generative ?? false, outputPath: options.outputPath, stats, onNotice: options.onNotice })
    : { plan: null, reuse: new Map<string, SegmentSummaryFields>() };

  const markersOf = new Map<string, IndexMarker[]>();
  for (const marker of planned.markers) {
    const list = markersOf.get(marker.segmentId) ?? [];
    list.push(marker);
    markersOf.set(marker.segmentId, list);
  }
  const cache = openSummaryCache(provider ? (options.cachePath === undefined ? cachePathFor(options.outputPath) : options.cachePath) : null, now, options.onNotice);
  const contentOptions = { overlapTokens: segmentation.segmentOverlap, maxChars: (segmentation.maxTokensPerSegment + segmentation.segmentOverlap) * CHARS_PER_TOKEN };
  // A segment's text is read back from the file when its summary is made. For the local summariser it is cut
  // down to what the summariser reads before the work starts, in a call of its own (its frame, and so every
  // prompt read, is gone when summarising allocates).
  const readBack = (ids: readonly string[]) => readPromptsBack(file!, locator, ids);
  const readSummaryInput = (ids: readonly string[]) => collectSummaryInput(readBack(ids));
  const jobs: SummaryJob[] = planned.segments
    .filter((segment) => !reuse.has(segment.id))
    .map((segment) => ({
      segmentId: segment.id,
      segmentHash: segment.hash,
      content: () => renderSegmentContent(segment, new Map(readBack([...segment.overlapPromptIds, ...segment.promptIds]).map((prompt) => [prompt.id, prompt])), contentOptions),
      local: () => summarizeInputLocally(readSummaryInput(segment.promptIds), markersOf.get(segment.id) ?? []),
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
  const index = assembleIndex(planned, outcomes, reuse, {
    historyFile: options.historyPath,
    generator,
    generatedAt: now(),
    processingTimeMs: Math.max(0, Math.round(now() - stats.startedAt)),
    llmCallCount: stats.llmCallCount,
  });
  return { index, plan, cache };
}

function checkSegmentation(config: SegmentationConfig): void {
  if (!Number.isInteger(config.maxTokensPerSegment) || config.maxTokensPerSegment < 1) {
    throw new MoonError('bad_usage', `maxTokensPerSegment must be a positive whole number, got ${config.maxTokensPerSegment}`);
  }
  if (!Number.isInteger(config.segmentOverlap) || config.segmentOverlap < 0) {
    throw new MoonError('bad_usage', `segmentOverlap must be a whole number of tokens, 0 or more, got ${config.segmentOverlap}`);
  }
}
