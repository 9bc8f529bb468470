import { hashHistory } from './hashes.js';
import { carrySummary, type SegmentSummaryFields } from './incremental.js';
import type { IndexPlan } from './index-plan.js';
import type { SummaryOutcome } from './summaries.js';
import { HISTORY_INDEX_VERSION, type HistoryIndex, type IndexGeneratorInfo, type IndexSegment } from './types.js';

/** The index from its plan and the segments' summaries: new ones, or those an incremental run carries over. */
export function assembleIndex(
  planned: IndexPlan,
  outcomes: ReadonlyMap<string, SummaryOutcome>,
  reuse: ReadonlyMap<string, SegmentSummaryFields>,
  context: { historyFile: string; generator: IndexGeneratorInfo; generatedAt: number; processingTimeMs: number; llmCallCount: number },
): HistoryIndex {
  const segments: IndexSegment[] = planned.segments.map((segment) => {
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
  const { markers, branches, prompts } = planned;
  return {
    version: HISTORY_INDEX_VERSION,
    generatedAt: new Date(context.generatedAt).toISOString(),
    historyFile: context.historyFile,
    contentHash: hashHistory(branches.map((branch) => branch.hash)),
    generator: context.generator,
    segments,
    markers,
    topicIndex,
    branches,
    prompts,
    statistics: {
      totalPrompts: prompts.length,
      totalSegments: segments.length,
      totalMarkers: markers.length,
      processingTimeMs: context.processingTimeMs,
      llmCallCount: context.llmCallCount,
    },
  };
}
