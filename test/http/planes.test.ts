import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BIN, REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';

/** What a JSON POST carries: the server takes no other body. */
const JSON_BODY = { 'content-type': 'application/json' };

/** The memory planes over `moon serve`: a draft memory, memory search, fix patterns. */
let temp: { path: string; cleanup: () => void };
let url: string;
let child: ChildProcess;

beforeAll(async () => {
  temp = makeTempDir('moon-http-planes-');
  const env = { MOON_HOME: join(temp.path, 'home'), MOON_INDEX_WORKERS: '0' };
  expect((await spawnMoon(['index', join(REPO, 'examples')], env)).code).toBe(0);
  child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
      const match = /serving (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
}, 60_000);

afterAll(() => {
  child?.kill('SIGKILL');
  temp?.cleanup();
});

test('POST /v1/memories makes a draft; GET /v1/memories shows approved only unless drafts are asked for', async () => {
  const posted = await fetch(`${url}/v1/memories`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify({ text: 'Build before every wrangler deploy', cwd: '/home/dev/shop' }) });
  expect(posted.status).toBe(200);
  expect(await posted.json()).toMatchObject({ outcome: 'created', memory: { review_state: 'draft', namespace_id: 'path:/home/dev/shop' } });
  expect(((await (await fetch(`${url}/v1/memories?cwd=/home/dev/shop`)).json()) as { memories: unknown[] }).memories).toEqual([]);
  const drafts = (await (await fetch(`${url}/v1/memories?cwd=/home/dev/shop&q=wrangler&include_drafts=true`)).json()) as { memories: { text: string }[] };
  expect(drafts.memories.map((memory) => memory.text)).toEqual(['Build before every wrangler deploy']);
  // Another project sees nothing of it.
  expect(((await (await fetch(`${url}/v1/memories?cwd=/home/dev/ledger-api&include_drafts=true`)).json()) as { memories: unknown[] }).memories).toEqual([]);
  expect((await fetch(`${url}/v1/memories`)).status).toBe(400);
  expect((await fetch(`${url}/v1/memories`, { method: 'POST', headers: JSON_BODY, body: JSON.stringify({ text: 'no folder' }) })).status).toBe(400);
}, 30_000);

test('GET /v1/fixes gives the verified fix for an error', async () => {
  const response = await fetch(`${url}/v1/fixes?cwd=/home/dev/shop&q=${encodeURIComponent("error TS2339: Property 'STRIPE_SECRET_KEY' does not exist on type 'Env'.")}`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { patterns: { state: string; signature: string }[] };
  expect(body.patterns[0]).toMatchObject({ state: 'verified' });
  expect(body.patterns[0]!.signature).toMatch(/TS2339/);
}, 30_000);

test('GET /v1/decisions gives decisions with their evidence state, scoped by cwd', async () => {
  const response = await fetch(`${url}/v1/decisions?cwd=/home/dev/shop&q=${encodeURIComponent('wrangler secret')}`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { scope: { namespace: string }; decisions: { state: string; text: string }[] };
  expect(body.scope.namespace).toBe('path:/home/dev/shop');
  expect(body.decisions.find((decision) => decision.text.startsWith('Decision: STRIPE_SECRET_KEY'))).toMatchObject({ state: 'verified' });
  expect((await fetch(`${url}/v1/decisions?limit=zero`)).status).toBe(400);
}, 30_000);
