import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HISTORY_FRAME_CLOSE, HISTORY_FRAME_OPEN } from '../../src/inject/safe-text.js';
import { BIN, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { type TestHome, makeIndexedHome } from '../helpers/home.js';
import { type McpSession, startMcp, textOf } from './client.js';

/**
 * `moon mcp` end to end: a real MCP client spawns the built CLI over stdio on a home indexed from the bundled
 * examples, lists the tools, calls each of them (recall → timeline → get_entries → get_session), sends bad
 * input, reads the memory resources, and meets a missing index and a broken configuration.
 */
const SHOP_WEBHOOK = 'a7d41c09-2e6f-4b3a-8c5d-9e0f1a2b3c4d';
const FOUND_IT = 'd2b10011-3c4d-4e5f-8a6b-7c8d9e0f1a2b';
const TODAY = '2026-03-01';

let home: TestHome;
let scratch: { path: string; cleanup: () => void };
let mcp: McpSession;

beforeAll(async () => {
  home = await makeIndexedHome({ zone: 'UTC' });
  scratch = makeTempDir('moon-mcp-');
  mkdirSync(join(home.home, 'memory'), { recursive: true });
  writeFileSync(join(home.home, 'memory', `${TODAY}.md`), `# ${TODAY}\n\n- Kept the Stripe keys as wrangler secrets.\n`);
  writeFileSync(join(home.home, 'MEMORY.md'), '# Memory\n\n- Prefers wrangler secrets over [vars].\n');
  // The working directory matches no indexed project: the server answers from every project.
  mcp = await startMcp({ home: home.home, cwd: scratch.path, env: { MOON_FAKE_NOW: `${TODAY}T12:00:00Z` } });
});

afterAll(async () => {
  await mcp?.close();
  await home?.cleanup();
  scratch?.cleanup();
});

describe('moon mcp', () => {
  test('answers the handshake quickly, with its name, version and instructions; stdout carries only protocol', async () => {
    // The first answer comes before the index, the redaction rules or an embedder are loaded.
    expect(mcp.initializeMs).toBeLessThan(5000);
    process.stderr.write(`moon mcp: time to initialize ${Math.round(mcp.initializeMs)} ms (spawn included)\n`);
    expect(mcp.client.getServerVersion()).toMatchObject({ name: 'moon' });
    expect(mcp.client.getInstructions()).toContain('recall');
    expect(mcp.client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} });
    expect(mcp.protocolErrors).toEqual([]);
  });

  test('lists nine tools with input and output schemas; all but remember are read-only', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['context_pack', 'decisions', 'fixes', 'get_entries', 'get_session', 'history_index_query', 'markers', 'memory_search', 'recall', 'remember', 'timeline']);
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(tool.name !== 'remember');
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.inputSchema.type).toBe('object');
    }
    const recall = tools.find((tool) => tool.name === 'recall')!;
    // every option of the shared request schema, and the scope switch
    expect(Object.keys(recall.inputSchema.properties ?? {}).sort()).toEqual(
      ['all_projects', 'exclude', 'exclude_session', 'explain', 'group', 'limit', 'marker', 'now', 'per_session', 'priority', 'project', 'query', 'require', 'role', 'session', 'since', 'source', 'strategy', 'tool', 'tz', 'until'].sort(),
    );
    expect(recall.inputSchema.required).toEqual(['query']);
    expect(tools.find((tool) => tool.name === 'get_entries')!.inputSchema.required).toEqual(['ids']);
    expect(tools.find((tool) => tool.name === 'get_session')!.inputSchema.required).toEqual(['session_id']);
  });

  test('recall → timeline → get_entries → get_session', async () => {
    const recalled = await mcp.call('recall', { query: 'why does every stripe webhook fail with 401', limit: 2 });
    expect(recalled.isError).toBeFalsy();
    type Match = { snippet: string; score: number; metadata: { session_id: string; message_ids: string[]; timestamps: string[] } };
    const matches = (recalled.structuredContent as { matches: Match[] }).matches;
    expect(matches.length).toBeGreaterThan(0);
    const match = matches.find((item) => item.metadata.session_id === SHOP_WEBHOOK)!;
    expect(match.metadata.message_ids).toContain(FOUND_IT);
    expect(match.snippet.split('\n')).toHaveLength(match.metadata.message_ids.length);
    expect(match.metadata.timestamps[0]).toMatch(/^2026-02-24T/);
    expect(recalled.structuredContent).toMatchObject({ scope: { projects: 'all', reason: 'unmatched_cwd' } });
    const text = textOf(recalled);
    expect(text).toContain(HISTORY_FRAME_OPEN);
    expect(text).toContain(HISTORY_FRAME_CLOSE);
    expect(text).toContain(FOUND_IT);

    const timeline = await mcp.call('timeline', { message_id: FOUND_IT, before: 2, after: 1 });
    expect(timeline.isError).toBeFalsy();
    const around = timeline.structuredContent as { focus: { session_id: string; entry_id: string }; entries: { id: string; focus?: boolean; text: string }[] };
    expect(around.focus).toMatchObject({ session_id: SHOP_WEBHOOK, entry_id: FOUND_IT });
    expect(around.entries).toHaveLength(4);
    expect(around.entries[2]).toMatchObject({ id: FOUND_IT, focus: true });
    expect(textOf(timeline)).toContain('>> 2026-02-24T22:06:25+00:00 [assistant]');

    const ids = around.entries.map((entry) => entry.id);
    const entries = await mcp.call('get_entries', { ids: [...ids, 'no-such-id'], session_id: SHOP_WEBHOOK });
    expect(entries.isError).toBeFalsy();
    const fetched = entries.structuredContent as { entries: { id: string; text: string; truncated: boolean }[]; missing: string[]; sessions: { session_id: string }[] };
    expect(fetched.entries.map((entry) => entry.id)).toEqual(ids);
    expect(fetched.missing).toEqual(['no-such-id']);
    expect(fetched.sessions.map((session) => session.session_id)).toEqual([SHOP_WEBHOOK]);
    expect(fetched.entries.find((entry) => entry.id === FOUND_IT)!.text).toContain('STRIPE_WEBHOOK_SECRET was never uploaded');
    expect(textOf(entries)).toContain('Not found: no-such-id');

    const session = await mcp.call('get_session', { session_id: SHOP_WEBHOOK.slice(0, 8) });
    expect(session.isError).toBeFalsy();
    const whole = session.structuredContent as { projection: string; slice: null; truncated: boolean; session: { session_id: string; project: string } };
    expect(whole.session).toMatchObject({ session_id: SHOP_WEBHOOK, project: 'shop' });
    expect(whole.projection).toContain('# Archive Projection');
    expect(whole.slice).toBeNull();
    expect(whole.truncated).toBe(false);

    const slice = await mcp.call('get_session', { session_id: SHOP_WEBHOOK, from_entry: ids[0], to_entry: FOUND_IT });
    const sliced = slice.structuredContent as { projection: null; entries: { id: string }[]; slice: { total_entries: number } };
    expect(sliced.projection).toBeNull();
    expect(sliced.entries.map((entry) => entry.id)).toEqual(ids.slice(0, 3));
    expect(sliced.slice.total_entries).toBe(10);

    const small = await mcp.call('get_session', { session_id: SHOP_WEBHOOK, max_chars: 1000 });
    const cut = small.structuredContent as { projection: string; truncated: boolean };
    expect(cut.truncated).toBe(true);
    expect(Array.from(cut.projection).length).toBeLessThanOrEqual(1000);
  });

  test('recall takes every option of the shared schema (message grouping, filters, explain)', async () => {
    const result = await mcp.call('recall', {
      query: 'wrangler',
      group: 'message',
      limit: 3,
      source: 'claude-code',
      role: ['tool', 'assistant'],
      since: '2026-02-01',
      until: '2026-03-01',
      per_session: 2,
      strategy: 'bm25',
      explain: true,
      tz: 'UTC',
      now: '2026-03-01T00:00:00Z',
      exclude_session: [SHOP_WEBHOOK],
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    const hits = (result.structuredContent as { matches: { metadata: { session_id: string; explain?: unknown[]; message_ids: string[] } }[] }).matches.map((match) => match.metadata);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(3);
    for (const hit of hits) {
      expect(hit.session_id).not.toBe(SHOP_WEBHOOK);
      expect(hit.message_ids).toHaveLength(1);
      expect(hit.explain).toHaveLength(1);
    }
  });

  test('bad input is an isError result naming the problem, and the server keeps answering', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['recall', { query: 'x', limit: 'ten' }, /limit/],
      ['recall', { query: 'x', limit: 0 }, /positive whole number.*limit/],
      ['recall', { query: 'x', role: 'robot' }, /robot/],
      ['recall', { query: 'x', since: 'last blue moon' }, /since: "last blue moon" is not a date, a date-time or a time the queries understand/],
      ['recall', { query: 'x', tz: 'Mars/Olympus' }, /tz: "Mars\/Olympus" is not an IANA time zone/],
      ['recall', { limit: 3 }, /query/],
      ['recall', { query: 'x', colour: 'red' }, /colour/],
      ['timeline', {}, /message id .* or a time/],
      ['timeline', { message_id: 'no-such-id' }, /no message "no-such-id"/],
      ['timeline', { message_id: FOUND_IT, before: 500 }, /before/],
      ['timeline', { time: 'teatime' }, /time: "teatime" is not an ISO date-time/],
      ['timeline', { message_id: FOUND_IT, session_id: 'zzzzzzzz' }, /no session "zzzzzzzz"/],
      ['timeline', { message_id: FOUND_IT, session_id: 'zzz' }, /"zzz" is no session's id, and as a prefix it is too short/],
      ['get_entries', {}, /ids/],
      ['get_entries', { ids: 'not-a-list' }, /ids/],
      ['get_entries', { ids: [] }, /ids/],
      ['get_entries', { ids: ['x'], session_id: 'zzzzzzzz' }, /no session "zzzzzzzz"/],
      ['get_session', {}, /session_id/],
      ['get_session', { session_id: 42 }, /session_id/],
      ['get_session', { session_id: 'zzzzzzzz' }, /no session "zzzzzzzz"/],
      ['get_session', { session_id: SHOP_WEBHOOK, from_entry: 'nope' }, /from_entry: "nope" is not a message id/],
      ['no_such_tool', {}, /no_such_tool/],
    ];
    for (const [tool, args, pattern] of cases) {
      const result = await mcp.call(tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(result), `${tool} ${JSON.stringify(args)}`).toMatch(pattern);
      expect(textOf(result)).not.toMatch(/\n\s+at .+:\d+:\d+/);
    }
    const still = await mcp.call('recall', { query: 'wrangler', limit: 1 });
    expect(still.isError).toBeFalsy();
    expect(mcp.stderr()).not.toMatch(/\n\s+at .+:\d+:\d+/);
    expect(mcp.protocolErrors).toEqual([]);
  });

  test("resources: today's daily memory and MEMORY.md, read as quoted history", async () => {
    const { resources } = await mcp.client.listResources();
    expect(resources.map((resource) => resource.uri).sort()).toEqual([`moon://memory/${TODAY}.md`, 'moon://memory/MEMORY.md']);
    const daily = await mcp.client.readResource({ uri: `moon://memory/${TODAY}.md` });
    const text = (daily.contents[0] as { text: string }).text;
    expect(text.startsWith(HISTORY_FRAME_OPEN)).toBe(true);
    expect(text).toContain('Kept the Stripe keys as wrangler secrets.');
    const memory = await mcp.client.readResource({ uri: 'moon://memory/MEMORY.md' });
    expect((memory.contents[0] as { text: string }).text).toContain('Prefers wrangler secrets');
    await expect(mcp.client.readResource({ uri: 'moon://memory/..%2Fmoon.toml' })).rejects.toThrow();
    await expect(mcp.client.readResource({ uri: 'moon://memory/2020-01-01.md' })).rejects.toThrow(/does not exist/);
    expect((await mcp.call('recall', { query: 'wrangler', limit: 1 })).isError).toBeFalsy();
  });

  test('garbage on stdin is ignored: every stdout line is a protocol message, and the end of stdin exits 0', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: scratch.path, env: { PATH: process.env.PATH, MOON_HOME: home.home }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.end(['not json at all', '\u0000\u001b[31m', '{"jsonrpc":"2.0","id":7,"method":"no/such/method"}', '{"jsonrpc":"2.0","id":8,"method":"tools/list"}', ''].join('\n'));
    expect(await exited).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { id: number }).id)).toEqual([7, 8]);
    expect(stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  });

  test('closing stdin ends the server at once', async () => {
    const other = await startMcp({ home: home.home, cwd: scratch.path });
    const started = performance.now();
    await other.close();
    // The client sends SIGTERM only after waiting 2 s for the process to leave by itself.
    expect(performance.now() - started).toBeLessThan(1900);
  });
});

