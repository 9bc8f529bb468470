import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { MoonError } from '../errors.js';
import type { Provider } from '../llm/provider.js';
import { acquireLockWaiting } from '../lock/wait-lock.js';
import type { MarkerConfig } from '../markers/extract.js';
import { planOutline, readAndPlan } from './first-pass.js';
import { openHistoryFile } from './history-file.js';
import type { UpdatePlan } from './incremental.js';
import { startReadingOldIndex, type OldIndexReading } from './old-index.js';
import { createEmptyOutline } from './outline.js';
import { createPromptLocator } from './prompt-text.js';
import { summarizePlan, type BuiltIndex } from './second-pass.js';
import { DEFAULT_SEGMENTATION } from './segmenter.js';
import { writeIndex } from './serializer.js';
import { ProcessingStats } from './stats.js';
import type { HistoryIndex, ProcessingStatistics, SegmentationConfig } from './types.js';

/**
 * The index generator (seed 004, main entry point): history → hashes → token counts → segments → markers →
 * summaries → one validated index written atomically, under a lock on the output path (waited for up to 30 s).
 * An incremental run keeps every unchanged segment's summary and asks only for the affected ones — or
 * regenerates everything when more than half are affected (seed 004 §6), saying so in the statistics.
 *
 * The history is read in two passes, so that its text is never held whole (first-pass.ts, second-pass.ts): the
 * outline (outline.ts) streams the file once and keeps, per prompt, its tree links, hash, token count, markers
 * and byte range; the segments are planned from that; then each segment to summarise has its prompts read back
 * from the file (prompt-text.ts) — every segment on a full run, one at a time; only the affected ones on an
 * incremental run. The index already at the output is read, and validated, meanwhile (old-index.ts).
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

function checkSegmentation(config: SegmentationConfig): void {
  if (!Number.isInteger(config.maxTokensPerSegment) || config.maxTokensPerSegment < 1) {
    throw new MoonError('bad_usage', `maxTokensPerSegment must be a positive whole number, got ${config.maxTokensPerSegment}`);
  }
  if (!Number.isInteger(config.segmentOverlap) || config.segmentOverlap < 0) {
    throw new MoonError('bad_usage', `segmentOverlap must be a whole number of tokens, 0 or more, got ${config.segmentOverlap}`);
  }
}
