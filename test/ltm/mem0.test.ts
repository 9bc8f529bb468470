import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { isMoonError } from '../../src/errors.js';
import { createMem0Client, mem0FromEnv } from '../../src/memory/mem0.js';
import { type RecordedRequest, startLoopbackServer } from '../helpers/loopback-server.js';
import { makeTempDir, runMoon } from '../helpers/cli.js';

const NS = 'github.com/acme/shop';
const OTHER = 'github.com/acme/blog';
const KEY = 'm0-test-key-123456';

/** A small Mem0 platform server: add, v2 search and v2 list, entities filed by user_id, `Token` auth. */
function mem0Server(): { reply: (request: RecordedRequest, n: number, res: ServerResponse) => void; stored: Record<string, unknown>[] } {
  const stored: Record<string, unknown>[] = [];
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const userOf = (body: Record<string, unknown> | undefined): string | undefined =>
    ((body?.filters as { AND?: { user_id?: string }[] } | undefined)?.AND ?? []).find((item) => item.user_id)?.user_id;
  return {
    stored,
    reply(request, _n, res) {
      if (request.headers.authorization !== `Token ${KEY}`) return send(res, 401, { detail: 'Invalid API key' });
      const path = (request.url ?? '').split('?')[0];
      if (request.method === 'POST' && path === '/v1/memories/') {
        const body = request.body!;
        const id = `m0-${stored.length + 1}`;
        const text = (body.messages as { content: string }[])[0]!.content;
        stored.push({ id, memory: text, user_id: body.user_id, metadata: body.metadata, created_at: '2026-03-01T09:00:00Z', updated_at: '2026-03-01T09:00:00Z' });
        return send(res, 200, [{ id, data: { memory: text }, event: 'ADD' }]);
      }
      const user = userOf(request.body);
      const mine = stored.filter((item) => user === '*' || item.user_id === user);
      if (request.method === 'POST' && path === '/v2/memories/search/') {
        const words = String(request.body?.query ?? '').toLowerCase().split(/\s+/);
        return send(res, 200, mine.filter((item) => words.every((word) => String(item.memory).toLowerCase().includes(word))));
      }
      if (request.method === 'POST' && path === '/v2/memories/') return send(res, 200, { results: mine });
      return send(res, 404, { detail: 'not found' });
    },
  };
}

