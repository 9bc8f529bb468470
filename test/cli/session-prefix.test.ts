import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ShowResult } from '../../src/browse/show.js';
import { loadConfig } from '../../src/config.js';
import { createHttpApp } from '../../src/interfaces/http/app.js';
import { type Moon, createMoon } from '../../src/moon.js';
import { REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';
import { type McpSession, startMcp } from '../mcp/client.js';

/**
 * Session ids as moon prints them (the first 8 characters) through every door: the built CLI, the MCP server and
 * the HTTP app, over an index of the fixture transcripts and a few written with chosen ids (two sharing a prefix).
 */
const CODEX_LONG = '019c8a59-e9dd-71f0-9ae3-4079fe9726a9';
const CODEX_SHORT = '019c8a70-dda7-7f33-98ea-f30553347322';
const WORKTREE = 'ef958aa1-0e93-49f0-bb71-150f63befcd1';
const TWIN_A = 'c0ffee12-aaaa-4aaa-8aaa-000000000001';
const TWIN_B = 'c0ffee12-bbbb-4bbb-8bbb-000000000002';
const LONE = 'd00dfeed-1111-4111-8111-000000000003';
const NEVER_INDEXED = '5eed5eed-2222-4222-8222-000000000004';

let temp: { path: string; cleanup: () => void };
let home: string;
let crafted: string;
const env = (): Record<string, string> => ({ MOON_HOME: home, MOON_INDEX_WORKERS: '0' });
const moon = (...args: string[]) => spawnMoon(args, env());

function writeSession(sessionId: string, title: string, at: string, text: string): void {
  const lines = claudeSession({
    sessionId,
    cwd: '/home/dev/prefixes',
    turns: [
      { role: 'user', at, text },
      { role: 'assistant', at: new Date(Date.parse(at) + 60_000).toISOString(), text: `Done: ${text}` },
    ],
  });
  const titleLine = JSON.stringify({ type: 'custom-title', customTitle: title, sessionId });
  writeFileSync(join(crafted, `${sessionId}.jsonl`), `${lines.trimEnd()}\n${titleLine}\n`);
}

beforeAll(async () => {
  temp = makeTempDir('moon-prefix-');
  home = join(temp.path, 'home');
  crafted = join(temp.path, 'crafted', 'projects', '-home-dev-prefixes');
  mkdirSync(crafted, { recursive: true });
  writeSession(TWIN_A, 'Twin one: the kiwi cache', '2026-03-01T09:00:00Z', 'the kiwi cache misses on cold start');
  writeSession(TWIN_B, 'Twin two: the kiwi queue', '2026-03-02T09:00:00Z', 'the kiwi queue stalls under load');
  writeSession(LONE, 'Lone: the walrus migration', '2026-03-03T09:00:00Z', 'the walrus migration drops a column');
  for (const root of [join(REPO, 'test', 'fixtures', 'codex'), join(REPO, 'test', 'fixtures', 'claude-code', 'real-worktrees-session-with-subagents'), join(temp.path, 'crafted')]) {
    const run = await spawnMoon(['index', root], env());
    expect(run.code, run.stderr).toBe(0);
  }
}, 120_000);
afterAll(() => temp?.cleanup());

async function shown(session: string): Promise<ShowResult> {
  const run = await moon('show', session, '--json');
  return JSON.parse(run.stdout) as ShowResult;
}

describe('moon show', () => {
  test('the 8 characters moon prints open the session', async () => {
    const run = await moon('show', CODEX_LONG.slice(0, 8), '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ found: true, session: { session_id: CODEX_LONG, source: 'codex' } });
    // A session and its subagents print the same 8 characters: they name the session.
    const parent = await moon('show', WORKTREE.slice(0, 8), '--json');
    expect(parent.code, parent.stderr).toBe(0);
    expect(JSON.parse(parent.stdout)).toMatchObject({ found: true, session: { session_id: WORKTREE } });
    const sessions = await moon('sessions', '--json');
    expect(sessions.stdout).toContain(`${WORKTREE}:agent-`);
  });

  test('a prefix two sessions share is refused, listing both with their date and title', async () => {
    const run = await moon('show', 'c0ffee12');
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('"c0ffee12" matches 2 sessions');
    expect(run.stderr).toContain(`${TWIN_A}  2026-03-01 09:00 UTC  claude-code  Twin one: the kiwi cache`);
    expect(run.stderr).toContain(`${TWIN_B}  2026-03-02 09:00 UTC  claude-code  Twin two: the kiwi queue`);
    const json = await moon('show', 'c0ffee12', '--json');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ found: false, reason: 'ambiguous', candidates: [TWIN_A, TWIN_B] });
    // More of the id settles it.
    expect(await shown('c0ffee12-b')).toMatchObject({ found: true, session: { session_id: TWIN_B } });
  });

  test('a prefix no session has, and one shorter than 8 characters, are errors that say so', async () => {
    const none = await moon('show', 'abcdef12');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no session abcdef12 in the index, nor one whose id starts with it');
    const short = await moon('show', CODEX_LONG.slice(0, 7));
    expect(short.code).toBe(2);
    expect(short.stderr).toContain(`"${CODEX_LONG.slice(0, 7)}" is no session's id, and as a prefix it is too short`);
    expect(short.stderr).toContain('at least its first 8 characters');
  });
});

