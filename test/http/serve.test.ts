import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN, REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { INJECTION_CORPUS, findUnsafe } from '../helpers/injection.js';
import { claudeSession } from '../helpers/transcripts.js';

/** What a JSON POST carries: the server takes no other body. */
const JSON_BODY = { 'content-type': 'application/json' };

/** `moon serve` as a real child process, spoken to over loopback: routes, errors, limits, the token rule, safety. */
const children: ChildProcess[] = [];
let temp: { path: string; cleanup: () => void };
let env: Record<string, string>;

beforeAll(async () => {
  temp = makeTempDir('moon-http-');
  const sources = join(temp.path, 'sources');
  mkdirSync(join(sources, 'hostile'), { recursive: true });
  writeFileSync(
    join(sources, 'hostile', 'hostile-session.jsonl'),
    claudeSession({
      sessionId: 'hostile-session',
      cwd: '/home/dev/hostile',
      turns: INJECTION_CORPUS.flatMap((text, index) => [
        { role: 'user' as const, at: `2026-02-20T10:${String(index).padStart(2, '0')}:00Z`, text: `injection probe ${index}: ${text}` },
        { role: 'assistant' as const, at: `2026-02-20T10:${String(index).padStart(2, '0')}:30Z`, text: `noted probe ${index}: ${text}` },
      ]),
    }),
  );
  env = { MOON_HOME: join(temp.path, 'home'), MOON_INDEX_WORKERS: '0' };
  for (const root of [join(REPO, 'examples'), sources]) {
    const run = await spawnMoon(['index', root], env);
    expect(run.code, run.stderr).toBe(0);
  }
}, 60_000);

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  temp.cleanup();
});

/** Start `moon serve --port 0` (and more args); resolves with its URL once it listens, or its exit. */
function startServe(args: string[] = [], extraEnv: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess } | { code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { env: { PATH: process.env.PATH, ...env, ...extraEnv }, stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
      const match = /serving (http:\/\/\S+)/.exec(stderr);
      if (match) resolve({ url: match[1]!, child });
    });
    child.on('exit', (code) => resolve({ code: code ?? -1, stderr }));
  });
}

async function serving(args: string[] = [], extraEnv: Record<string, string> = {}): Promise<string> {
  const started = await startServe(args, extraEnv);
  if (!('url' in started)) throw new Error(`serve exited ${started.code}: ${started.stderr}`);
  return started.url;
}

