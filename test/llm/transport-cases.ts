import { expect, it } from 'vitest';
import type { LlmProviderName } from '../../src/config.js';
import { MoonError } from '../../src/errors.js';
import { createProvider, type DistillConfigInput } from '../../src/llm/index.js';
import type { Provider } from '../../src/llm/provider.js';
import { sendJson, sendText, startLoopbackServer, type Reply } from '../helpers/loopback-server.js';

/**
 * The transport behaviour every cloud provider shares (it is postJson's), run against each vendor's own API
 * shape: retries of 429 (Retry-After honoured) and 5xx, giving up after distill.max_tries, the timeout, malformed
 * bodies, 4xx not retried, and the key kept out of messages.
 */
export interface VendorSpec {
  provider: Exclude<LlmProviderName, 'local'>;
  model: string;
  /** The variable the key is read from in these tests (set through distill.api_key_env). */
  keyEnv: string;
  /** The path the request must go to. */
  path: string;
  /** A 200 body whose answer text is `text`. */
  answer(text: string): unknown;
  /** A 200 body that is JSON but holds no answer text. */
  textless: unknown;
}

export const TEST_KEY = 'sk-test-0123456789abcdef';

export function createVendorProvider(spec: VendorSpec, baseUrl: string, config: Partial<DistillConfigInput> = {}, retryBaseMs = 5): Provider {
  return createProvider(
    { provider: spec.provider, model: spec.model, base_url: baseUrl, api_key_env: spec.keyEnv, timeout_ms: 5_000, max_tries: 3, ...config },
    { [spec.keyEnv]: TEST_KEY },
    { retryBaseMs },
  );
}

export async function expectMoonError(promise: Promise<unknown>, code: MoonError['code'], pattern: RegExp): Promise<MoonError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a MoonError, got success');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MoonError);
  const moon = error as MoonError;
  expect(moon.message).toMatch(pattern);
  expect(moon.code).toBe(code);
  expect(`${moon.message} ${moon.hint ?? ''}`).not.toContain(TEST_KEY);
  return moon;
}

export function defineTransportCases(spec: VendorSpec): void {
  const succeedAfter = (failures: number, fail: Reply): Reply => (request, n, res) =>
    n <= failures ? fail(request, n, res) : sendJson(res, 200, spec.answer(`answer ${n}`));

  it('honours Retry-After on a 429 instead of its own backoff, then succeeds', async () => {
    const server = await startLoopbackServer(
      succeedAfter(1, (_request, _n, res) => sendJson(res, 429, { error: { message: 'rate limited' } }, { 'retry-after': '0' })),
    );
    // A 10 s backoff would fail the test's budget: only Retry-After: 0 lets the retry come at once.
    const provider = createVendorProvider(spec, server.baseUrl, {}, 10_000);
    const started = Date.now();
    expect(await provider.complete('hello')).toBe('answer 2');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.raw).toBe(server.requests[0]!.raw);
  });

  it('retries a 500 then succeeds', async () => {
    const server = await startLoopbackServer(succeedAfter(1, (_request, _n, res) => sendJson(res, 500, { error: { message: 'internal' } })));
    expect(await createVendorProvider(spec, server.baseUrl).complete('hello')).toBe('answer 2');
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after distill.max_tries on a 500 that never ends', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 503, { error: { message: 'overloaded, try later' } }));
    const provider = createVendorProvider(spec, server.baseUrl, { max_tries: 4 });
    await expectMoonError(
      provider.complete('hello'),
      'io',
      new RegExp(`^${spec.provider} endpoint ${server.baseUrl}${escape(spec.path)} answered HTTP 503 after 4 tries for model "${escape(spec.model)}": overloaded, try later$`),
    );
    expect(server.requests).toHaveLength(4);
  });

  it('times out a request that gets no answer, naming the endpoint and the timeout, and does not retry it', async () => {
    const server = await startLoopbackServer(() => {
      // never answers; the connection is closed after the test
    });
    const provider = createVendorProvider(spec, server.baseUrl, { timeout_ms: 200 });
    const started = Date.now();
    const error = await expectMoonError(
      provider.complete('hello'),
      'io',
      new RegExp(`^${spec.provider} request to ${server.baseUrl}${escape(spec.path)} \\(model "${escape(spec.model)}"\\) timed out after 200 ms$`),
    );
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error.hint).toContain('distill.timeout_ms');
    expect(server.requests).toHaveLength(1);
  });

  it('honours a per-call timeoutMs over distill.timeout_ms', async () => {
    const server = await startLoopbackServer(() => {});
    await expectMoonError(createVendorProvider(spec, server.baseUrl).complete('hello', { timeoutMs: 150 }), 'io', /timed out after 150 ms/);
  });

  it('rejects a 200 whose body is not JSON as a malformed response', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendText(res, 200, '<html>gateway says hi</html>', 'text/html'));
    await expectMoonError(
      createVendorProvider(spec, server.baseUrl).complete('hello'),
      'io',
      new RegExp(`^malformed response from ${server.baseUrl}${escape(spec.path)} \\(${spec.provider} for model "${escape(spec.model)}"\\): HTTP 200 .*not JSON: "<html>gateway says hi</html>"`),
    );
    expect(server.requests).toHaveLength(1);
  });

  it('rejects JSON without the answer text, naming provider and model', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 200, spec.textless));
    await expectMoonError(
      createVendorProvider(spec, server.baseUrl).complete('hello'),
      'io',
      new RegExp(`^${spec.provider} model "${escape(spec.model)}" gave no usable answer: `),
    );
  });

  it('does not retry a 400, passes on the server message, and never repeats the key it echoes', async () => {
    const server = await startLoopbackServer((_request, _n, res) =>
      sendJson(res, 400, { error: { message: `invalid request for key ${TEST_KEY}: max tokens too large` } }),
    );
    const error = await expectMoonError(createVendorProvider(spec, server.baseUrl).complete('hello'), 'io', /answered HTTP 400 for model .*max tokens too large/);
    expect(error.message).toContain('[REDACTED]');
    expect(server.requests).toHaveLength(1);
  });

  it('reports a 401 as bad_config pointing at the key variable', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 401, { error: { message: 'invalid x-api-key' } }));
    const error = await expectMoonError(createVendorProvider(spec, server.baseUrl).complete('hello'), 'bad_config', /HTTP 401 .*invalid x-api-key/);
    expect(error.hint).toContain(`$${spec.keyEnv} (distill.api_key_env)`);
    expect(server.requests).toHaveLength(1);
  });

  it('names distill.api_key_env and the variable when the key is missing, before any request', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 200, spec.answer('x')));
    for (const env of [{}, { [spec.keyEnv]: '' }, { [spec.keyEnv]: '   ' }]) {
      let caught: unknown;
      try {
        createProvider({ provider: spec.provider, model: spec.model, base_url: server.baseUrl, api_key_env: spec.keyEnv }, env);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(MoonError);
      expect((caught as MoonError).code).toBe('bad_config');
      expect((caught as MoonError).message).toContain('distill.api_key_env');
      expect((caught as MoonError).message).toContain(spec.keyEnv);
    }
    expect(server.requests).toHaveLength(0);
  });
}

export function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/gu, '\\$&');
}
