import type { PromptChanges } from './hashes.js';
import type { PlannedSegment } from './segmenter.js';
import type { IndexGeneratorInfo, IndexSegment } from './types.js';

/**
 * The incremental updater (seed 004 §6). The current history is segmented afresh (cheap: token counts of
 * unchanged prompts come from the old index), and each new segment is compared with the old one of the same id
 * (`seg-<first prompt>`): the same hash → skipped, its summary kept; another hash → updated; no old one → added;
 * old ids no longer produced → removed (and with a model, a segment it failed on last time is updated). When more than half of all segments (old and new together) are affected,
 * regenerating everything is recommended — and done — as it is when the segmentation settings, the summariser
 * or the template changed, since no old summary is then comparable.
 */
export interface UpdatePlan {
  segmentsToAdd: string[];
  segmentsToUpdate: string[];
  segmentsToRemove: string[];
  segmentsUnchanged: string[];
  /** Model calls the update will make (segments to summarise; 0 with the local summariser). */
  estimatedCost: number;
  promptChanges: PromptChanges;
  /** Affected segments over all segments, old and new. */
  affectedRatio: number;
  /** Set when the settings alone force a full reindex. */
  settingsChanged: string | null;
}

export const FULL_REINDEX_RATIO = 0.5;

/** What the plan needs of the old index: its settings and its segments' ids, hashes and summary sources. */
export interface PlannedAgainst {
  generator: IndexGeneratorInfo;
  segments: ReadonlyArray<Pick<IndexSegment, 'id' | 'hash' | 'summarySource'>>;
}

export function planUpdate(
  existing: PlannedAgainst,
  segments: readonly PlannedSegment[],
  promptChanges: PromptChanges,
  generator: IndexGeneratorInfo,
  generative: boolean,
): UpdatePlan {
  const old = new Map(existing.segments.map((segment) => [segment.id, segment]));
  const current = new Set(segments.map((segment) => segment.id));
  const segmentsToAdd: string[] = [];
  const segmentsToUpdate: string[] = [];
  const segmentsUnchanged: string[] = [];
  for (const segment of segments) {
    const before = old.get(segment.id);
    if (!before) segmentsToAdd.push(segment.id);
    // A segment the model failed on last time (it got the local summary) is asked again.
    else if (before.hash !== segment.hash || (generative && before.summarySource === 'local')) segmentsToUpdate.push(segment.id);
    else segmentsUnchanged.push(segment.id);
  }
  const segmentsToRemove = existing.segments.filter((segment) => !current.has(segment.id)).map((segment) => segment.id);
  const all = segments.length + segmentsToRemove.length;
  const affected = segmentsToAdd.length + segmentsToUpdate.length + segmentsToRemove.length;
  return {
    segmentsToAdd,
    segmentsToUpdate,
    segmentsToRemove,
    segmentsUnchanged,
    estimatedCost: generative ? segmentsToAdd.length + segmentsToUpdate.length : 0,
    promptChanges,
    affectedRatio: all === 0 ? 0 : affected / all,
    settingsChanged: compareSettings(existing.generator, generator),
  };
}

/** Seed 004: more than half the segments affected → a full reindex is the cheaper, cleaner run. */
export function shouldFullReindex(plan: UpdatePlan): boolean {
  return plan.settingsChanged !== null || plan.affectedRatio > FULL_REINDEX_RATIO;
}

/** Why a full reindex is done, in words for the stats. */
export function describeFullReindex(plan: UpdatePlan): string {
  if (plan.settingsChanged) return plan.settingsChanged;
  const percent = Math.round(plan.affectedRatio * 100);
  return `${percent}% of segments affected (more than ${FULL_REINDEX_RATIO * 100}%)`;
}

function compareSettings(before: IndexGeneratorInfo, now: IndexGeneratorInfo): string | null {
  const a = before.segmentation;
  const b = now.segmentation;
  if (a.maxTokensPerSegment !== b.maxTokensPerSegment || a.segmentOverlap !== b.segmentOverlap || a.preferNaturalBoundaries !== b.preferNaturalBoundaries) {
    return 'the segmentation settings changed';
  }
  if (before.summarizer !== now.summarizer || before.model !== now.model) return `the summariser changed (${before.summarizer}/${before.model} → ${now.summarizer}/${now.model})`;
  if (before.template !== now.template) return 'the summary template changed';
  return null;
}

export type SegmentSummaryFields = Pick<IndexSegment, 'summary' | 'topics' | 'keyEntities' | 'importanceScore' | 'summarySource'>;

/** An unchanged segment's summary fields, carried over. */
export function carrySummary(segment: SegmentSummaryFields): SegmentSummaryFields {
  return {
    summary: segment.summary,
    topics: segment.topics,
    keyEntities: segment.keyEntities,
    importanceScore: segment.importanceScore,
    summarySource: segment.summarySource,
  };
}
