import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HISTORY_FRAME_OPEN } from '../../src/inject/safe-text.js';
import { makeTempDir, spawnMoon } from '../helpers/cli.js';
import { buildSampleHistory } from '../rlm/history-builder.js';
import { type McpSession, startMcp, textOf } from './client.js';

/**
 * The `history_index_query` tool end to end: a project with a Puffin history indexed by `moon rlm index` into
 * the default place (.puffin/history.index.json), queried by a real MCP client through the built CLI.
 */
let scratch: { path: string; cleanup: () => void };
let mcp: McpSession;

beforeAll(async () => {
  scratch = makeTempDir('moon-mcp-rlm-');
  const project = join(scratch.path, 'project');
  mkdirSync(join(project, '.puffin'), { recursive: true });
  writeFileSync(join(project, '.puffin', 'history.json'), JSON.stringify(buildSampleHistory()));
  const home = join(scratch.path, 'home');
  const built = await spawnMoon(['rlm', 'index', '--history', join(project, '.puffin', 'history.json'), '--out', join(project, '.puffin', 'history.index.json')], { MOON_HOME: home });
  expect(built.code).toBe(0);
  mcp = await startMcp({ home, cwd: project });
});

afterAll(async () => {
  await mcp?.close();
  scratch?.cleanup();
});

describe('history_index_query', () => {
  test('finds segments and prompt excerpts through the index at the default place, framed as history', async () => {
    const result = await mcp.call('history_index_query', { query: 'watcher renamed files' });
    expect(result.isError).toBeFalsy();
    const output = result.structuredContent as { segments: Array<{ id: string; markers: Array<{ type: string }> }>; prompts: Array<{ id: string; excerpts: Array<{ text: string }> }>; index: string };
    expect(output.index).toBe(join(scratch.path, 'project', '.puffin', 'history.index.json'));
    expect(output.segments[0]!.id).toBe('seg-p-bug-1');
    expect(output.segments[0]!.markers.map((marker) => marker.type)).toEqual(['bug']);
    expect(output.prompts[0]!.excerpts[0]!.text).toContain('The watcher misses renamed files.');
    const text = textOf(result);
    expect(text.startsWith(HISTORY_FRAME_OPEN)).toBe(true);
    expect(text).toContain('## seg-p-bug-1 — bug-fixes');
  });

  test('filters by marker type and topic', async () => {
    const decisions = (await mcp.call('history_index_query', { marker: 'decision' })).structuredContent as { segments: Array<{ id: string }> };
    expect(decisions.segments.map((segment) => segment.id)).toEqual(['seg-p-spec-1']);
  });

  test('reports a missing index or bad input as an error result', async () => {
    const missing = await mcp.call('history_index_query', { query: 'x', index: 'nowhere.json' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/no history index at .*nowhere\.json/);
    const empty = await mcp.call('history_index_query', {});
    expect(empty.isError).toBe(true);
    expect(textOf(empty)).toContain('give a query, a marker type or a topic');
    const tooMany = await mcp.call('history_index_query', { query: 'x', limit: 500 });
    expect(tooMany.isError).toBe(true);
  });
});
