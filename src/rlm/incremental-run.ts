import type { PromptChanges } from './hashes.js';
import { describeFullReindex, planUpdate, shouldFullReindex, type SegmentSummaryFields, type UpdatePlan } from './incremental.js';
import type { IndexPlan } from './index-plan.js';
import type { OldIndex } from './old-index.js';
import type { ProcessingStats } from './stats.js';
import type { IndexGeneratorInfo } from './types.js';

/**
 * What an incremental run keeps: with an index to update, the plan (added, updated, removed, unchanged segments)
 * and the unchanged segments whose summaries carry over — none when a full reindex is due; the statistics say
 * which it was.
 */
export interface IncrementalRun {
  plan: UpdatePlan | null;
  reuse: Map<string, SegmentSummaryFields>;
}

export interface IncrementalContext {
  generative: boolean;
  outputPath: string;
  stats: ProcessingStats;
  onNotice?: ((message: string) => void) | undefined;
}

/** `changes`: the prompts added, modified and removed since the old index (token-counts.ts's matchOldPrompts). */
export function planIncrementalRun(existing: OldIndex | null, planned: IndexPlan, changes: PromptChanges, generator: IndexGeneratorInfo, context: IncrementalContext): IncrementalRun {
  const { stats, onNotice } = context;
  let plan: UpdatePlan | null = null;
  let reuse = new Map<string, SegmentSummaryFields>();
  const segments = planned.segments;
  if (existing) {
    plan = planUpdate(existing, segments, changes, generator, context.generative);
    const full = shouldFullReindex(plan);
    if (full) onNotice?.(`full reindex: ${describeFullReindex(plan)}`);
    else {
      const unchanged = new Set(plan.segmentsUnchanged);
      reuse = new Map(existing.segments.filter((segment) => unchanged.has(segment.id)).map((segment) => [segment.id, segment]));
    }
    stats.setIncrementalStats({
      segmentsSkipped: full ? 0 : plan.segmentsUnchanged.length,
      segmentsUpdated: full ? segments.length - plan.segmentsToAdd.length : plan.segmentsToUpdate.length,
      segmentsAdded: plan.segmentsToAdd.length,
      segmentsRemoved: plan.segmentsToRemove.length,
      promptsAdded: changes.added.length,
      promptsModified: changes.modified.length,
      promptsRemoved: changes.removed.length,
      fullReindex: full,
      fullReindexReason: full ? describeFullReindex(plan) : null,
    });
  } else {
    onNotice?.(`no index at ${context.outputPath} yet: building it whole`);
    stats.setIncrementalStats({
      segmentsSkipped: 0,
      segmentsUpdated: 0,
      segmentsAdded: segments.length,
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

