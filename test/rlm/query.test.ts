import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Provider } from '../../src/llm/provider.js';
import { generateHistoryIndex } from '../../src/rlm/generator.js';
import { listQueryTerms, queryHistoryIndex } from '../../src/rlm/query.js';
import { buildSampleHistory, countTokens } from './history-builder.js';

let dir: string;
let historyPath: string;
let indexPath: string;
const read: string[] = [];

/** Topics and entities a model would give, so the index (not the text) is what matches. */
const provider: Provider = {
  name: 'openai-compatible',
  model: 'fixed',
  generative: true,
  async complete(prompt) {
    const first = /\[prompt (\S+)/.exec(prompt)?.[1] ?? '';
    const byBranch: Record<string, object> = {
      'p-spec-1': { summary: 'Storage decisions: journal mode and config key renames.', topics: ['database', 'configuration'], keyEntities: ['docs/storage.md'], importanceScore: 1 },
      'p-bug-1': { summary: 'Fixed the watcher missing renamed files, with a regression test.', topics: ['bug-fix', 'watcher'], keyEntities: ['src/watch/loop.ts'], importanceScore: 0.8 },
      aaaa1111bbbb2222: { summary: 'Indexing speed and the store boundary.', topics: ['performance', 'architecture'], keyEntities: ['src/store'], importanceScore: 0.6 },
      'p-plug-1': { summary: 'A note about plugins.', topics: ['plugins'], keyEntities: [], importanceScore: 0.2 },
    };
    return JSON.stringify(byBranch[first] ?? { summary: 'Other.', topics: ['misc'], keyEntities: [], importanceScore: 0.1 });
  },
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'moon-rlm-query-'));
  historyPath = join(dir, 'history.json');
  indexPath = join(dir, 'index.json');
  writeFileSync(historyPath, JSON.stringify(buildSampleHistory()));
  await generateHistoryIndex({ historyPath, outputPath: indexPath, incremental: false, provider, countTokens });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const query = (request: Partial<Parameters<typeof queryHistoryIndex>[0]>) =>
  queryHistoryIndex({
    query: '',
    indexPath,
    readHistory: async (path) => {
      read.push(path);
      const { readHistoryFile } = await import('../../src/rlm/read-history.js');
      return readHistoryFile(path);
    },
    ...request,
  });

