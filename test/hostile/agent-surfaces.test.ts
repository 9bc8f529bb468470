import fc from 'fast-check';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Hono } from 'hono';
import { createHttpApp } from '../../src/interfaces/http/app.js';
import { WEB_FILES } from '../../src/runtime/web-assets.js';

/** The web view's files: answered with the built file, not JSON. */
const WEB_PATHS = new Set(Object.keys(WEB_FILES));
import { type ConfinedWorld, MARKER, type McpLink, SECRET, answerText, makeConfinedWorld } from '../mcp/confined-world.js';
import { propertyRuns } from './runs.js';

/**
 * Hostile arguments through the agent surfaces: generated arguments to every MCP tool the server lists (through
 * a real server on the SDK's in-memory transport) and generated requests to every route the HTTP app holds (its
 * real Hono app on a real home) — wrong types, huge strings, deep JSON, control characters, ids and paths that
 * lead outside. Every answer is a result or a clear error (MCP isError with text; HTTP 4xx JSON with a code,
 * never a 500), the server still answers a normal call afterwards, and nothing planted outside the allowed roots
 * (MARKER, SECRET: see confined-world.ts) ever shows. Tools and routes are enumerated, so a new one is covered.
 */
const MCP_RUNS = propertyRuns(15, 60_000);
const HTTP_RUNS = propertyRuns(25, 60_000);

let world: ConfinedWorld;
let mcp: McpLink;
let app: Hono;

beforeAll(async () => {
  world = await makeConfinedWorld();
  mcp = await world.connect();
  app = createHttpApp(world.home.moon, { version: 'test', rate: { perSecond: 1e9, burst: 1e9 } });
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await world?.cleanup();
});

/** Strings that name places outside, or look like traversal, ids with path characters, or protocol noise. */
function pathish(): string[] {
  const up = relative(world.project, world.outside);
  return [
    `${up}/history.index.json`,
    join(world.outside, 'history.index.json'),
    join(world.outside, 'secret.txt'),
    'link-index.json',
    'link-dir/secret.txt',
    'dangling.json',
    '/etc/passwd',
    '/proc/self/environ',
    '../../../../../../etc/shadow',
    '..%2F..%2Fetc%2Fpasswd',
    '%2e%2e/%2e%2e/secret',
    'a\u0000b',
    '../session/../../x',
    '5f3c2a1e/../../../etc',
    'C:\\Windows\\system32',
    'file:///etc/passwd',
    '*',
    '%',
    "' OR 1=1 --",
    '\u202e\u200b',
  ];
}

/** A JSON array nested `depth` deep. */
function nested(depth: number): unknown {
  let value: unknown = 'deep';
  for (let index = 0; index < depth; index++) value = [value];
  return value;
}

const CONTROL = fc.string({ unit: fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)), maxLength: 20 });

function hostileValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...pathish()) },
    { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 3, arbitrary: fc.constantFrom('wrangler', 'deploy', 'decision', 'bug', '2026-02-20', '14:05', 'UTC', 'Australia/Sydney', 'a7d41c09', '5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d') },
    { weight: 2, arbitrary: fc.integer({ min: -5, max: 300_000 }) },
    { weight: 1, arbitrary: fc.constantFrom(Number.MAX_SAFE_INTEGER, -0, 0.5, 1e308, -1e308) },
    { weight: 1, arbitrary: fc.boolean() },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 2, arbitrary: CONTROL },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(100_000), 'é'.repeat(40_000), '\u0000'.repeat(5000)) },
    { weight: 1, arbitrary: fc.integer({ min: 50, max: 3000 }).map(nested) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 2, arbitrary: fc.array(fc.oneof(fc.constantFrom(...pathish()), fc.string({ maxLength: 10 })), { maxLength: 60 }) },
  );
}

/**
 * Valid calls to start from, so that hostile values reach past validation into the tool (a tool or route without
 * one is still covered, from an empty start).
 */
