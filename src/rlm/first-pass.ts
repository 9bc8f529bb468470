import { existsSync } from 'node:fs';
import { DEFAULT_MARKER_CONFIG } from '../markers/extract.js';
import type { GenerateOptions } from './generator.js';
import type { PromptChanges } from './hashes.js';
import type { HistoryFile } from './history-file.js';
import { planIndex, type IndexPlan } from './index-plan.js';
import type { OldIndex, OldIndexReading } from './old-index.js';
import { outlineHistory, type HistoryOutline } from './outline.js';
import { createPromptLocator, type PromptLocator } from './prompt-text.js';
import type { ProcessingStats } from './stats.js';
import { countPromptsBack, matchOldPrompts } from './token-counts.js';
import type { SegmentationConfig } from './types.js';

/**
 * The generator's first pass and the plan made from it: the history outlined (outline.ts), token counts taken or
 * — on an incremental run — lent by the old index, read meanwhile (old-index.ts), and the index planned
 * (index-plan.ts). The outline lives only in here: what the summaries need of it (the plan, and where each
 * prompt lies in the file) is a fraction of its size.
 */
export interface PlannedRun {
  plan: IndexPlan;
  locator: PromptLocator;
  /** An incremental run's digest of the old index, and what changed since. */
  old: OldIndex | null;
  changes: PromptChanges | null;
}

export async function readAndPlan(options: GenerateOptions, file: HistoryFile, reading: Promise<OldIndexReading>, segmentation: SegmentationConfig, stats: ProcessingStats): Promise<PlannedRun> {
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

/** The plan of an outline (read, or empty when there is no history), with the run's statistics recorded. */
export function planOutline(
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

