import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHttpApp } from '../../src/interfaces/http/app.js';
import { spawnMoon } from '../helpers/cli.js';
import { type TestHome, makeIndexedHome } from '../helpers/home.js';
import { type McpSession, startMcp } from '../mcp/client.js';

/**
 * One operation, three doors: the CLI's `--json`, MCP's `structuredContent` and the HTTP JSON of the same request
 * have the same shape (every key, at every depth) and name the same sessions and messages. A door that renames a
 * field, drops one or adds one of its own fails here.
 */
let home: TestHome;
let mcp: McpSession;

beforeAll(async () => {
  home = await makeIndexedHome();
  mcp = await startMcp({ home: home.home, cwd: home.sources, roots: null });
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await home?.cleanup();
});

/** Every key path of a JSON value (array items merged), e.g. `matches[].metadata.session_id`. */
function keyPaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return [...new Set(value.flatMap((item) => keyPaths(item, `${prefix}[]`)))];
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, inner]) => [`${prefix}.${key}`, ...keyPaths(inner, `${prefix}.${key}`)]);
  }
  return [];
}

const shape = (value: unknown): string[] => [...new Set(keyPaths(value))].sort();

interface RecallShape {
  query: string;
  matches: { metadata: { session_id: string; message_ids: string[] } }[];
  scope: { projects: string };
}

async function recallThroughEachDoor(query: string): Promise<Record<'cli' | 'mcp' | 'http', RecallShape>> {
  const cli = await spawnMoon(['recall', query, '--all-projects', '--limit', '3', '--json'], { MOON_HOME: home.home, MOON_FAKE_NOW: '2026-03-01T01:00:00Z', MOON_RESIDENTIAL_TIMEZONE: 'Australia/Sydney' });
  expect(cli.code, cli.stderr).toBe(0);
  const tool = await mcp.call('recall', { query, all_projects: true, limit: 3 });
  expect(tool.isError).toBeFalsy();
  const app = createHttpApp(home.moon, { version: 'test' });
  const response = await app.request('/v1/recall', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, all_projects: true, limit: 3 }),
  });
  expect(response.status).toBe(200);
  return { cli: JSON.parse(cli.stdout) as RecallShape, mcp: tool.structuredContent as unknown as RecallShape, http: (await response.json()) as RecallShape };
}

describe('three doors, one vocabulary', () => {
  test('recall: the same RecallResult (matches[].metadata.session_id, message_ids), scope and notes on CLI, MCP and HTTP', async () => {
    const doors = await recallThroughEachDoor('wrangler deploy');
    expect(doors.cli.matches.length).toBeGreaterThan(0);
    expect(shape(doors.mcp)).toEqual(shape(doors.cli));
    expect(shape(doors.http)).toEqual(shape(doors.cli));
    for (const door of [doors.mcp, doors.http]) {
      expect(door.matches.map((match) => match.metadata.session_id)).toEqual(doors.cli.matches.map((match) => match.metadata.session_id));
      expect(door.matches.map((match) => match.metadata.message_ids)).toEqual(doors.cli.matches.map((match) => match.metadata.message_ids));
      expect(door.scope).toEqual(doors.cli.scope);
    }
    expect(doors.cli.scope).toEqual({ projects: 'all', reason: 'all_projects', roots: [] });
    // snake_case everywhere
    for (const door of Object.values(doors)) expect(shape(door).filter((path) => /[A-Z]/.test(path))).toEqual([]);
  });
});

/** The JSON a GET route of the HTTP API answers. */
async function httpGet(path: string): Promise<unknown> {
  const response = await createHttpApp(home.moon, { version: 'test' }).request(path);
  expect(response.status, path).toBe(200);
  return response.json();
}

/** The structuredContent of an MCP tool call. */
async function mcpCall(tool: string, args: Record<string, unknown>): Promise<unknown> {
  const result = await mcp.call(tool, args);
  expect(result.isError, `${tool}: ${JSON.stringify(result.content)}`).toBeFalsy();
  return result.structuredContent;
}

/** What every door adds around the operation's own answer and may leave out: the zone it answered in, found. */
const envelope = (paths: string[]): string[] => paths.filter((path) => !['.found', '.timezone', '.truncated', '.scope', '.scope.projects', '.scope.reason', '.scope.roots'].includes(path));

