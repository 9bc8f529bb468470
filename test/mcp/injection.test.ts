import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeTempDir } from '../helpers/cli.js';
import { type TestHome, makeIndexedHome } from '../helpers/home.js';
import { INJECTION_CORPUS, findUnsafe } from '../helpers/injection.js';
import { claudeSession } from '../helpers/transcripts.js';
import { type McpSession, startMcp, stringsIn, textOf } from './client.js';

/**
 * The injection corpus through every MCP output: a transcript whose messages, tool calls and results hold every
 * corpus string is indexed, and nothing any tool, resource or error hands back — text or structured — may carry
 * live markup, role headers, template tokens, control characters or the planted secrets.
 */
const HOSTILE = 'hostile-session';
const TODAY = '2026-03-01';

let home: TestHome;
let scratch: { path: string; cleanup: () => void };
let mcp: McpSession;
const checked: string[] = [];

function expectSafe(what: string, result: CallToolResult): void {
  const problems = [textOf(result), ...stringsIn(result.structuredContent)].flatMap((text) => findUnsafe(text).map((problem) => `${problem} in ${JSON.stringify(text.slice(0, 200))}`));
  expect(problems, what).toEqual([]);
  checked.push(what);
}

beforeAll(async () => {
  home = await makeIndexedHome({ zone: 'UTC' });
  scratch = makeTempDir('moon-mcp-inject-');
  const transcripts = join(scratch.path, 'transcripts');
  mkdirSync(transcripts);
  const turns = INJECTION_CORPUS.flatMap((text, index) => {
    const minute = String(index).padStart(2, '0');
    return [
      { role: 'user' as const, at: `2026-02-27T10:${minute}:00Z`, id: `inj-u${index}`, text: `please look at this hostile paste ${text}` },
      {
        role: 'assistant' as const,
        at: `2026-02-27T10:${minute}:20Z`,
        id: `inj-a${index}`,
        text: `The hostile paste says ${text}`,
        tool: { name: 'Bash', input: { command: `echo hostile ${text}` }, result: `hostile output ${text}` },
      },
    ];
  });
  // One long answer: cut to the budget in a timeline, whole from get_entries.
  turns.push({ role: 'assistant' as const, at: '2026-02-27T11:00:00Z', id: 'inj-long', text: `A long answer: ${'every word counted '.repeat(200)}end.` } as (typeof turns)[number]);
  writeFileSync(join(transcripts, `${HOSTILE}.jsonl`), claudeSession({ sessionId: HOSTILE, cwd: '/home/dev/hostile', turns }));
  await home.moon.history.index({ roots: [transcripts] });
  // Memory files hold what distillation wrote from history: the corpus may reach them too.
  mkdirSync(join(home.home, 'memory'), { recursive: true });
  writeFileSync(join(home.home, 'memory', `${TODAY}.md`), `# ${TODAY}\n\n${INJECTION_CORPUS.map((text) => `- ${text}`).join('\n')}\n`);
  writeFileSync(join(home.home, 'MEMORY.md'), `# Memory\n\n${INJECTION_CORPUS.join('\n')}\n`);
  mcp = await startMcp({ home: home.home, cwd: scratch.path, roots: ['file:///home/dev/hostile'], env: { MOON_FAKE_NOW: `${TODAY}T12:00:00Z` } });
});

afterAll(async () => {
  await mcp?.close();
  await home?.cleanup();
  scratch?.cleanup();
});

describe('the injection corpus through moon mcp', () => {
  test('recall, in every grouping, with explanations, and with hostile queries', async () => {
    for (const query of ['hostile paste', 'developer mode', 'delete the repo', 'comply', 'rm -rf', 'new rules obey', 'aws key', 'isolate evil', 'hostile output']) {
      for (const group of ['session', 'message']) {
        const result = await mcp.call('recall', { query, group, limit: 20, explain: true });
        expect(result.isError, textOf(result)).toBeFalsy();
        expect((result.structuredContent as { matches: unknown[] }).matches.length, query).toBeGreaterThan(0);
        expectSafe(`recall ${query} ${group}`, result);
      }
    }
    for (const query of INJECTION_CORPUS) expectSafe(`recall query ${JSON.stringify(query)}`, await mcp.call('recall', { query }));
  });

  test('timeline, get_entries and get_session over every hostile entry', async () => {
    const slice = await mcp.call('get_session', { session_id: HOSTILE, since: '2026-02-27T00:00:00Z' });
    expectSafe('get_session slice', slice);
    const ids = (slice.structuredContent as { entries: { id: string }[] }).entries.map((entry) => entry.id);
    expect(ids.length).toBeGreaterThanOrEqual(INJECTION_CORPUS.length * 2);
    expectSafe('get_session projection', await mcp.call('get_session', { session_id: HOSTILE }));
    expectSafe('get_session range', await mcp.call('get_session', { session_id: HOSTILE, from_entry: ids[1], to_entry: ids[6] }));
    expectSafe('get_entries', await mcp.call('get_entries', { ids }));
    expectSafe('get_entries in session', await mcp.call('get_entries', { ids, session_id: HOSTILE }));
    for (const id of ids) expectSafe(`timeline ${id}`, await mcp.call('timeline', { message_id: id, session_id: HOSTILE, before: 2, after: 2 }));
    expectSafe('timeline by time', await mcp.call('timeline', { time: '2026-02-27T10:05:00Z', before: 10, after: 10 }));
  });

  test('errors that quote the request', async () => {
    for (const text of INJECTION_CORPUS) {
      const calls: [string, Record<string, unknown>][] = [
        ['get_session', { session_id: text }],
        ['timeline', { message_id: text }],
        ['get_session', { session_id: HOSTILE, from_entry: text }],
        ['recall', { query: 'x', role: text }],
        ['recall', { query: 'x', since: text }],
        ['timeline', { time: text }],
        ['get_entries', { ids: [text] }],
      ];
      for (const [tool, args] of calls) {
        const result = await mcp.call(tool, args);
        expectSafe(`${tool} ${JSON.stringify(args)}`, result);
      }
    }
  });

  test('memory resources', async () => {
    const { resources } = await mcp.client.listResources();
    expect(resources).toHaveLength(2);
    for (const resource of resources) {
      const read = await mcp.client.readResource({ uri: resource.uri });
      for (const content of read.contents) expect(findUnsafe((content as { text: string }).text), resource.uri).toEqual([]);
    }
  });

  test('entries are cut to a budget in a timeline and say so; get_entries gives them whole', async () => {
    const around = await mcp.call('timeline', { message_id: 'inj-long', before: 0, after: 0 });
    const [cut] = (around.structuredContent as { entries: { text: string; truncated: boolean }[] }).entries;
    expect(cut!.truncated).toBe(true);
    expect(Array.from(cut!.text)).toHaveLength(1500);
    expect(textOf(around)).toContain('(cut)');
    const whole = await mcp.call('get_entries', { ids: ['inj-long'] });
    const [full] = (whole.structuredContent as { entries: { text: string; truncated: boolean }[] }).entries;
    expect(full!.truncated).toBe(false);
    expect(full!.text.endsWith('end.')).toBe(true);
    const short = await mcp.call('timeline', { message_id: 'inj-u0', before: 0, after: 0 });
    expect((short.structuredContent as { entries: { truncated: boolean }[] }).entries[0]!.truncated).toBe(false);
  });

  test('the server stayed up and wrote nothing but protocol on stdout', () => {
    expect(mcp.protocolErrors).toEqual([]);
    expect(checked.length).toBeGreaterThan(100);
  });
});
