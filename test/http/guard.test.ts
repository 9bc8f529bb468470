import { request as httpRequest } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startHttpServer } from '../../src/interfaces/http/serve.js';
import { makeTempDir, spawnMoon } from '../helpers/cli.js';
import { type TestHome, makeIndexedHome } from '../helpers/home.js';

/**
 * The local server lets in only the local user: finding 1 replayed on a real socket. A page that rebinds its own
 * name to 127.0.0.1 (foreign Host), a cross-site text/plain POST (no preflight), a guessable token — each refused;
 * loopback names, the server's own origin and a listed origin get through.
 */
let home: TestHome;
let server: { url: string; close: () => Promise<void> };
let port: number;
const ALLOWED = 'https://allowed.example.com';

beforeAll(async () => {
  home = await makeIndexedHome({ zone: 'UTC' });
  server = await startHttpServer(home.moon, { port: 0, version: 'test', allowedOrigins: [ALLOWED] });
  port = Number(new URL(server.url).port);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await home?.cleanup();
});

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP/1.1 request to the server's socket with exactly these headers (fetch will not send a foreign Host). */
function send(method: string, path: string, headers: Record<string, string>, body?: string, address = '127.0.0.1'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: address, port, method, path, headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const host = (name: string): Record<string, string> => ({ host: `${name}:${port}` });

async function draftsOf(cwd: string): Promise<string[]> {
  const memory = await home.moon.memory.longTerm();
  return (await memory.list({ cwd, limit: 50 })).map((entry) => entry.text);
}

describe('Host: only this server, by its address or a loopback name', () => {
  test('a foreign Host (DNS rebinding) is refused with 421 and a JSON error; the session list is not sent', async () => {
    const reply = await send('GET', '/v1/sessions', host('evil.example.com'));
    expect(reply.status).toBe(421);
    expect(JSON.parse(reply.body)).toMatchObject({ error: { code: 'misdirected' } });
    expect(reply.body).not.toContain('sessions');
    expect((await send('GET', '/v1/health', { host: 'evil.example.com' })).status).toBe(421);
    // The right name on another port is another server.
    expect((await send('GET', '/v1/health', { host: `127.0.0.1:${port + 1}` })).status).toBe(421);
    expect((await send('GET', '/v1/health', host('127.0.0.1.evil.example.com'))).status).toBe(421);
  });

  test('loopback aliases with the bound port get through', async () => {
    for (const name of ['127.0.0.1', 'localhost', 'LOCALHOST', '[::1]']) {
      const reply = await send('GET', '/v1/sessions?limit=1', host(name));
      expect(reply.status, name).toBe(200);
      expect(JSON.parse(reply.body)).toHaveProperty('sessions');
    }
  });
});

describe('Origin and body type: no web page writes or reads the memory', () => {
  test('a text/plain POST from a foreign origin is refused and creates no memory', async () => {
    const cwd = '/home/dev/guarded-origin';
    const reply = await send('POST', '/v1/memories', { ...host('127.0.0.1'), origin: 'https://evil.example.com', 'content-type': 'text/plain' }, JSON.stringify({ text: 'planted by a web page', cwd }));
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.body)).toMatchObject({ error: { code: 'forbidden_origin' } });
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
    // Even a JSON POST from that origin: refused.
    const json = await send('POST', '/v1/memories', { ...host('127.0.0.1'), origin: 'https://evil.example.com', 'content-type': 'application/json' }, JSON.stringify({ text: 'planted by a web page', cwd }));
    expect(json.status).toBe(403);
    expect(await draftsOf(cwd)).toEqual([]);
  });

  test('a text/plain POST without an origin is refused with 415; the same body as JSON is taken', async () => {
    const cwd = '/home/dev/guarded-type';
    const body = JSON.stringify({ text: 'build before deploying', cwd });
    const plain = await send('POST', '/v1/memories', { ...host('127.0.0.1'), 'content-type': 'text/plain' }, body);
    expect(plain.status).toBe(415);
    expect(JSON.parse(plain.body)).toMatchObject({ error: { code: 'unsupported_media_type' } });
    const none = await send('POST', '/v1/recall', host('127.0.0.1'), JSON.stringify({ query: 'wrangler' }));
    expect(none.status).toBe(415);
    const form = await send('POST', '/v1/memories', { ...host('127.0.0.1'), 'content-type': 'application/x-www-form-urlencoded' }, 'text=x');
    expect(form.status).toBe(415);
    expect(await draftsOf(cwd)).toEqual([]);
    const own = await send('POST', '/v1/memories', { ...host('localhost'), origin: `http://localhost:${port}`, 'content-type': 'application/json; charset=utf-8' }, body);
    expect(own.status, own.body).toBe(200);
    expect(await draftsOf(cwd)).toEqual(['build before deploying']);
  });

  test('a cross-site request without an Origin (Sec-Fetch-Site) is refused; null origins too', async () => {
    expect((await send('GET', '/v1/sessions', { ...host('127.0.0.1'), 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await send('GET', '/v1/sessions', { ...host('127.0.0.1'), origin: 'null' })).status).toBe(403);
    expect((await send('GET', '/v1/sessions', { ...host('127.0.0.1'), origin: `http://localhost:${port + 1}` })).status).toBe(403);
    expect((await send('GET', '/v1/health', { ...host('127.0.0.1'), 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });

  test('OPTIONS is answered 204; CORS headers only for a listed origin', async () => {
    const bare = await send('OPTIONS', '/v1/memories', host('127.0.0.1'));
    expect(bare.status).toBe(204);
    expect(bare.headers['access-control-allow-origin']).toBeUndefined();
    const foreign = await send('OPTIONS', '/v1/memories', { ...host('127.0.0.1'), origin: 'https://evil.example.com', 'access-control-request-method': 'POST' });
    expect(foreign.status).toBe(204);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    const listed = await send('OPTIONS', '/v1/memories', { ...host('127.0.0.1'), origin: ALLOWED, 'access-control-request-method': 'POST' });
    expect(listed.status).toBe(204);
    expect(listed.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(String(listed.headers['access-control-allow-headers'])).toMatch(/content-type/i);
    const get = await send('GET', '/v1/health', { ...host('127.0.0.1'), origin: ALLOWED });
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBe(ALLOWED);
    // A listed origin still sends JSON.
    expect((await send('POST', '/v1/recall', { ...host('127.0.0.1'), origin: ALLOWED, 'content-type': 'text/plain' }, '{"query":"x"}')).status).toBe(415);
  });
});

describe('the token', () => {
  test('a token shorter than 32 characters is refused before a socket opens, saying how to make one', async () => {
    await expect(startHttpServer(home.moon, { port: 0, version: 'test', token: 'abcde' })).rejects.toThrow(/at least 32/);
    const temp = makeTempDir('moon-guard-');
    try {
      const run = await spawnMoon(['serve', '--port', '0'], { MOON_HOME: join(temp.path, 'home'), MOON_HTTP_TOKEN: 'abcde' });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain('openssl rand -hex 32');
    } finally {
      temp.cleanup();
    }
  }, 30_000);

  test('with a long token, a request still needs it, and the Host rule still holds', async () => {
    const token = 'a'.repeat(16) + 'b'.repeat(16);
    const guarded = await startHttpServer(home.moon, { port: 0, version: 'test', token });
    try {
      const url = new URL(guarded.url);
      const ask = (headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest({ host: '127.0.0.1', port: Number(url.port), path: '/v1/health', headers }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
      expect(await ask({ host: url.host })).toBe(401);
      expect(await ask({ host: url.host, authorization: `Bearer ${token}` })).toBe(200);
      expect(await ask({ host: 'evil.example.com', authorization: `Bearer ${token}` })).toBe(421);
    } finally {
      await guarded.close();
    }
  });
});

describe('serve.allowed_origins', () => {
  test('from moon.toml and MOON_SERVE_ALLOWED_ORIGINS; a bad entry is an error naming the key', () => {
    const temp = makeTempDir('moon-origins-');
    try {
      expect(loadConfig({ home: temp.path, env: {} }).serve.allowed_origins).toEqual([]);
      writeFileSync(join(temp.path, 'moon.toml'), '[serve]\nallowed_origins = ["https://app.example.com"]\n');
      expect(loadConfig({ home: temp.path, env: {} }).serve.allowed_origins).toEqual(['https://app.example.com']);
      const env = { MOON_SERVE_ALLOWED_ORIGINS: 'https://a.example.com, http://localhost:5173' };
      expect(loadConfig({ home: temp.path, env }).serve.allowed_origins).toEqual(['https://a.example.com', 'http://localhost:5173']);
      expect(() => loadConfig({ home: temp.path, env: { MOON_SERVE_ALLOWED_ORIGINS: 'https://a.example.com/path' } })).toThrow(/^MOON_SERVE_ALLOWED_ORIGINS: serve\.allowed_origins/);
      writeFileSync(join(temp.path, 'moon.toml'), '[serve]\nallowed_origins = ["*"]\n');
      expect(() => loadConfig({ home: temp.path, env: {} })).toThrow(/serve\.allowed_origins.*not an origin/);
    } finally {
      temp.cleanup();
    }
  });

  test('moon serve --allow-origin: a bad origin is refused naming the flag', async () => {
    const temp = makeTempDir('moon-origins-');
    try {
      const run = await spawnMoon(['serve', '--port', '0', '--allow-origin', 'evil.example.com'], { MOON_HOME: join(temp.path, 'home') });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--allow-origin');
    } finally {
      temp.cleanup();
    }
  }, 30_000);
});
