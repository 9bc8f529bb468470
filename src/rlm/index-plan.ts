import { hashBranch } from './hashes.js';
import { collectHistoryMarkers } from './markers.js';
import type { HistoryOutline, OutlinedPrompt } from './outline.js';
import { segmentHistory, type PlannedSegment } from './segmenter.js';
import type { IndexBranch, IndexMarker, IndexPrompt, SegmentationConfig } from './types.js';

/**
 * Everything of the index that the outline decides, before any summary: the segments, the markers (each with
 * its segment), the branches with their hashes, and the per-prompt rows (id, hash, tokens) in history order.
 * What is left to do is summarising the segments — for which the outline is no longer needed.
 */
export interface IndexPlan {
  segments: PlannedSegment[];
  markers: IndexMarker[];
  branches: IndexBranch[];
  prompts: IndexPrompt[];
}

/** `rowOf`: each prompt's row (its place in history order, as the locator numbers them). */
export function planIndex(outline: HistoryOutline, rowOf: ReadonlyMap<string, number>, segmentation: SegmentationConfig): IndexPlan {
  const rows: OutlinedPrompt[] = [];
  for (const branch of outline.branches) for (const prompt of branch.prompts) rows.push(prompt);
  const find = (id: string): OutlinedPrompt | undefined => {
    const row = rowOf.get(id);
    return row === undefined ? undefined : rows[row];
  };
  const segments = segmentHistory(outline, { tokensOf: (id) => find(id)?.tokens ?? 0, hashOf: (id) => find(id)!.hash }, segmentation);
  // The segment of each prompt with markers (few have any).
  const marked = new Set(rows.filter((prompt) => prompt.markers !== null).map((prompt) => prompt.id));
  const segmentOf = new Map<string, string>();
  const segmentsOfBranch = new Map<string, string[]>();
  for (const segment of segments) {
    for (const id of segment.promptIds) if (marked.has(id)) segmentOf.set(id, segment.id);
    const list = segmentsOfBranch.get(segment.branchId) ?? [];
    list.push(segment.id);
    segmentsOfBranch.set(segment.branchId, list);
  }
  const branches: IndexBranch[] = outline.branches.map((branch) => ({
    id: branch.id,
    name: branch.name,
    hash: hashBranch(branch.id, branch.prompts.map((prompt) => prompt.hash)),
    promptCount: branch.prompts.length,
    segmentIds: segmentsOfBranch.get(branch.id) ?? [],
  }));
  const prompts: IndexPrompt[] = rows.map((prompt) => ({ id: prompt.id, hash: prompt.hash, tokens: prompt.tokens }));
  return { segments, markers: collectHistoryMarkers(outline, segmentOf), branches, prompts };
}
