import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderTurn } from '../../src/rlm/content.js';
import { hashPrompt } from '../../src/rlm/hashes.js';
import { DEFAULT_SEGMENTATION, isAnchorTree, listConversationTrees, segmentHistory, type SegmentInputs } from '../../src/rlm/segmenter.js';
import { parsePuffinHistory, type ParsedHistory } from '../../src/sources/puffin-history.js';
import { buildHistory, buildLongHistory, buildSampleHistory, countTokens } from './history-builder.js';

const real = parsePuffinHistory(JSON.parse(readFileSync(new URL('../fixtures/puffin/history-real-subset-small.json', import.meta.url), 'utf8')));

async function inputsFor(history: ParsedHistory, count: (texts: string[]) => Promise<number[]> = countTokens): Promise<SegmentInputs & { tokens: Map<string, number> }> {
  const prompts = history.branches.flatMap((branch) => branch.prompts);
  const counts = await count(prompts.map(renderTurn));
  const tokens = new Map(prompts.map((prompt, index) => [prompt.id, counts[index]!]));
  const hashes = new Map(prompts.map((prompt) => [prompt.id, hashPrompt(prompt)]));
  return { tokens, tokensOf: (id) => tokens.get(id)!, hashOf: (id) => hashes.get(id)! };
}

function expectPartition(history: ParsedHistory, segments: ReturnType<typeof segmentHistory>): void {
  const all = history.branches.flatMap((branch) => branch.prompts.map((prompt) => prompt.id));
  const placed = segments.flatMap((segment) => segment.promptIds);
  expect(placed.sort()).toEqual([...all].sort());
  expect(new Set(segments.map((segment) => segment.id)).size).toBe(segments.length);
}

