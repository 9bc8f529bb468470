import { describe, expect, it } from 'vitest';
import { failure } from '../helpers/moon-error.js';
import { computeRetryDelay, parseRetryAfter, postJson, type PostJsonOptions } from '../../src/net/http.js';
import { sendJson, sendText, startLoopbackServer } from '../helpers/loopback-server.js';

const base: PostJsonOptions = { subject: 'test', model: 'm', timeoutMs: 5_000, retryBaseMs: 5 };

describe('postJson', () => {
  it('posts the body as JSON with the given headers and returns the parsed answer', async () => {
    const server = await startLoopbackServer((request, _n, res) => sendJson(res, 200, { echoed: request.body }));
    const answer = await postJson(`${server.baseUrl}/api/run?x=1`, { a: [1, 'two'] }, { ...base, headers: { 'x-extra': 'yes' } });
    expect(answer).toEqual({ echoed: { a: [1, 'two'] } });
    const [request] = server.requests;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/api/run?x=1');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.accept).toBe('application/json');
    expect(request!.headers['x-extra']).toBe('yes');
  });

  it('waits the Retry-After seconds, not its own 5 ms backoff', async () => {
    const server = await startLoopbackServer((_request, n, res) => (n === 1 ? sendJson(res, 429, {}, { 'retry-after': '1' }) : sendJson(res, 200, { ok: true })));
    expect(await postJson(server.baseUrl, {}, base)).toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(900);
  });

  it('reads Retry-After as an HTTP date, and caps every wait at maxRetryDelayMs', async () => {
    const past = new Date(Date.now() - 60_000).toUTCString();
    const dated = await startLoopbackServer((_request, n, res) => (n === 1 ? sendJson(res, 503, {}, { 'retry-after': past }) : sendJson(res, 200, 1)));
    const started = Date.now();
    expect(await postJson(dated.baseUrl, {}, { ...base, retryBaseMs: 10_000 })).toBe(1);
    expect(Date.now() - started).toBeLessThan(2_000);

    const greedy = await startLoopbackServer((_request, n, res) => (n === 1 ? sendJson(res, 429, {}, { 'retry-after': '3600' }) : sendJson(res, 200, 2)));
    const again = Date.now();
    expect(await postJson(greedy.baseUrl, {}, { ...base, maxRetryDelayMs: 50 })).toBe(2);
    expect(Date.now() - again).toBeLessThan(2_000);
    expect(greedy.requests).toHaveLength(2);
  });

  it('backs off exponentially with a little jitter', () => {
    const options = { retryBaseMs: 100, maxRetryDelayMs: 1_000 };
    for (let i = 0; i < 20; i++) {
      expect(computeRetryDelay(1, null, options)).toBeGreaterThanOrEqual(100);
      expect(computeRetryDelay(1, null, options)).toBeLessThanOrEqual(120);
      expect(computeRetryDelay(3, null, options)).toBeGreaterThanOrEqual(400);
      expect(computeRetryDelay(3, null, options)).toBeLessThanOrEqual(480);
    }
    expect(computeRetryDelay(10, null, options)).toBe(1_000);
    expect(computeRetryDelay(1, '2', options)).toBe(1_000);
    expect(computeRetryDelay(1, '0.5', options)).toBe(500);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:03 GMT', Date.parse('2025-01-01T00:00:00Z'))).toBe(3_000);
    expect(parseRetryAfter('later')).toBeNull();
  });

  it('retries network failures and then names the endpoint without credentials or query', async () => {
    const server = await startLoopbackServer(() => {});
    const { baseUrl } = server;
    await server.close();
    const url = `${baseUrl.replace('http://', 'http://user:hunter22@')}/v1/x?key=secret-in-query`;
    const error = await failure(postJson(url, {}, base));
    expect(error.code).toBe('io');
    expect(error.message).toMatch(new RegExp(`^test request to ${baseUrl}/v1/x \\(model "m"\\) failed after 3 tries: .*ECONNREFUSED`));
    expect(error.message).not.toContain('hunter22');
    expect(error.message).not.toContain('secret-in-query');
  });

  it('sends user:password@ from the URL as Basic auth, and keeps the password out of messages', async () => {
    const server = await startLoopbackServer((request, _n, res) => sendText(res, 400, `no access for ${request.url} with password hunter22`));
    const url = `${server.baseUrl.replace('http://', 'http://me:hunter22@')}/v1/x?key=secret-in-query`;
    const error = await failure(postJson(url, {}, base));
    expect(server.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from('me:hunter22').toString('base64')}`);
    expect(server.requests[0]!.url).toBe('/v1/x?key=secret-in-query');
    expect(error.message).toMatch(/answered HTTP 400 for model "m": "no access for \/v1\/x\?key=\[REDACTED\] with password \[REDACTED\]"/);
  });

  it('scrubs bearer tokens and api-key headers from what the server says', async () => {
    const server = await startLoopbackServer((request, _n, res) =>
      sendText(res, 422, `bad: ${String(request.headers.authorization)} / ${String(request.headers['x-goog-api-key'])}`),
    );
    const error = await failure(
      postJson(server.baseUrl, {}, { ...base, headers: { Authorization: 'Bearer tok-abcdef123', 'x-goog-api-key': 'goog-999999' } }),
    );
    expect(error.message).toContain('answered HTTP 422 for model "m"');
    expect(error.message).not.toContain('tok-abcdef123');
    expect(error.message).not.toContain('goog-999999');
    expect(error.message).toContain('Bearer [REDACTED] / [REDACTED]');
    expect(server.requests).toHaveLength(1);
  });

  it('quotes a short excerpt of a long error body and says when a body is empty', async () => {
    const long = await startLoopbackServer((_request, _n, res) => sendText(res, 400, `${'x'.repeat(1_000)}TAIL`));
    const error = await failure(postJson(long.baseUrl, {}, base));
    expect(error.message).not.toContain('TAIL');
    expect(error.message.length).toBeLessThan(400);
    const empty = await startLoopbackServer((_request, _n, res) => sendText(res, 409, ''));
    expect((await failure(postJson(empty.baseUrl, {}, base))).message).toMatch(/HTTP 409 for model "m": \(empty body\)$/);
  });

  it('maps 404 to bad_config with its hint', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 404, { error: { message: 'model not found' } }));
    const error = await failure(postJson(server.baseUrl, {}, { ...base, hints: { notFound: 'check the model' } }));
    expect(error.code).toBe('bad_config');
    expect(error.message).toMatch(/HTTP 404 for model "m": model not found/);
    expect(error.hint).toBe('check the model');
  });
});
