import { hash } from 'node:crypto';
import type { LinkablePrompt } from '../sources/puffin-history.js';
import { hashSegment } from './hashes.js';
import type { SegmentationConfig } from './types.js';

/**
 * The content segmenter (seed 004 §3). A branch is cut into conversation trees (a prompt with no parent, or whose
 * parent is missing, starts one); trees are packed whole, in the order they begin, into segments of at most
 * `maxTokensPerSegment` tokens; a tree too large alone is split between turns (never inside a prompt), and each
 * piece after the first is given the turns leading up to it — its first prompt's ancestors, nearest first, up to
 * `segmentOverlap` tokens — as context. Every prompt lands in exactly one segment.
 *
 * Packing stops early after an *anchor* tree (one whose root id hashes to a multiple of four) once the segment
 * holds a quarter of the budget. Anchors depend on ids, not sizes, so when a tree grows and pushes the boundary
 * after it, the segments resynchronise at the next anchor instead of every later segment of the branch shifting
 * — which is what keeps an incremental run's regenerated segments few.
 */
export const DEFAULT_SEGMENTATION: SegmentationConfig = {
  maxTokensPerSegment: 50_000,
  segmentOverlap: 2_000,
  preferNaturalBoundaries: true,
};

/** A segment before it is summarised. */
export interface PlannedSegment {
  id: string;
  branchId: string;
  promptIds: string[];
  overlapPromptIds: string[];
  tokenCount: number;
  hash: string;
  startTimestamp: number;
  endTimestamp: number;
}

export interface SegmentInputs {
  /** Tokens of a prompt's rendered turn (renderTurn). */
  tokensOf(promptId: string): number;
  hashOf(promptId: string): string;
}

/** A conversation tree: its root and every prompt reachable from it, parents before children (depth first). */
export interface ConversationTree<P extends LinkablePrompt = LinkablePrompt> {
  rootId: string;
  prompts: P[];
}

/** What is segmented: branches of prompts, parsed or only outlined (the segmenter needs no text). */
export interface SegmentableBranch<P extends LinkablePrompt = LinkablePrompt> {
  id: string;
  prompts: readonly P[];
}

/**
 * A branch's conversation trees, in the order their roots appear. Within a tree, depth first with children in
 * the order they were written, so each thread of a fork stays together. A prompt no walk reaches (a cycle the
 * parser broke oddly) still gets its own tree.
 */
export function listConversationTrees<P extends LinkablePrompt>(branch: SegmentableBranch<P>): Array<ConversationTree<P>> {
  const byId = new Map(branch.prompts.map((prompt) => [prompt.id, prompt]));
  const visited = new Set<string>();
  const trees: Array<ConversationTree<P>> = [];
  const walk = (root: P): P[] => {
    const out: P[] = [];
    const stack: P[] = [root];
    while (stack.length > 0) {
      const prompt = stack.pop()!;
      if (visited.has(prompt.id)) continue;
      visited.add(prompt.id);
      out.push(prompt);
      if (prompt.children.length === 0) continue;
      const children: P[] = [];
      for (const id of prompt.children) {
        const child = byId.get(id);
        if (child !== undefined && !visited.has(child.id) && child.rootId === root.rootId) children.push(child);
      }
      if (children.length > 1) children.sort((a, b) => a.position - b.position);
      for (let index = children.length - 1; index >= 0; index -= 1) stack.push(children[index]!);
    }
    return out;
  };
  for (const prompt of branch.prompts) {
    if (visited.has(prompt.id)) continue;
    if (prompt.rootId === prompt.id) trees.push({ rootId: prompt.id, prompts: walk(prompt) });
  }
  for (const prompt of branch.prompts) {
    if (!visited.has(prompt.id)) trees.push({ rootId: prompt.id, prompts: walk(prompt) });
  }
  return trees;
}

/** Whether a tree may end a segment early (see the module comment). */
export function isAnchorTree(rootId: string): boolean {
  return hash('sha256', rootId, 'buffer')[0]! % 4 === 0;
}

/** Segments of the whole history, branch by branch in display order. */
export function segmentHistory(history: { branches: readonly SegmentableBranch[] }, inputs: SegmentInputs, config: SegmentationConfig = DEFAULT_SEGMENTATION): PlannedSegment[] {
  const segments: PlannedSegment[] = [];
  for (const branch of history.branches) {
    for (const segment of segmentBranch(branch, inputs, config)) segments.push(segment);
  }
  return segments;
}