describe('other commands that take a session id', () => {
  test('memory provenance is stored by full id; a prefix no session has is refused', async () => {
    const added = await moon('memory', 'add', 'Warm the kiwi cache before a release', '--namespace', 'prefixes', '--session', `c0ffee12-a,${NEVER_INDEXED}`, '--json');
    expect(added.code, added.stderr).toBe(0);
    // A whole id not indexed (yet) is kept as given: the session in progress is one.
    expect(JSON.parse(added.stdout)).toMatchObject({ provenance: [{ session_ids: [TWIN_A, NEVER_INDEXED] }] });
    const refused = await moon('memory', 'add', 'Something else entirely', '--namespace', 'prefixes', '--session', 'abcdef12');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('no session abcdef12 in the index');
  });

  test('recall --session and digest take the printed prefix', async () => {
    const recall = await moon('recall', 'kiwi', '--session', 'c0ffee12-b', '--json');
    expect(recall.code, recall.stderr).toBe(0);
    const ids = (JSON.parse(recall.stdout) as { matches: { metadata: { session_id: string } }[] }).matches.map((match) => match.metadata.session_id);
    expect(ids).toEqual([TWIN_B]);
    expect((await moon('recall', 'kiwi', '--session', 'c0ffee12')).code).toBe(2);
    const digest = await moon('digest', LONE.slice(0, 8), '--json');
    expect(digest.code, digest.stderr).toBe(0);
    expect(digest.stdout).toContain(LONE);
  });
});

describe('MCP and HTTP resolve ids the same way', () => {
  let mcp: McpSession;
  let inProcess: Moon;
  beforeAll(async () => {
    mcp = await startMcp({ home, cwd: temp.path });
    inProcess = createMoon(loadConfig({ home, env: { MOON_RESIDENTIAL_TIMEZONE: 'UTC' } }));
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    await inProcess?.close();
  });

  test('get_session over MCP: a printed prefix opens the session; a shared or short one is an error naming why', async () => {
    const found = await mcp.call('get_session', { session_id: CODEX_SHORT.slice(0, 8), max_chars: 1000 });
    expect(found.isError, JSON.stringify(found.content)).toBeFalsy();
    expect((found.structuredContent as { session: { session_id: string } }).session.session_id).toBe(CODEX_SHORT);
    const ambiguous = await mcp.call('get_session', { session_id: 'c0ffee12' });
    expect(ambiguous.isError).toBe(true);
    expect(JSON.stringify(ambiguous.content)).toContain(TWIN_A);
    expect(JSON.stringify(ambiguous.content)).toContain(TWIN_B);
    const short = await mcp.call('timeline', { session_id: 'c0ffee1', message_id: 'anything' });
    expect(short.isError).toBe(true);
    expect(JSON.stringify(short.content)).toContain('at least its first 8 characters');
  }, 60_000);

  test('GET /v1/sessions/:id: a printed prefix opens the session; shared, unknown and short prefixes are refused', async () => {
    const app = createHttpApp(inProcess, { version: 'test' });
    const found = await app.request(`/v1/sessions/${CODEX_SHORT.slice(0, 8)}`);
    expect(found.status).toBe(200);
    expect(((await found.json()) as { session: { session_id: string } }).session.session_id).toBe(CODEX_SHORT);
    const ambiguous = await app.request('/v1/sessions/c0ffee12');
    expect(ambiguous.status).toBe(404);
    const message = ((await ambiguous.json()) as { error: { message: string } }).error.message;
    expect(message).toContain(TWIN_A);
    expect(message).toContain('Twin two: the kiwi queue');
    expect((await app.request('/v1/sessions/abcdef12')).status).toBe(404);
    const short = await app.request('/v1/sessions/c0ffee1');
    expect(short.status).toBe(400);
    expect(((await short.json()) as { error: { message: string } }).error.message).toContain('at least its first 8 characters');
  });
});

