import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMoon, spawnMoon } from '../helpers/cli.js';
import { buildSampleHistory } from './history-builder.js';

/** `moon rlm index` and `moon rlm query` through the built CLI (npm run build), as a user runs them. */
let dir: string;
let home: string;
let history: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'moon-rlm-cli-'));
  home = join(dir, 'home');
  history = join(dir, 'history.json');
  writeFileSync(history, JSON.stringify(buildSampleHistory(), null, 2));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = () => ({ MOON_HOME: home });

describe('moon rlm through the built CLI', () => {
  it('indexes a history: the result on stdout, seed 004’s summary on stderr, a valid index on disk', async () => {
    const out = join(dir, 'index.json');
    const run = await spawnMoon(['rlm', 'index', '--history', history, '--out', out], env());
    expect(run.stderr).toContain('[RLM Index Generator] Processing Complete');
    expect(run.stderr).toMatch(/Markers Extracted:  9\n {4}- decision: 1\n/);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${out}: 4 segments, 9 markers, 10 prompts\n`);
    const index = JSON.parse(readFileSync(out, 'utf8'));
    expect(index).toMatchObject({ version: '1.0.0', historyFile: history, statistics: { totalPrompts: 10, totalSegments: 4, totalMarkers: 9 } });
  });

  it('prints ProcessingStatistics as JSON, with incrementalStats on an incremental run after one edit', async () => {
    const out = join(dir, 'inc.json');
    expect((await spawnMoon(['rlm', 'index', '--history', history, '--out', out, '--json'], env())).code).toBe(0);
    const edited = join(dir, 'edited.json');
    const value = buildSampleHistory() as { branches: Record<string, { prompts: Array<{ content: string }> }> };
    value.branches.plugin!.prompts[0]!.content = 'A plugin branch, edited.';
    writeFileSync(edited, JSON.stringify(value));
    const run = await spawnMoon(['rlm', 'index', '--history', edited, '--out', out, '--incremental', '--json'], env());
    expect(run.code).toBe(0);
    const stats = JSON.parse(run.stdout);
    expect(stats).toMatchObject({ promptsProcessed: 10, segmentsGenerated: 4, markersExtracted: 9, llmCalls: { count: 0 }, errors: [] });
    expect(stats.incrementalStats).toMatchObject({ segmentsSkipped: 3, segmentsUpdated: 1, segmentsAdded: 0, promptsModified: 1, fullReindex: false });
    expect(run.stderr).toContain('    - Skipped:  3 segments (unchanged)');
  });

  it('queries the index, then the history: text and JSON', async () => {
    const out = join(dir, 'index.json');
    const text = await spawnMoon(['rlm', 'query', 'watcher', 'renamed', '--index', out], env());
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^\d+ of 4 segments for "watcher renamed"\n\n1\. seg-p-bug-1 {2}\[bug-fixes · 2026-01-05 → 2026-01-05 · 3 prompts/);
    expect(text.stdout).toContain('@/bug: the watcher missed files renamed into the folder  (p-bug-1, response)');
    expect(text.stdout).toContain('▸ p-bug-1 (2026-01-05 09:');
    const json = await spawnMoon(['rlm', 'query', '--index', out, '--marker', 'security', '--json'], env());
    expect(json.code).toBe(0);
    const result = JSON.parse(json.stdout);
    expect(result.segments.map((segment: { id: string }) => segment.id)).toEqual(['seg-p-spec-1']);
    expect(result.segments[0].markers[0]).toMatchObject({ type: 'security', promptId: 'p-spec-3' });
    expect(result.prompts[0]).toMatchObject({ id: 'p-spec-3' });
    expect(result.prompts[0].excerpts[0].text).toContain('@/security: API keys are read from the environment only');
  });

  it('exits 1 naming an output file that is not an index, and leaves it alone', async () => {
    const out = join(dir, 'notes.json');
    writeFileSync(out, '{"my": "notes"}');
    const run = await spawnMoon(['rlm', 'index', '--history', history, '--out', out], env());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`moon: ${out} is not a valid history index`);
    expect(readFileSync(out, 'utf8')).toBe('{"my": "notes"}');
    const query = await spawnMoon(['rlm', 'query', 'x', '--index', out], env());
    expect(query.code).toBe(1);
    expect(query.stderr).toContain(`${out} is not a valid history index`);
  });

  it('exits 2 on bad usage', async () => {
    expect((await runMoon(['rlm', 'index', '--history', history], env())).code).toBe(2);
    const missing = await runMoon(['rlm', 'query', '--index', join(dir, 'index.json')], env());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('give a query, --marker TYPE or --topic TOPIC');
    const bad = await runMoon(['rlm', 'index', '--history', history, '--out', join(dir, 'x.json'), '--max-segment-tokens', '0'], env());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-segment-tokens: expected a positive integer');
    expect(existsSync(join(dir, 'x.json'))).toBe(false);
    expect((await runMoon(['rlm', 'query', 'x', '--index', join(dir, 'none.json')], env())).code).toBe(2);
  });
});