export function segmentBranch(branch: SegmentableBranch, inputs: SegmentInputs, config: SegmentationConfig): PlannedSegment[] {
  const max = Math.max(1, config.maxTokensPerSegment);
  const byId = new Map(branch.prompts.map((prompt) => [prompt.id, prompt]));
  const trees = listConversationTrees(branch);
  const out: PlannedSegment[] = [];
  const close = (prompts: LinkablePrompt[]): void => {
    if (prompts.length === 0) return;
    out.push(buildSegment(branch.id, prompts, findOverlap(prompts[0]!, byId, inputs, config.segmentOverlap), inputs));
  };
  if (!config.preferNaturalBoundaries) {
    // One run of turns, trees in order: cut wherever the budget is full.
    let current: LinkablePrompt[] = [];
    let tokens = 0;
    for (const tree of trees) {
      for (const prompt of tree.prompts) {
        const size = inputs.tokensOf(prompt.id);
        if (current.length > 0 && tokens + size > max) {
          close(current);
          current = [];
          tokens = 0;
        }
        current.push(prompt);
        tokens += size;
      }
    }
    close(current);
    return out;
  }
  let current: LinkablePrompt[] = [];
  let tokens = 0;
  for (const tree of trees) {
    let treeTokens = 0;
    for (const prompt of tree.prompts) treeTokens += inputs.tokensOf(prompt.id);
    if (treeTokens > max) {
      close(current);
      current = [];
      tokens = 0;
      for (const piece of splitTree(tree.prompts, inputs, max)) close(piece);
      continue;
    }
    if (current.length > 0 && tokens + treeTokens > max) {
      close(current);
      current = [];
      tokens = 0;
    }
    for (const prompt of tree.prompts) current.push(prompt);
    tokens += treeTokens;
    if (tokens * 4 >= max && isAnchorTree(tree.rootId)) {
      close(current);
      current = [];
      tokens = 0;
    }
  }
  close(current);
  return out;
}

/** A tree over the budget, cut between turns; a single prompt over the budget is a piece of its own. */
function splitTree(prompts: readonly LinkablePrompt[], inputs: SegmentInputs, max: number): LinkablePrompt[][] {
  const pieces: LinkablePrompt[][] = [];
  let current: LinkablePrompt[] = [];
  let tokens = 0;
  for (const prompt of prompts) {
    const size = inputs.tokensOf(prompt.id);
    if (current.length > 0 && tokens + size > max) {
      pieces.push(current);
      current = [];
      tokens = 0;
    }
    current.push(prompt);
    tokens += size;
  }
  if (current.length > 0) pieces.push(current);
  return pieces;
}

/**
 * The context given before a segment that starts inside a conversation: its first prompt's ancestors, nearest
 * first, while they fit `budget` tokens (the nearest is always taken, cut when rendered). None for a root.
 */
export function findOverlap(first: LinkablePrompt, byId: ReadonlyMap<string, LinkablePrompt>, inputs: SegmentInputs, budget: number): string[] {
  if (budget <= 0 || first.parentId === null || first.parentMissing) return [];
  const ids: string[] = [];
  let used = 0;
  const seen = new Set<string>([first.id]);
  let parent = byId.get(first.parentId);
  while (parent && !seen.has(parent.id)) {
    seen.add(parent.id);
    const size = inputs.tokensOf(parent.id);
    if (ids.length > 0 && used + size > budget) break;
    ids.push(parent.id);
    used += size;
    if (used >= budget || parent.parentId === null || parent.parentMissing) break;
    parent = byId.get(parent.parentId);
  }
  // Oldest first, as they were said.
  return ids.reverse();
}

function buildSegment(branchId: string, prompts: readonly LinkablePrompt[], overlapPromptIds: string[], inputs: SegmentInputs): PlannedSegment {
  let tokens = 0;
  let start = Infinity;
  let end = -Infinity;
  const promptIds: string[] = [];
  const hashes: string[] = [];
  for (const prompt of prompts) {
    promptIds.push(prompt.id);
    hashes.push(inputs.hashOf(prompt.id));
    tokens += inputs.tokensOf(prompt.id);
    start = Math.min(start, prompt.timestamp);
    end = Math.max(end, prompt.timestamp, prompt.response?.timestamp ?? prompt.timestamp);
  }
  return {
    id: `seg-${promptIds[0]!}`,
    branchId,
    promptIds,
    overlapPromptIds,
    tokenCount: tokens,
    hash: hashSegment(branchId, overlapPromptIds.map((id) => inputs.hashOf(id)), hashes),
    startTimestamp: start,
    endTimestamp: end,
  };
}