describe('moon forget', () => {
  test('a prefix several sessions share forgets nothing and lists them', async () => {
    const run = await moon('forget', 'c0ffee12');
    expect(run.code).toBe(2);
    expect(run.stdout).not.toMatch(/forgotten/);
    expect(run.stderr).toContain(TWIN_A);
    expect(run.stderr).toContain(TWIN_B);
    expect(await shown(TWIN_A)).toMatchObject({ found: true });
    expect(await shown(TWIN_B)).toMatchObject({ found: true });
  });

  test('a prefix no session has is an error, never "0 sessions forgotten"; with a good id beside it, neither goes', async () => {
    const none = await moon('forget', 'abcdef12');
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('no session abcdef12 in the index, nor one whose id starts with it');
    const mixed = await moon('forget', CODEX_SHORT.slice(0, 8), 'abcdef12');
    expect(mixed.code).toBe(2);
    expect(await shown(CODEX_SHORT)).toMatchObject({ found: true });
    const short = await moon('forget', CODEX_SHORT.slice(0, 6));
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('at least its first 8 characters');
    expect(await shown(CODEX_SHORT)).toMatchObject({ found: true });
  });

  test('the 8 characters moon prints forget the session, and no later index brings it back', async () => {
    const dry = await moon('forget', LONE.slice(0, 8), '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would forget ${LONE} (prefixes)`);
    const run = await moon('forget', LONE.slice(0, 8));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`forgot ${LONE} (prefixes)`);
    expect(run.stdout).toContain('1 session forgotten');
    expect(await shown(LONE)).toMatchObject({ found: false });
    expect((await moon('index', join(temp.path, 'crafted'))).code).toBe(0);
    expect(await shown(LONE)).toMatchObject({ found: false });
    const recall = await moon('recall', 'walrus migration', '--json');
    expect(JSON.stringify(JSON.parse(recall.stdout))).not.toContain(LONE);
  });

  test('a full-length id no session has is tombstoned, and the run says so and exits non-zero', async () => {
    const run = await moon('forget', NEVER_INDEXED);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`no indexed session has the id ${NEVER_INDEXED}: tombstoned so no later index adds it`);
    expect(run.stdout).toContain(`not in this index, tombstoned: ${NEVER_INDEXED}`);
    expect(readFileSync(join(home, 'archives', 'ledger.jsonl'), 'utf8')).toContain(`"session_id":"${NEVER_INDEXED}","tombstone":true`);
    // Its transcript turns up later: the tombstone keeps it out.
    writeSession(NEVER_INDEXED, 'Arrives late', '2026-03-04T09:00:00Z', 'the narwhal export arrives late');
    expect((await moon('index', join(temp.path, 'crafted'))).code).toBe(0);
    expect(await shown(NEVER_INDEXED)).toMatchObject({ found: false });
  });
});