describe('moon mcp without an index, or with a broken configuration', () => {
  test('a missing index is an isError result saying how to make one; the server answers once it exists', async () => {
    const empty = makeTempDir('moon-mcp-empty-');
    const emptyHome = join(empty.path, 'home');
    mkdirSync(emptyHome);
    const session = await startMcp({ home: emptyHome, cwd: empty.path });
    try {
      for (const [tool, args] of [
        ['recall', { query: 'wrangler' }],
        ['timeline', { message_id: FOUND_IT }],
        ['get_entries', { ids: [FOUND_IT] }],
        ['get_session', { session_id: SHOP_WEBHOOK }],
      ] as const) {
        const result = await session.call(tool, args);
        expect(result.isError, tool).toBe(true);
        expect(textOf(result), tool).toMatch(/no index at .*moon\.db.*run `moon index`/);
      }
      expect((await session.client.listResources()).resources).toEqual([]);
      const indexed = await spawnMoon(['index', home.sources], { MOON_HOME: emptyHome });
      expect(indexed.code, indexed.stderr).toBe(0);
      const found = await session.call('recall', { query: 'wrangler', limit: 1 });
      expect(found.isError, textOf(found)).toBeFalsy();
      expect((found.structuredContent as { matches: unknown[] }).matches).toHaveLength(1);
    } finally {
      await session.close();
      empty.cleanup();
    }
  });

  test('a broken moon.toml still lets the handshake through; each call reports it', async () => {
    const broken = makeTempDir('moon-mcp-broken-');
    writeFileSync(join(broken.path, 'moon.toml'), 'recall = [not toml');
    const session = await startMcp({ home: broken.path, cwd: broken.path });
    try {
      expect((await session.client.listTools()).tools).toHaveLength(11);
      const result = await session.call('recall', { query: 'x' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/moon\.toml/);
      expect((await session.call('get_entries', { ids: ['x'] })).isError).toBe(true);
    } finally {
      await session.close();
      broken.cleanup();
    }
  });
});