describe('three doors, one vocabulary: browsing', () => {
  const env = { MOON_HOME: '', MOON_FAKE_NOW: '2026-03-01T01:00:00Z', MOON_RESIDENTIAL_TIMEZONE: 'Australia/Sydney' };

  test('sessions (CLI and HTTP): snake_case, the same sessions, one count rule and one title rule', async () => {
    const cli = await spawnMoon(['sessions', '--json'], { ...env, MOON_HOME: home.home });
    expect(cli.code, cli.stderr).toBe(0);
    const fromCli = JSON.parse(cli.stdout) as { sessions: { session_id: string; title: string | null; first_prompt: string | null; message_count: number; projection_path: string }[] };
    const fromHttp = (await httpGet('/v1/sessions')) as typeof fromCli;
    expect(shape(fromHttp)).toEqual(shape(fromCli));
    expect(fromHttp.sessions.map((session) => session.session_id)).toEqual(fromCli.sessions.map((session) => session.session_id));
    for (const door of [fromCli, fromHttp]) expect(shape(door).filter((path) => /[A-Z]/.test(path))).toEqual([]);
    // The count is the projection's message_count; the title the one `moon show` prints.
    const first = fromCli.sessions[0]!;
    const projection = readFileSync(first.projection_path, 'utf8');
    expect(first.message_count).toBe(Number(/^message_count: (\d+)$/m.exec(projection)?.[1]));
    const shown = await spawnMoon(['show', first.session_id], { ...env, MOON_HOME: home.home });
    const listed = await spawnMoon(['sessions'], { ...env, MOON_HOME: home.home });
    const title = first.title ?? `"${first.first_prompt}`.slice(0, 20);
    expect(shown.stdout).toContain(title);
    expect(listed.stdout).toContain(title);
    expect(listed.stdout).toContain(`${first.message_count} messages`);
  });

  test('get_session, timeline and get_entries (MCP and HTTP): the same keys at every depth, snake_case, the same sessions and messages', async () => {
    const recall = (await mcpCall('recall', { query: 'wrangler deploy', all_projects: true, limit: 1 })) as RecallShape;
    const sessionId = recall.matches[0]!.metadata.session_id;
    const messageId = recall.matches[0]!.metadata.message_ids[0]!;
    const pairs: [string, unknown, unknown][] = [
      ['get_session', await mcpCall('get_session', { session_id: sessionId }), await httpGet(`/v1/sessions/${sessionId}`)],
      ['get_session sliced', await mcpCall('get_session', { session_id: sessionId, from_entry: messageId }), await httpGet(`/v1/sessions/${sessionId}?from_entry=${messageId}`)],
      ['timeline', await mcpCall('timeline', { message_id: messageId, session_id: sessionId }), await httpGet(`/v1/timeline?message_id=${messageId}&session_id=${sessionId}`)],
      ['get_entries', await mcpCall('get_entries', { ids: [messageId] }), await httpGet(`/v1/entries?ids=${messageId}`)],
    ];
    for (const [operation, fromMcp, fromHttp] of pairs) {
      expect(envelope(shape(fromMcp)), operation).toEqual(envelope(shape(fromHttp)));
      for (const door of [fromMcp, fromHttp]) expect(shape(door).filter((path) => /[A-Z]/.test(path)), operation).toEqual([]);
      const ids = (value: unknown): string[] => JSON.stringify(value).match(/"(?:session_id|id)":"[^"]+"/g) ?? [];
      expect(ids(fromMcp), operation).toEqual(ids(fromHttp));
    }
  });
});

describe('snake_case on the CLI too', () => {
  test('index, status, verify, snapshot, sessions and usage --json: no camelCase key at any depth', async () => {
    const env = { MOON_HOME: home.home, MOON_FAKE_NOW: '2026-03-01T01:00:00Z', MOON_RESIDENTIAL_TIMEZONE: 'Australia/Sydney' };
    const transcript = readdirSync(home.sources, { recursive: true }).map(String).find((file) => file.endsWith('.jsonl'))!;
    for (const args of [['index', home.sources], ['status'], ['verify'], ['snapshot', home.sources], ['sessions'], ['usage', join(home.sources, transcript)]]) {
      const run = await spawnMoon([...args, '--json'], env);
      expect(run.code, `${args[0]}: ${run.stderr}`).toBe(0);
      expect(shape(JSON.parse(run.stdout)).filter((path) => /[a-z][A-Z]/.test(path)), args[0]).toEqual([]);
    }
  }, 60_000);
});

describe('one name for widening scope', () => {
  test('every command (and subcommand) that widens past the current project says --all-projects; none offers another name', async () => {
    const help = async (args: string[]): Promise<string> => {
      const run = await spawnMoon([...args, '--help'], { MOON_HOME: home.home });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      return run.stdout;
    };
    const commandsOf = (text: string): string[] =>
      [...(text.split(/^Commands:$/m)[1] ?? '').matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
    const top = commandsOf(await help([]));
    expect(top).toEqual(expect.arrayContaining(['recall', 'fixes', 'decisions', 'markers', 'context', 'digest', 'memory']));
    const widening: string[] = [];
    for (const command of top) {
      const text = await help([command]);
      const pages = [[command, text], ...(await Promise.all(commandsOf(text).map(async (sub) => [`${command} ${sub}`, await help([command, sub])] as const)))];
      for (const [name, page] of pages) {
        const flags = [...page!.matchAll(/--all-[a-z-]+/g)].map((match) => match[0]);
        expect(flags.filter((flag) => flag !== '--all-projects'), name).toEqual([]);
        if (flags.length > 0) widening.push(name!);
      }
    }
    expect(widening).toEqual(expect.arrayContaining(['recall', 'fixes', 'decisions', 'markers', 'context', 'digest']));
  }, 120_000);
});

describe('the same parameter names on every door', () => {
  test('HTTP GET routes take `query` (as MCP and the library do); `q`, the former name, still answers the same', async () => {
    const app = createHttpApp(home.moon, { version: 'test' });
    // (markers read the same way; the examples hold none to tell the two apart)
    for (const route of ['/v1/fixes', '/v1/decisions']) {
      const named = await app.request(`${route}?query=stripe`);
      const former = await app.request(`${route}?q=stripe`);
      const none = await app.request(`${route}?query=zzzznotaword`);
      expect(named.status, route).toBe(200);
      const body = await named.text();
      expect(body, route).toBe(await former.text());
      expect(body, `${route}: the words were read`).not.toBe(await none.text());
    }
  });
});