describe('queryHistoryIndex', () => {
  it('ranks segments from the index (topics, entities, markers, summary), then drills into the matching prompts', async () => {
    const result = await query({ query: 'watcher renamed files loop.ts' });
    expect(result.segments[0]).toMatchObject({ id: 'seg-p-bug-1', branchId: 'bug-fixes', importanceScore: 0.8 });
    expect(result.segments[0]!.matchedBy).toEqual(expect.arrayContaining(['topic', 'entity', 'summary']));
    expect(result.segments[0]!.markers.map((marker) => marker.type)).toEqual(['bug']);
    const prompts = result.prompts.filter((prompt) => prompt.segmentId === 'seg-p-bug-1');
    expect(prompts[0]!.id).toBe('p-bug-1');
    expect(prompts[0]!.excerpts.map((excerpt) => excerpt.field)).toEqual(['prompt', 'response']);
    expect(prompts[0]!.excerpts[0]!.text).toContain('The watcher misses renamed files.');
    expect(result.totals.promptsSearched).toBeGreaterThan(0);
    expect(result.historyFile).toBe(historyPath);
    expect(read).toContain(historyPath);
    expect(result.notes).toEqual([]);
  });

  it('filters by marker type, returning those markers and the prompts that hold them', async () => {
    const result = await query({ marker: 'decision' });
    expect(result.segments.map((segment) => segment.id)).toEqual(['seg-p-spec-1']);
    expect(result.segments[0]!.markers).toEqual([
      { type: 'decision', content: 'use WAL mode for the SQLite store', promptId: 'p-spec-1', sourceField: 'prompt', importance: 1, segmentId: 'seg-p-spec-1' },
    ]);
    expect(result.prompts[0]).toMatchObject({ id: 'p-spec-1', segmentId: 'seg-p-spec-1' });
    expect(result.prompts[0]!.excerpts[0]!.text).toContain('@/decision: use WAL mode');
    expect(result.filters).toEqual({ marker: 'decision', topic: null });
    const none = await query({ marker: 'nonsense' });
    expect(none.segments).toEqual([]);
    expect(none.notes).toEqual(['the index holds no @/nonsense markers']);
  });

  it('filters by topic, spelled any usual way, and combines filters with words', async () => {
    const result = await query({ topic: 'Bug Fix' });
    expect(result.segments.map((segment) => segment.id)).toEqual(['seg-p-bug-1']);
    expect((await query({ topic: 'performance', query: 'plugins' })).segments).toEqual([]);
    expect((await query({ topic: 'nothing-like-it' })).notes).toEqual(['the index has no topic "nothing-like-it"']);
  });

  it('searches the history text when the index knows none of the words, and says so', async () => {
    const result = await query({ query: 'deleted' });
    expect(result.segments[0]!.matchedBy).toEqual(['text']);
    expect(result.segments[0]!.id).toBe('seg-p-bug-1');
    expect(result.prompts[0]!.id).toBe('p-bug-3');
    expect(result.prompts[0]!.excerpts[0]!.text).toContain('when the thread was deleted');
    expect(result.notes[0]).toMatch(/found in the history text/);
    const nothing = await query({ query: 'zebra' });
    expect(nothing.segments).toEqual([]);
    expect(nothing.notes).toEqual(['nothing in the index or the history matched']);
  });

  it('answers from the index alone when the history is gone, and notices a changed history', async () => {
    const gone = await query({ query: 'watcher', historyPath: join(dir, 'moved.json') });
    expect(gone.segments[0]!.id).toBe('seg-p-bug-1');
    expect(gone.prompts).toEqual([]);
    expect(gone.notes[0]).toMatch(/is not there: answering from the index alone/);
    const changed = join(dir, 'changed.json');
    const history = buildSampleHistory() as { branches: Record<string, { prompts: Array<{ content: string }> }> };
    history.branches.plugin!.prompts[0]!.content = 'Edited since.';
    writeFileSync(changed, JSON.stringify(history));
    expect((await query({ query: 'watcher', historyPath: changed })).notes).toEqual([expect.stringMatching(/the history changed since the index was built .*moon rlm index --incremental/)]);
  });

  it('finds the history beside the index when the project moved', async () => {
    const { mkdirSync, copyFileSync } = await import('node:fs');
    const moved = join(dir, 'moved', '.puffin');
    mkdirSync(moved, { recursive: true });
    copyFileSync(indexPath, join(moved, 'history.index.json'));
    copyFileSync(historyPath, join(moved, 'history.json'));
    const index = JSON.parse((await import('node:fs')).readFileSync(join(moved, 'history.index.json'), 'utf8'));
    index.historyFile = join(dir, 'gone', 'history.json');
    writeFileSync(join(moved, 'history.index.json'), JSON.stringify(index));
    const result = await query({ query: 'watcher', indexPath: join(moved, 'history.index.json') });
    expect(result.historyFile).toBe(join(moved, 'history.json'));
    expect(result.prompts.length).toBeGreaterThan(0);
    expect(result.notes).toEqual([]);
  });

  it('bounds the answer and refuses an empty question or a missing index', async () => {
    expect((await query({ query: 'the', limit: 1 })).segments.length).toBeLessThanOrEqual(1);
    await expect(query({ query: '  ' })).rejects.toThrow('give a query, a marker type or a topic');
    await expect(query({ query: 'x', limit: 51 })).rejects.toThrow(/limit must be/);
    await expect(query({ query: 'x', indexPath: join(dir, 'none.json') })).rejects.toThrow(/no history index at/);
    expect(listQueryTerms('The WAL mode, in src/store.ts!')).toEqual(['wal', 'mode', 'src/store.ts']);
  });
});