describe('moon serve', () => {
  test('health, recall, sessions, a session, timeline and the OpenAPI document', async () => {
    const url = await serving();
    expect(await (await fetch(`${url}/v1/health`)).json()).toMatchObject({ ok: true, engine: 'sqlite' });
    const recall = await fetch(`${url}/v1/recall`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify({ query: 'wrangler deploy secrets', limit: 3 }) });
    expect(recall.status).toBe(200);
    expect(recall.headers.get('moon-content')).toMatch(/^quoted-history/);
    const result = (await recall.json()) as { matches: { metadata: { session_id: string; message_ids: string[] } }[] };
    expect(result.matches[0]!.metadata.session_id).toMatch(/^5f3c2a1e|^a7d41c09/);
    const sessions = (await (await fetch(`${url}/v1/sessions?project=shop&limit=5`)).json()) as { sessions: { session_id: string }[] };
    expect(sessions.sessions.map((session) => session.session_id).sort()).toEqual(['5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d', 'a7d41c09-2e6f-4b3a-8c5d-9e0f1a2b3c4d']);
    const session = await fetch(`${url}/v1/sessions/019c8b2e`);
    expect(session.status).toBe(200);
    expect(JSON.stringify(await session.json())).toContain('019c8b2e-4a1f-7d3c-b5e6-2f8a9c0d1e3b');
    const hit = result.matches[0]!.metadata;
    const timeline = await fetch(`${url}/v1/timeline?session_id=${hit.session_id}&message_id=${encodeURIComponent(hit.message_ids[0]!)}&before=1&after=1`);
    expect(timeline.status).toBe(200);
    expect(await timeline.json()).toMatchObject({ found: true });
    const entries = (await (await fetch(`${url}/v1/entries?ids=${encodeURIComponent(hit.message_ids[0]!)},no-such-id`)).json()) as { entries: unknown[]; missing: string[] };
    expect(entries.entries).toHaveLength(1);
    expect(entries.missing).toEqual(['no-such-id']);
    expect((await fetch(`${url}/v1/entries`)).status).toBe(400);
    // Scoped to the caller's project by cwd: the ledger API's working directory sees only its own session.
    const scoped = (await (await fetch(`${url}/v1/recall`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify({ query: 'test fix', cwd: '/home/dev/ledger-api' }) })).json()) as { matches: { metadata: { session_id: string } }[]; scope: { projects: string; reason: string } };
    expect(scoped.scope).toMatchObject({ projects: 'current', reason: 'cwd' });
    expect(scoped.scope).not.toHaveProperty('sessionIds');
    expect(new Set(scoped.matches.map((match) => match.metadata.session_id))).toEqual(new Set(['019c8b2e-4a1f-7d3c-b5e6-2f8a9c0d1e3b']));
    const everywhere = (await (await fetch(`${url}/v1/recall`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify({ query: 'test fix', cwd: '/home/dev/ledger-api', all_projects: true }) })).json()) as { matches: unknown[] };
    expect(everywhere.matches.length).toBeGreaterThan(1);
    const openapi = (await (await fetch(`${url}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(openapi.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/v1/recall', '/v1/sessions', '/v1/sessions/{id}', '/v1/timeline', '/v1/entries', '/v1/health']));
  }, 30_000);

  test('errors are JSON with the status that fits: bad JSON 400, bad field 400, unknown 404, too large 413', async () => {
    const url = await serving();
    const badJson = await fetch(`${url}/v1/recall`, { method: 'POST', headers: JSON_BODY, body: '{"query": ' });
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toMatchObject({ error: { code: 'bad_json' } });
    const badField = await fetch(`${url}/v1/recall`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify({ query: 'x', limit: 'many' }) });
    expect(badField.status).toBe(400);
    expect(((await badField.json()) as { error: { message: string } }).error.message).toMatch(/limit/);
    const unknownField = await fetch(`${url}/v1/recall`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify({ query: 'x', colour: 'blue' }) });
    expect(unknownField.status).toBe(400);
    expect((await fetch(`${url}/v1/sessions/nope-nope`)).status).toBe(404);
    expect((await fetch(`${url}/v2/anything`)).status).toBe(404);
    expect((await fetch(`${url}/v1/sessions?limit=zero`)).status).toBe(400);
    const big = await fetch(`${url}/v1/recall`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify({ query: 'x'.repeat(100_000) }) });
    expect(big.status).toBe(413);
  }, 30_000);

  test('a burst past the rate limit gets 429 with Retry-After', async () => {
    const url = await serving();
    const responses = await Promise.all(Array.from({ length: 80 }, () => fetch(`${url}/v1/health`)));
    const limited = responses.filter((response) => response.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(responses.filter((response) => response.status === 200).length).toBeGreaterThanOrEqual(40);
  }, 30_000);

  test('the token rule: another address needs MOON_HTTP_TOKEN; once set every request needs it, loopback too', async () => {
    const refused = await startServe(['--host', '0.0.0.0']);
    expect(refused).toMatchObject({ code: 2 });
    expect('stderr' in refused && refused.stderr).toMatch(/MOON_HTTP_TOKEN/);
    const url = (await serving(['--host', '0.0.0.0'], { MOON_HTTP_TOKEN: 's3cret-token-0123456789abcdef0123456789' })).replace('0.0.0.0', '127.0.0.1');
    expect((await fetch(`${url}/v1/health`)).status).toBe(401);
    expect((await fetch(`${url}/v1/health`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(`${url}/v1/health`, { headers: { authorization: 'Basic czNjcmV0' } })).status).toBe(401);
    expect((await fetch(`${url}/v1/health`, { headers: { authorization: 'Bearer s3cret-token-0123456789abcdef0123456789' } })).status).toBe(200);
    const loopback = await serving([], { MOON_HTTP_TOKEN: 's3cret-token-0123456789abcdef0123456789' });
    expect((await fetch(`${loopback}/v1/health`)).status).toBe(401);
  }, 30_000);

  test('what it hands out is neutralised: the injection corpus in recall and in the session', async () => {
    const url = await serving();
    for (let index = 0; index < INJECTION_CORPUS.length; index++) {
      const recall = await fetch(`${url}/v1/recall`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify({ query: `injection probe ${index}`, project: 'hostile', limit: 2 }) });
      const strings = collectStrings(await recall.json());
      expect(strings.some((text) => text.includes(`probe ${index}`))).toBe(true);
      expect(findUnsafe(strings.join('\n')), strings.join('\n')).toEqual([]);
    }
    const session = collectStrings(await (await fetch(`${url}/v1/sessions/hostile-session`)).json());
    expect(session.join('\n')).toContain('injection probe 7');
    expect(findUnsafe(session.join('\n'))).toEqual([]);
  }, 60_000);
});

/** Every string in a decoded JSON value: what an agent reading the result would see. */
function collectStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(collectStrings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(collectStrings);
  return [];
}