describe('Mem0 backend (loopback server speaking the platform API)', () => {
  test('add, search and list: the envelope travels in metadata, namespaces stay apart', async () => {
    const fake = mem0Server();
    const server = await startLoopbackServer(fake.reply);
    const client = createMem0Client({ baseUrl: server.baseUrl, apiKey: KEY });
    const provenance = [{ source: 'manual', session_ids: ['s1'], message_ids: [] }];
    expect(await client.add({ text: 'Deploys go through the release train on Tuesdays', namespace_id: NS, repo: NS, scope: 'team', review_state: 'draft', provenance })).toEqual({ ids: ['m0-1'] });
    await client.add({ text: 'Deploys go through the release train on Tuesdays', namespace_id: OTHER, repo: OTHER, scope: 'project', review_state: 'draft', provenance: [] });
    const added = server.requests[0]!;
    expect(added.body).toMatchObject({
      messages: [{ role: 'user', content: 'Deploys go through the release train on Tuesdays' }],
      user_id: NS,
      infer: false,
      metadata: { namespace_id: NS, repo: NS, scope: 'team', review_state: 'draft', provenance },
    });
    const found = await client.search('release train', NS);
    expect(found).toEqual([
      expect.objectContaining({ id: 'm0-1', record_kind: 'long_term', namespace_id: NS, scope: 'team', review_state: 'draft', provenance, created_at_ms: Date.UTC(2026, 2, 1, 9) }),
    ]);
    expect(server.requests.at(-1)!.body).toMatchObject({ query: 'release train', filters: { AND: [{ user_id: NS }] } });
    expect((await client.list(OTHER)).map((item) => item.id)).toEqual(['m0-2']);
    expect((await client.list(null)).map((item) => item.id)).toEqual(['m0-1', 'm0-2']);
  });

  test('a server that ignores the namespace filter still leaks nothing of another namespace', async () => {
    const server = await startLoopbackServer((_request, _n, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([
        { id: 'a', memory: 'mine', metadata: { namespace_id: NS } },
        { id: 'b', memory: 'theirs', metadata: { namespace_id: OTHER } },
      ]));
    });
    const client = createMem0Client({ baseUrl: server.baseUrl, apiKey: KEY });
    expect((await client.search('anything', NS)).map((item) => item.id)).toEqual(['a']);
  });

  test('401: a configuration error naming MEM0_API_KEY, never the key', async () => {
    const server = await startLoopbackServer(mem0Server().reply);
    const client = createMem0Client({ baseUrl: server.baseUrl, apiKey: 'wrong-key-999' });
    const error = await client.list(NS).catch((caught: unknown) => caught);
    expect(isMoonError(error) && error.code).toBe('bad_config');
    expect((error as Error).message).toContain('401');
    expect((error as { hint?: string }).hint).toContain('MEM0_API_KEY');
    expect(JSON.stringify(error)).not.toContain('wrong-key-999');
    expect(server.requests).toHaveLength(1);
  });

  test('500 is retried, then succeeds', async () => {
    const fake = mem0Server();
    const server = await startLoopbackServer((request, n, res) => {
      if (n === 1) {
        res.writeHead(500, { 'content-type': 'application/json' });
        return res.end('{"detail":"boom"}');
      }
      fake.reply(request, n, res);
    });
    const client = createMem0Client({ baseUrl: server.baseUrl, apiKey: KEY, retryBaseMs: 1 });
    expect(await client.list(NS)).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  test('malformed bodies: not JSON, no list, an entry without text', async () => {
    const bodies = ['<html>oops</html>', '{"detail":"ok"}', '[{"id":"x"}]'];
    for (const body of bodies) {
      const server = await startLoopbackServer((_request, _n, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      });
      const client = createMem0Client({ baseUrl: server.baseUrl, apiKey: KEY });
      const error = await client.search('x', NS).catch((caught: unknown) => caught);
      expect(isMoonError(error) && error.code).toBe('io');
      expect((error as Error).message).toMatch(/malformed|unexpected body/);
    }
  });

  test('configuration: off unless MEMORY_LONG_TERM=mem0; a key is required', () => {
    expect(mem0FromEnv({})).toBeNull();
    expect(mem0FromEnv({ MEMORY_LONG_TERM: 'moon' })).toBeNull();
    expect(() => mem0FromEnv({ MEMORY_LONG_TERM: 'mem0' })).toThrow(/MEM0_API_KEY/);
    expect(mem0FromEnv({ MEMORY_LONG_TERM: 'mem0', MEM0_API_KEY: KEY, MEM0_BASE_URL: 'http://127.0.0.1:1' })).not.toBeNull();
  });

  describe('through the CLI', () => {
    let home: { path: string; cleanup: () => void };
    beforeEach(() => {
      home = makeTempDir('moon-ltm-mem0-');
    });
    afterEach(() => home.cleanup());

    test('moon memory add/search/list go to Mem0; review commands say they need moon\'s store', async () => {
      const server = await startLoopbackServer(mem0Server().reply);
      const env = { HOME: home.path, MEMORY_LONG_TERM: 'mem0', MEM0_BASE_URL: server.baseUrl, MEM0_API_KEY: KEY };
      const added = await runMoon(['--home', home.path, 'memory', 'add', 'Feature flags live in config/flags.yaml', '--namespace', NS, '--json'], env);
      expect(added.code).toBe(0);
      expect(JSON.parse(added.stdout)).toMatchObject({ id: 'm0-1', review_state: 'draft', namespace_id: NS });
      const searched = await runMoon(['--home', home.path, 'memory', 'search', 'feature flags', '--namespace', NS, '--json'], env);
      expect(JSON.parse(searched.stdout).memories.map((item: { id: string }) => item.id)).toEqual(['m0-1']);
      const other = await runMoon(['--home', home.path, 'memory', 'list', '--namespace', OTHER, '--json'], env);
      expect(JSON.parse(other.stdout).memories).toEqual([]);
      const approve = await runMoon(['--home', home.path, 'memory', 'approve', 'm0-1', '--namespace', NS], env);
      expect(approve.code).toBe(2);
      expect(approve.stderr).toContain('MEMORY_LONG_TERM=mem0');
    });
  });
});
