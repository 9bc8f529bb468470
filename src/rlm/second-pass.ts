import { assembleIndex } from './assemble.js';
import { CHARS_PER_TOKEN, renderSegmentContent } from './content.js';
import type { PlannedRun } from './first-pass.js';
import type { GenerateOptions } from './generator.js';
import type { HistoryFile } from './history-file.js';
import type { SegmentSummaryFields, UpdatePlan } from './incremental.js';
import { planIncrementalRun } from './incremental-run.js';
import { readPromptsBack } from './prompt-text.js';
import type { ProcessingStats } from './stats.js';
import { cachePathFor, openSummaryCache, type SummaryCache } from './summary-cache.js';
import { collectSummaryInput, summarizeInputLocally } from './summary-local.js';
import { TEMPLATE_VERSION } from './summary-prompt.js';
import { summarizeSegments, type SummaryJob } from './summaries.js';
import type { HistoryIndex, IndexGeneratorInfo, IndexMarker, SegmentationConfig } from './types.js';

export interface BuiltIndex {
  index: HistoryIndex;
  plan: UpdatePlan | null;
  cache: SummaryCache;
}

/**
 * The generator's second pass: the summaries of the segments to (re)generate — each segment's prompts read back
 * from the file when its summary is made — then the index.
 */
export async function summarizePlan(
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

