import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MoonError } from '../../src/errors.js';
import { MARKER_TYPES } from '../../src/markers/extract.js';
import { generateHistoryIndex, type GenerateOptions } from '../../src/rlm/generator.js';
import { readIndex, validateIndex } from '../../src/rlm/serializer.js';
import { buildSampleHistory, countTokens, MARKER_LINES } from './history-builder.js';

const REAL = new URL('../fixtures/puffin/history-real-subset-small.json', import.meta.url);
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'moon-rlm-gen-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeHistory(value: unknown, name = 'history.json'): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value, null, 2));
  return path;
}

const run = (options: Partial<GenerateOptions> & Pick<GenerateOptions, 'historyPath'>) =>
  generateHistoryIndex({ outputPath: join(dir, 'index.json'), incremental: false, provider: null, countTokens, ...options });

describe('generateHistoryIndex with the local summariser', () => {
  it('indexes the real Puffin subset: every prompt once, a valid index on disk, stats in seed 004 names', async () => {
    const { index, stats, plan } = await run({ historyPath: REAL.pathname });
    expect(plan).toBeNull();
    expect(index.prompts).toHaveLength(19);
    expect(index.segments.flatMap((segment) => segment.promptIds).sort()).toEqual(index.prompts.map((prompt) => prompt.id).sort());
    expect(index.segments.every((segment) => segment.summarySource === 'local' && segment.summary !== '')).toBe(true);
    expect(index.generator).toEqual({ summarizer: 'local', model: 'extractive', template: '1', segmentation: { maxTokensPerSegment: 50_000, segmentOverlap: 2_000, preferNaturalBoundaries: true } });
    expect(index.historyFile).toBe(REAL.pathname);
    expect(index.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(index.branches.map((branch) => branch.id)).toContain('plugin');
    expect(index.statistics).toMatchObject({ totalPrompts: 19, totalSegments: index.segments.length, totalMarkers: 0, llmCallCount: 0 });
    for (const [topic, ids] of Object.entries(index.topicIndex)) {
      for (const id of ids) expect(index.segments.find((segment) => segment.id === id)!.topics).toContain(topic);
    }
    expect(validateIndex(JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')))).toEqual({ valid: true, errors: [] });
    expect(readIndex(join(dir, 'index.json'))).toEqual(index);
    expect(Object.keys(stats)).toEqual(['startTime', 'endTime', 'duration', 'promptsProcessed', 'segmentsGenerated', 'markersExtracted', 'markersByType', 'llmCalls', 'errors']);
    expect(stats).toMatchObject({ promptsProcessed: 19, segmentsGenerated: index.segments.length, markersExtracted: 0, errors: [] });
    // No temporary file, no lock, no cache (the local summariser is not cached) is left behind.
    expect(readdirSync(dir).sort()).toEqual(['index.json']);
  });

  it('is deterministic: the same history gives the same index but for the time', async () => {
    const history = writeHistory(buildSampleHistory());
    const first = await run({ historyPath: history, now: () => 1_000 });
    const second = await run({ historyPath: history, outputPath: join(dir, 'again.json'), now: () => 1_000 });
    expect(second.index).toEqual(first.index);
  });

  it('extracts markers of every type with context, source field, importance and segment', async () => {
    const { index, stats } = await run({ historyPath: writeHistory(buildSampleHistory()) });
    expect(new Set(index.markers.map((marker) => marker.type))).toEqual(new Set(MARKER_TYPES));
    const decision = index.markers.find((marker) => marker.type === 'decision')!;
    expect(decision).toMatchObject({ content: 'use WAL mode for the SQLite store', promptId: 'p-spec-1', sourceField: 'prompt', importance: 1, lineNumber: 3 });
    expect(decision.context).toEqual({ before: 'Plan the storage layer.\nWe compared journal modes.', after: 'The WAL file lives beside the database.' });
    expect(index.segments.find((segment) => segment.id === decision.segmentId)!.promptIds).toContain('p-spec-1');
    const breaking = index.markers.find((marker) => marker.type === 'breaking')!;
    expect(breaking).toMatchObject({ sourceField: 'response', promptId: 'p-spec-2' });
    expect(index.markers.find((marker) => marker.type === 'ref')!.importance).toBe(0.3);
    expect(stats.markersByType).toEqual(Object.fromEntries(MARKER_TYPES.map((type) => [type, 1])));
    // A segment holding a decision is as important as it gets.
    expect(index.segments.find((segment) => segment.id === decision.segmentId)!.importanceScore).toBe(1);
    for (const line of Object.values(MARKER_LINES)) expect(index.markers.some((marker) => line.endsWith(marker.content))).toBe(true);
  });

  it('skips malformed entries, records each with its reason, and indexes the rest', async () => {
    const history = buildSampleHistory() as { branches: Record<string, { prompts: unknown[] }> };
    history.branches['bug-fixes']!.prompts.push(42, { id: 'no-content', timestamp: 1 }, { id: 'bad-time', content: 'x', timestamp: 'never' });
    const { index, stats } = await run({ historyPath: writeHistory(history) });
    expect(index.prompts.map((prompt) => prompt.id)).not.toContain('no-content');
    expect(index.prompts).toHaveLength(10);
    expect(stats.errors).toEqual([
      { phase: 'parse', message: 'branch bug-fixes entry 3: prompt is not an object' },
      { phase: 'parse', message: 'branch bug-fixes entry 4: prompt no-content has no content string' },
      { phase: 'parse', message: 'branch bug-fixes entry 5: prompt bad-time has no readable timestamp' },
    ]);
  });

  it('reads a file that is not a history as an error naming it, and writes nothing', async () => {
    const notJson = join(dir, 'broken.json');
    writeFileSync(notJson, '{"branches": ');
    await expect(run({ historyPath: notJson })).rejects.toThrow(`${notJson}: not valid JSON`);
    await expect(run({ historyPath: writeHistory({ hello: 'world' }, 'other.json') })).rejects.toThrow(/other\.json: not a Puffin history/);
    expect(existsSync(join(dir, 'index.json'))).toBe(false);
  });

  it('writes an empty index with a warning when the history file is missing, but never replaces an index by one', async () => {
    const notices: string[] = [];
    const { index, stats } = await run({ historyPath: join(dir, 'missing.json'), onNotice: (message) => notices.push(message) });
    expect(index.segments).toEqual([]);
    expect(notices[0]).toMatch(/no history file at .*missing\.json: writing an empty index/);
    expect(stats.errors[0]!.phase).toBe('read');
    await run({ historyPath: writeHistory(buildSampleHistory()) });
    const before = readFileSync(join(dir, 'index.json'), 'utf8');
    const error = await run({ historyPath: join(dir, 'missing.json') }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MoonError);
    expect((error as MoonError).message).toMatch(/was left as it is/);
    expect(readFileSync(join(dir, 'index.json'), 'utf8')).toBe(before);
  });

  it('refuses to overwrite a file at the output that is not a valid index, naming it', async () => {
    const out = join(dir, 'index.json');
    const history = writeHistory(buildSampleHistory());
    for (const content of ['not json at all', JSON.stringify({ version: '1.0.0' }), '']) {
      writeFileSync(out, content);
      const error = (await run({ historyPath: history }).catch((caught: unknown) => caught)) as MoonError;
      expect(error).toBeInstanceOf(MoonError);
      expect(error.code).toBe('unreadable');
      expect(error.exitCode).toBe(1);
      expect(error.message).toContain(`${out} is not a valid history index`);
      expect(readFileSync(out, 'utf8')).toBe(content);
    }
  });

  it('reports progress by phase', async () => {
    const phases: string[] = [];
    await run({ historyPath: writeHistory(buildSampleHistory()), onProgress: (phase) => phases.push(phase) });
    expect([...new Set(phases)]).toEqual(['read', 'hash', 'tokens', 'segment', 'summarize', 'write']);
  });
});

describe('the lock on the output path', () => {
  it('waits for a live holder, then fails clearly after the timeout; the index is untouched', async () => {
    const history = writeHistory(buildSampleHistory());
    const lock = join(dir, 'index.json.lock');
    // The test runner's parent process is alive: its pid holds the lock.
    writeFileSync(lock, JSON.stringify({ pid: process.ppid }));
    const notices: string[] = [];
    const started = Date.now();
    const error = (await run({ historyPath: history, lockTimeoutMs: 300, onNotice: (message) => notices.push(message) }).catch((caught: unknown) => caught)) as MoonError;
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(error.code).toBe('busy');
    expect(error.message).toContain(`is locked by process ${process.ppid}`);
    expect(error.message).toContain('gave up after');
    expect(notices[0]).toMatch(/waiting for another run writing/);
    expect(existsSync(join(dir, 'index.json'))).toBe(false);
    expect(readFileSync(lock, 'utf8')).toContain(String(process.ppid));
  });

  it('takes over the lock of a dead process, and two runs in one process take turns', async () => {
    const history = writeHistory(buildSampleHistory());
    writeFileSync(join(dir, 'index.json.lock'), JSON.stringify({ pid: 2 ** 22 + 12345 }));
    await run({ historyPath: history });
    const [a, b] = await Promise.all([run({ historyPath: history }), run({ historyPath: history, incremental: true })]);
    expect(a.index.segments.length).toBe(b.index.segments.length);
    expect(existsSync(join(dir, 'index.json.lock'))).toBe(false);
  });
});