const SEEDS: Record<string, Record<string, unknown>> = {
  recall: { query: 'wrangler deploy' },
  timeline: { time: '2026-02-20T10:00:00Z', all_projects: true },
  get_entries: { ids: ['no-such-id'] },
  get_session: { session_id: '5f3c2a1e' },
  context_pack: { task: 'deploy the worker' },
  remember: { text: 'Build before every deploy' },
  memory_search: { query: 'deploy' },
  fixes: { query: 'error TS2339' },
  decisions: { query: 'wrangler' },
  markers: {},
  history_index_query: { query: 'watcher renamed files' },
  'POST /v1/recall': { query: 'wrangler deploy' },
  'POST /v1/memories': { text: 'Build before every deploy', cwd: '/home/dev/shop' },
  'POST /v1/context': { task: 'deploy the worker' },
  'GET /v1/memories': { cwd: '/home/dev/shop' },
  'GET /v1/entries': { ids: 'no-such-id' },
  'GET /v1/timeline': { time: '2026-02-20T10:00:00Z' },
};

/** Some of `keys` with hostile values. */
function hostileFields(keys: string[], maxLength?: number): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .subarray(keys, { maxLength })
    .chain((chosen) => fc.tuple(fc.constant(chosen), fc.array(hostileValue(), { minLength: chosen.length, maxLength: chosen.length })))
    .map(([chosen, values]) => Object.fromEntries(chosen.map((key, index) => [key, values[index]])));
}

/**
 * Arguments for a tool: a valid call with one or two fields made hostile, some of its keys with hostile values,
 * now and then a key it does not know, or no object of its own at all.
 */
function argumentsFor(keys: string[], seed: Record<string, unknown> = {}): fc.Arbitrary<unknown> {
  const known = hostileFields(keys);
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(seed) },
    { weight: 4, arbitrary: hostileFields(Object.keys(seed).length > 0 ? Object.keys(seed) : keys, 1).map((fields) => ({ ...seed, ...fields })) },
    { weight: 4, arbitrary: hostileFields(keys, 2).map((fields) => ({ ...seed, ...fields })) },
    { weight: 4, arbitrary: known },
    { weight: 1, arbitrary: fc.tuple(known, fc.string({ maxLength: 12 }), hostileValue()).map(([args, key, value]) => ({ ...args, [key || 'extra']: value })) },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), hostileValue(), { maxKeys: 4 }) },
  );
}

/** How many answers of each kind the runs got (printed with HOSTILE_TALLY=1: how much reached past validation). */
const tallies = new Map<string, number>();
function tally(key: string): void {
  tallies.set(key, (tallies.get(key) ?? 0) + 1);
}
afterAll(() => {
  if (process.env.HOSTILE_TALLY) process.stderr.write(`${[...tallies].sort().map(([key, count]) => `${key}: ${count}`).join('\n')}\n`);
});

function expectNothingOutside(text: string): void {
  expect(text).not.toContain(MARKER);
  expect(text).not.toContain(SECRET);
  expect(text).not.toMatch(/root:x:0:0|^PATH=/m);
}

describe('MCP: every tool the server lists', () => {
  test('each answers generated hostile arguments with a result or an isError with text, and nothing outside shows', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(10);
    let calls = 0;
    for (const tool of tools) {
      const keys = Object.keys((tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {});
      await fc.assert(
        fc.asyncProperty(argumentsFor(keys, SEEDS[tool.name]), async (args) => {
          calls += 1;
          const result = await mcp.call(tool.name, args);
          tally(`${tool.name} ${result.isError ? 'error' : 'ok'}`);
          const text = answerText(result);
          if (result.isError) {
            expect(result.content.some((part) => part.type === 'text' && part.text.trim() !== '')).toBe(true);
          } else {
            expect(Array.isArray(result.content)).toBe(true);
          }
          expectNothingOutside(text);
        }),
        { ...MCP_RUNS, seed: process.env.HOSTILE_SEED ? Number(process.env.HOSTILE_SEED) : undefined },
      );
    }
    expect(calls).toBeGreaterThanOrEqual(tools.length);
    // The server survived: a normal call works.
    const recall = await mcp.call('recall', { query: 'wrangler deploy', all_projects: true });
    expect(recall.isError, answerText(recall)).toBeFalsy();
    expect(answerText(recall)).toContain('wrangler');
  }, 600_000);
});

