import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MoonError } from '../../src/errors.js';
import type { Provider } from '../../src/llm/provider.js';
import { generateHistoryIndex, type GenerateOptions } from '../../src/rlm/generator.js';
import { readIndex } from '../../src/rlm/serializer.js';
import { buildSampleHistory, countTokens, type Json } from './history-builder.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'moon-rlm-inc-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type History = { branches: Record<string, { id: string; name: string; prompts: Array<Json & { id: string; content: string }> }>; branchOrder: string[] };

/** A model that answers every segment, counting the calls; `fail` makes it fail instead. */
function countingProvider(): Provider & { calls: string[]; fail: boolean } {
  const provider = {
    name: 'openai-compatible' as const,
    model: 'counting',
    generative: true,
    calls: [] as string[],
    fail: false,
    async complete(prompt: string) {
      const first = /\[prompt (\S+)/.exec(prompt)?.[1] ?? '?';
      provider.calls.push(first);
      if (provider.fail) throw new MoonError('io', 'HTTP 503');
      return JSON.stringify({ summary: `Summary starting at ${first}.`, topics: ['history', first], keyEntities: [], importanceScore: 0.5 });
    },
  };
  return provider;
}

function writeHistory(history: unknown): string {
  const path = join(dir, 'history.json');
  writeFileSync(path, JSON.stringify(history, null, 2));
  return path;
}

const out = () => join(dir, 'index.json');
const run = (history: unknown, options: Partial<GenerateOptions> = {}) =>
  generateHistoryIndex({ historyPath: writeHistory(history), outputPath: out(), incremental: true, provider: null, countTokens, summaries: { retryBaseMs: 1 }, ...options });

function edit(history: History, id: string, change: (prompt: Json & { content: string }) => void): History {
  const copy = structuredClone(history);
  for (const branch of Object.values(copy.branches)) for (const prompt of branch.prompts) if (prompt.id === id) change(prompt);
  return copy;
}

describe('incremental updates', () => {
  const base = buildSampleHistory() as unknown as History;

  it('regenerates only the segment of one edited prompt, keeping every other summary as it was', async () => {
    const provider = countingProvider();
    const first = await run(base, { provider, incremental: false });
    expect(first.index.segments).toHaveLength(4);
    expect(provider.calls).toHaveLength(4);
    provider.calls.length = 0;
    const counted: string[] = [];
    const second = await run(
      edit(base, 'p-spec-2', (prompt) => (prompt.content = 'What about the config keys? And the defaults?')),
      { provider, countTokens: async (texts) => (counted.push(...texts), countTokens(texts)) },
    );
    expect(provider.calls).toEqual(['p-spec-1']);
    // Token counts of unchanged prompts come from the old index: only the edited prompt's turn is counted.
    const turns = counted.filter((text) => text.startsWith('[prompt '));
    expect(turns).toHaveLength(1);
    expect(turns[0]).toContain('And the defaults?');
    const edited = second.index.segments.find((segment) => segment.promptIds.includes('p-spec-2'))!;
    expect(second.plan).toMatchObject({ segmentsToUpdate: [edited.id], segmentsToAdd: [], segmentsToRemove: [], promptChanges: { added: [], modified: ['p-spec-2'], removed: [] } });
    expect(second.stats.incrementalStats).toEqual({
      segmentsSkipped: 3,
      segmentsUpdated: 1,
      segmentsAdded: 0,
      segmentsRemoved: 0,
      promptsAdded: 0,
      promptsModified: 1,
      promptsRemoved: 0,
      fullReindex: false,
      fullReindexReason: null,
    });
    expect(second.stats.llmCalls.count).toBe(1);
    for (const segment of second.index.segments) {
      const before = first.index.segments.find((item) => item.id === segment.id)!;
      if (segment.id === edited.id) expect(segment.hash).not.toBe(before.hash);
      else expect(segment).toEqual(before);
    }
    expect(second.index.contentHash).not.toBe(first.index.contentHash);
    expect(readIndex(out())).toEqual(second.index);
  });

  it('skips everything when nothing changed, and ignores whitespace-only edits', async () => {
    const provider = countingProvider();
    const first = await run(base, { provider, incremental: false });
    provider.calls.length = 0;
    const again = await run(edit(base, 'p-spec-1', (prompt) => (prompt.content = `  ${prompt.content.replace(/\n/g, '\n\n')}  `)), { provider });
    expect(provider.calls).toEqual([]);
    expect(again.stats.incrementalStats).toMatchObject({ segmentsSkipped: 4, segmentsUpdated: 0, segmentsAdded: 0, promptsModified: 0 });
    expect(again.index.contentHash).toBe(first.index.contentHash);
  });

  it('adds the segment of a new branch and removes the segment of an emptied one', async () => {
    const provider = countingProvider();
    await run(base, { provider, incremental: false });
    provider.calls.length = 0;
    const changed = structuredClone(base);
    changed.branches.plugin!.prompts = [];
    changed.branches.docs = { id: 'docs', name: 'Docs', prompts: [{ id: 'p-doc-1', parentId: null, content: 'Write the README.', timestamp: Date.UTC(2026, 1, 1), response: null, children: [] }] };
    const { stats, index, plan } = await run(changed, { provider });
    expect(provider.calls).toEqual(['p-doc-1']);
    expect(plan).toMatchObject({ segmentsToAdd: ['seg-p-doc-1'], segmentsToRemove: ['seg-p-plug-1'] });
    expect(stats.incrementalStats).toMatchObject({ segmentsSkipped: 3, segmentsUpdated: 0, segmentsAdded: 1, segmentsRemoved: 1, promptsAdded: 1, promptsRemoved: 1, fullReindex: false });
    expect(index.segments.map((segment) => segment.id)).not.toContain('seg-p-plug-1');
    expect(index.branches.find((branch) => branch.id === 'plugin')).toMatchObject({ promptCount: 0, segmentIds: [] });
  });

  it('reindexes fully — recommended and done, said in the stats — when more than half the segments are affected', async () => {
    const provider = countingProvider();
    await run(base, { provider, incremental: false });
    provider.calls.length = 0;
    let changed = base;
    for (const id of ['p-spec-1', 'p-bug-1', 'aaaa1111bbbb2222']) changed = edit(changed, id, (prompt) => (prompt.content += ' (edited)'));
    const notices: string[] = [];
    const { stats, plan } = await run(changed, { provider, onNotice: (message) => notices.push(message) });
    expect(plan!.affectedRatio).toBe(0.75);
    expect(stats.incrementalStats).toMatchObject({ fullReindex: true, fullReindexReason: '75% of segments affected (more than 50%)', segmentsSkipped: 0, segmentsUpdated: 4 });
    expect(notices).toContain('full reindex: 75% of segments affected (more than 50%)');
    // Every segment was regenerated: three asked, the unchanged one answered from the cache.
    expect(provider.calls).toHaveLength(3);
    expect(stats.llmCalls).toMatchObject({ count: 3, cacheHits: 1 });
  });

  it('reindexes fully when the segmentation settings or the summariser changed', async () => {
    await run(base, { incremental: false });
    const resized = await run(base, { segmentation: { maxTokensPerSegment: 10_000 } });
    expect(resized.stats.incrementalStats).toMatchObject({ fullReindex: true, fullReindexReason: 'the segmentation settings changed' });
    const provider = countingProvider();
    const remodelled = await run(base, { provider, segmentation: { maxTokensPerSegment: 10_000 } });
    expect(remodelled.stats.incrementalStats!.fullReindexReason).toBe('the summariser changed (local/extractive → openai-compatible/counting)');
    expect(provider.calls).toHaveLength(4);
  });

  it('builds the index whole when there is none yet', async () => {
    const { stats, plan } = await run(base);
    expect(plan).toBeNull();
    expect(stats.incrementalStats).toMatchObject({ fullReindex: true, fullReindexReason: 'there was no index to update', segmentsAdded: 4, promptsAdded: 10 });
  });

  it('asks the model again for a segment it failed on last time', async () => {
    const provider = countingProvider();
    provider.fail = true;
    const first = await run(base, { provider, incremental: false, summaries: { retryBaseMs: 1, maxAttempts: 1 } });
    expect(first.index.segments.every((segment) => segment.summarySource === 'local')).toBe(true);
    expect(first.stats.errors).toHaveLength(4);
    provider.fail = false;
    provider.calls.length = 0;
    // One segment changed, three failed before: all four are asked — and that is more than half, so it is a full run.
    const second = await run(edit(base, 'p-plug-1', (prompt) => (prompt.content += '!')), { provider });
    expect(provider.calls).toHaveLength(4);
    expect(second.index.segments.every((segment) => segment.summarySource === 'llm')).toBe(true);
  });
});