describe('segmenter on the real Puffin subset', () => {
  it('puts every prompt in exactly one segment, whole trees together, branch by branch', async () => {
    const inputs = await inputsFor(real);
    const segments = segmentHistory(real, inputs);
    expectPartition(real, segments);
    const branchOf = new Map(real.branches.flatMap((branch) => branch.prompts.map((prompt) => [prompt.id, branch.id] as const)));
    for (const segment of segments) {
      for (const id of segment.promptIds) expect(branchOf.get(id)).toBe(segment.branchId);
      expect(segment.tokenCount).toBe(segment.promptIds.reduce((sum, id) => sum + inputs.tokens.get(id)!, 0));
      expect(segment.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(segment.id).toBe(`seg-${segment.promptIds[0]}`);
      expect(segment.startTimestamp).toBeLessThanOrEqual(segment.endTimestamp);
      // Under the default 50,000 tokens, nothing is split: no overlap anywhere.
      expect(segment.overlapPromptIds).toEqual([]);
    }
    // Empty branches yield no segment.
    expect(segments.some((segment) => segment.branchId === 'architecture')).toBe(false);
  });

  it('starts a tree at a dangling parent and walks a fork depth first', () => {
    const specs = real.branches.find((branch) => branch.id === 'specifications')!;
    const trees = listConversationTrees(specs);
    expect(trees.flatMap((tree) => tree.prompts).length).toBe(specs.prompts.length);
    const dangling = specs.prompts.find((prompt) => prompt.parentMissing);
    if (dangling) expect(trees.some((tree) => tree.rootId === dangling.id)).toBe(true);
    const derivation = specs.prompts.find((prompt) => prompt.kind === 'derivation')!;
    const tree = trees.find((item) => item.rootId === derivation.id)!;
    expect(tree.prompts[0]!.id).toBe(derivation.id);
    const order = tree.prompts.map((prompt) => prompt.id);
    for (const child of derivation.children) expect(order).toContain(child);
    // Depth first: every prompt comes after its parent, and each child's whole thread before the next child.
    tree.prompts.slice(1).forEach((prompt, index) => {
      expect(prompt.depth).toBeGreaterThan(0);
      expect(order.indexOf(prompt.parentId!)).toBeLessThan(index + 1);
    });
    const firstChildren = derivation.children.map((id) => order.indexOf(id)).sort((a, b) => a - b);
    for (let i = 1; i < firstChildren.length; i++) {
      const between = tree.prompts.slice(firstChildren[i - 1]! + 1, firstChildren[i]!);
      expect(between.every((prompt) => prompt.depth > 1)).toBe(true);
    }
  });

  it('splits a tree over the budget between turns, giving each later piece its ancestors as overlap', async () => {
    const inputs = await inputsFor(real);
    const segments = segmentHistory(real, inputs, { ...DEFAULT_SEGMENTATION, maxTokensPerSegment: 3_000, segmentOverlap: 500 });
    expectPartition(real, segments);
    const reviews = segments.filter((segment) => segment.branchId === 'code-reviews');
    // Two prompts of ~1.8k and ~2.8k tokens in one thread: one piece each, the second with its parent as context.
    expect(reviews).toHaveLength(2);
    expect(reviews[1]!.overlapPromptIds).toEqual([reviews[0]!.promptIds[0]]);
    for (const segment of segments) {
      if (segment.promptIds.length > 1) expect(segment.tokenCount).toBeLessThanOrEqual(3_000);
    }
  });
});

describe('segmenter rules', () => {
  it('keeps a single prompt over the budget whole, in a segment of its own', async () => {
    const history = parsePuffinHistory(buildHistory([{ id: 'b', prompts: [{ id: 'big', content: 'word '.repeat(4_000) }, { id: 'small', content: 'hello there' }] }]));
    const segments = segmentHistory(history, await inputsFor(history), { ...DEFAULT_SEGMENTATION, maxTokensPerSegment: 500 });
    expect(segments.map((segment) => segment.promptIds)).toEqual([['big'], ['small']]);
    expect(segments[0]!.tokenCount).toBeGreaterThan(500);
  });

  it('takes ancestors nearest first within the overlap budget, and none for a piece starting at a root', async () => {
    const chain = Array.from({ length: 8 }, (_, i) => ({ id: `c${i}`, parentId: i === 0 ? null : `c${i - 1}`, content: `turn ${i} ${'x '.repeat(150)}` }));
    const history = parsePuffinHistory(buildHistory([{ id: 'b', prompts: chain }]));
    const inputs = await inputsFor(history);
    const perTurn = inputs.tokens.get('c3')!;
    const segments = segmentHistory(history, inputs, { maxTokensPerSegment: perTurn * 3, segmentOverlap: perTurn * 2, preferNaturalBoundaries: true });
    expectPartition(history, segments);
    expect(segments[0]!.overlapPromptIds).toEqual([]);
    for (const segment of segments.slice(1)) {
      const first = Number(segment.promptIds[0]!.slice(1));
      expect(segment.overlapPromptIds).toEqual([`c${first - 2}`, `c${first - 1}`]);
    }
    const none = segmentHistory(history, inputs, { maxTokensPerSegment: perTurn * 3, segmentOverlap: 0, preferNaturalBoundaries: true });
    expect(none.every((segment) => segment.overlapPromptIds.length === 0)).toBe(true);
  });

  it('without natural boundaries, cuts one run of turns wherever the budget is full', async () => {
    const history = parsePuffinHistory(buildSampleHistory());
    const inputs = await inputsFor(history);
    const natural = segmentHistory(history, inputs, { maxTokensPerSegment: 200, segmentOverlap: 100, preferNaturalBoundaries: true });
    const flat = segmentHistory(history, inputs, { maxTokensPerSegment: 200, segmentOverlap: 100, preferNaturalBoundaries: false });
    expectPartition(history, natural);
    expectPartition(history, flat);
    for (const segment of flat) if (segment.promptIds.length > 1) expect(segment.tokenCount).toBeLessThanOrEqual(200);
  });

  it('resynchronises after a tree grows: later segments keep their ids and hashes', async () => {
    const json = buildLongHistory({ branches: 1, threads: 120, depth: 3, chars: 300 });
    const before = parsePuffinHistory(json);
    const config = { maxTokensPerSegment: 2_000, segmentOverlap: 200, preferNaturalBoundaries: true };
    const old = segmentHistory(before, await inputsFor(before), config);
    expect(old.length).toBeGreaterThan(20);
    // Thread 10 grows by a long answer: its segment overflows and pushes a tree into the next one.
    const grown = structuredClone(json) as { branches: Record<string, { prompts: Array<{ id: string; response: { content: string } }> }> };
    grown.branches['branch-0']!.prompts.find((prompt) => prompt.id === 't10-d2')!.response.content += ' more'.repeat(400);
    const after = parsePuffinHistory(grown);
    const now = segmentHistory(after, await inputsFor(after), config);
    const oldById = new Map(old.map((segment) => [segment.id, segment.hash]));
    const changed = now.filter((segment) => oldById.get(segment.id) !== segment.hash).length + old.filter((segment) => !now.some((item) => item.id === segment.id)).length;
    expect(changed).toBeGreaterThan(0);
    expect(changed).toBeLessThan(old.length / 4);
  });

  it('anchors are a property of the root id alone, about one tree in four', () => {
    const ids = Array.from({ length: 4_000 }, (_, i) => `root-${i}`);
    const share = ids.filter(isAnchorTree).length / ids.length;
    expect(share).toBeGreaterThan(0.2);
    expect(share).toBeLessThan(0.3);
    expect(isAnchorTree('root-7')).toBe(isAnchorTree('root-7'));
  });
});