/** Query parameters the routes read, and then some. */
const QUERY_NAMES = ['cwd', 'q', 'limit', 'since', 'until', 'tz', 'session_id', 'ids', 'type', 'message_id', 'time', 'before', 'after', 'include_drafts', 'project', 'source', 'from_entry', 'to_entry', 'all_projects'];

function toParam(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? 'undefined';
}

function requestFor(method: string, path: string): fc.Arbitrary<{ url: string; init: RequestInit }> {
  const params = path.match(/:\w+/g) ?? [];
  return fc
    .record({
      segments: fc.array(hostileValue(), { minLength: params.length, maxLength: params.length }),
      query: fc.array(fc.tuple(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...QUERY_NAMES) }, { weight: 1, arbitrary: fc.string({ maxLength: 6 }) }), hostileValue()), { maxLength: 5 }),
      body: fc.oneof(
        { weight: 5, arbitrary: argumentsFor(['query', 'text', 'cwd', 'task', 'budget', 'error', 'planning', 'namespace', 'all_namespaces', 'all_projects', 'limit', 'scope', 'session_id', 'message_ids', 'session', 'project', 'since', 'until'], SEEDS[`${method} ${path}`]).map((value) => JSON.stringify(value)) },
        { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
        { weight: 1, arbitrary: fc.integer({ min: 100, max: 3000 }).map((depth) => JSON.stringify(nested(depth))) },
        { weight: 1, arbitrary: fc.constant('x'.repeat(70_000)) },
      ),
    })
    .map(({ segments, query, body }) => {
      let at = 0;
      const filled = path.replace(/:\w+/g, () => encodeURIComponent(toParam(segments[at++])));
      const seeded = method === 'GET' ? Object.entries(SEEDS[`${method} ${path}`] ?? {}).filter(([name]) => !query.some(([other]) => other === name)) : [];
      const pairs = [...seeded, ...query];
      const search = new URLSearchParams(pairs.map(([name, value]): [string, string] => [name, toParam(value)]));
      const url = `${filled}${pairs.length > 0 ? `?${search.toString()}` : ''}`;
      const init: RequestInit = method === 'GET' ? { method } : { method, headers: { 'content-type': 'application/json' }, body };
      return { url, init };
    });
}

describe('HTTP: every route the app holds', () => {
  test('each answers generated hostile requests with JSON — a result or a 4xx with an error code, never a 500 — and nothing outside shows', async () => {
    const routes = [...new Map(app.routes.filter((route) => route.method !== 'ALL').map((route) => [`${route.method} ${route.path}`, route])).values()];
    expect(routes.length).toBeGreaterThanOrEqual(10);
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(requestFor(route.method, route.path), async ({ url, init }) => {
          const response = await app.request(url, init);
          const text = await response.text();
          tally(`${route.method} ${route.path} ${response.status}`);
          expect(response.status, `${route.method} ${url.slice(0, 200)} → ${text.slice(0, 300)}`).toBeLessThan(500);
          // The web view's own files (docs/web.md): the built page, script or stylesheet, whatever was asked.
          if (WEB_PATHS.has(route.path) && response.ok) {
            expect(response.headers.get('content-type')).toMatch(/^text\/(html|javascript|css)/);
            expectNothingOutside(text);
            return;
          }
          const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
          if (response.status >= 400) {
            expect(typeof body.error?.code, text.slice(0, 300)).toBe('string');
            expect(typeof body.error?.message).toBe('string');
          }
          expectNothingOutside(text);
        }),
        { ...HTTP_RUNS, seed: process.env.HOSTILE_SEED ? Number(process.env.HOSTILE_SEED) : undefined },
      );
    }
    // Still serving.
    const health = await app.request('/v1/health');
    expect(health.status).toBe(200);
    const recall = await app.request('/v1/recall', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'wrangler deploy' }) });
    expect(recall.status).toBe(200);
  }, 600_000);
});
