import { describe, expect, it } from 'vitest';
import { createProvider } from '../../src/llm/index.js';
import { createOpenAICompatibleProvider, createOpenAIProvider } from '../../src/llm/openai.js';
import { sendJson, startLoopbackServer } from '../helpers/loopback-server.js';
import { createVendorProvider, defineTransportCases, expectMoonError, TEST_KEY, type VendorSpec } from './transport-cases.js';

/** A chat completion as OpenAI sends it. */
function chatAnswer(content: unknown, extra: { finish_reason?: unknown; refusal?: unknown } = {}): unknown {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-test',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: extra.refusal ?? null }, finish_reason: extra.finish_reason ?? 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
  };
}

const openai: VendorSpec = {
  provider: 'openai',
  model: 'gpt-test-mini',
  keyEnv: 'MOON_TEST_OPENAI_KEY',
  path: '/v1/chat/completions',
  answer: (text) => chatAnswer(text),
  textless: { id: 'x', object: 'chat.completion', choices: [] },
};

const compatible: VendorSpec = { ...openai, provider: 'openai-compatible', model: 'llama3.1:8b', keyEnv: 'MOON_TEST_LOCAL_LLM_KEY' };

describe('openai provider against a loopback /v1/chat/completions', () => {
  it('posts model, system + user messages, max_completion_tokens and JSON mode, with the bearer key', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 200, chatAnswer('{"summary":"ok"}')));
    const provider = createVendorProvider(openai, server.baseUrl);
    expect(provider.name).toBe('openai');
    expect(provider.model).toBe('gpt-test-mini');
    expect(provider.generative).toBe(true);
    const answer = await provider.complete('Summarise in JSON: the build is green.', { system: 'You write summaries.', json: true, maxTokens: 300 });
    expect(answer).toBe('{"summary":"ok"}');
    const [request] = server.requests;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/v1/chat/completions');
    expect(request!.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.body).toEqual({
      model: 'gpt-test-mini',
      messages: [
        { role: 'system', content: 'You write summaries.' },
        { role: 'user', content: 'Summarise in JSON: the build is green.' },
      ],
      max_completion_tokens: 300,
      response_format: { type: 'json_object' },
    });
  });

  it('sends neither a system message nor response_format when not asked, and the default token bound', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 200, chatAnswer('  plain answer\n')));
    expect(await createVendorProvider(openai, `${server.baseUrl}/v1/`).complete('hi')).toBe('plain answer');
    expect(server.requests[0]!.url).toBe('/v1/chat/completions');
    expect(server.requests[0]!.body).toEqual({ model: 'gpt-test-mini', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 1024 });
  });

  it('defaults to api.openai.com and OPENAI_API_KEY', () => {
    expect(createOpenAIProvider({ model: 'm' }).endpoint.url.href).toBe('https://api.openai.com/v1/chat/completions');
    const provider = createProvider({ provider: 'openai', model: 'm' }, { OPENAI_API_KEY: 'k-123456' });
    expect(provider.name).toBe('openai');
    expect(() => createProvider({ provider: 'openai', model: 'm' }, {})).toThrow(/OPENAI_API_KEY \(distill\.api_key_env default\) is unset or empty/);
  });

  it('treats refusals, the content filter and tool calls as errors, not answers', async () => {
    const bodies: [unknown, RegExp][] = [
      [chatAnswer(null, { refusal: 'I cannot help with that.' }), /the model refused: "I cannot help with that\."/],
      [chatAnswer('', { finish_reason: 'content_filter' }), /content filter withheld the answer \(finish_reason "content_filter"\)/],
      [chatAnswer(null, { finish_reason: 'tool_calls' }), /called a tool instead of answering/],
      [chatAnswer(null), /choices\[0\]\.message\.content is not text: "null"/],
      [chatAnswer(42), /choices\[0\]\.message\.content is not text: "42"/],
      [chatAnswer('   '), /choices\[0\]\.message\.content is empty/],
      [{ choices: [{ finish_reason: 'stop' }] }, /choices\[0\]\.message is nothing/],
      [{ error: 'odd' }, /no choices\[\] in "\{\\"error\\":\\"odd\\"\}"/],
    ];
    const server = await startLoopbackServer((_request, n, res) => sendJson(res, 200, bodies[n - 1]![0]));
    const provider = createVendorProvider(openai, server.baseUrl);
    for (const [, pattern] of bodies) {
      const error = await expectMoonError(provider.complete('hello'), 'io', pattern);
      expect(error.message).toMatch(/^openai model "gpt-test-mini" gave no usable answer: /);
    }
    expect(server.requests).toHaveLength(bodies.length);
  });

  it('keeps an answer cut at the token limit as text, but not a cut JSON answer', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 200, chatAnswer('{"summary": "the build', { finish_reason: 'length' })));
    const provider = createVendorProvider(openai, server.baseUrl);
    expect(await provider.complete('hello', { maxTokens: 5 })).toBe('{"summary": "the build');
    await expectMoonError(provider.complete('hello', { json: true, maxTokens: 5 }), 'io', /JSON answer was cut off at the token limit \(finish_reason "length", max 5 tokens\)/);
  });

  it('takes a Markdown fence off a JSON answer, and joins text parts', async () => {
    const bodies = [chatAnswer('```json\n{"a": 1}\n```'), chatAnswer([{ type: 'text', text: 'one ' }, { type: 'text', text: 'two' }])];
    const server = await startLoopbackServer((_request, n, res) => sendJson(res, 200, bodies[n - 1]));
    const provider = createVendorProvider(openai, server.baseUrl);
    expect(await provider.complete('x', { json: true })).toBe('{"a": 1}');
    expect(await provider.complete('x')).toBe('one two');
  });

  defineTransportCases(openai);
});

describe('openai-compatible provider against a loopback server', () => {
  it('posts max_tokens and no Authorization when no key variable is named', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 200, chatAnswer('local answer')));
    const provider = createProvider({ provider: 'openai-compatible', model: 'llama3.1:8b', base_url: `${server.baseUrl}/v1` }, {});
    expect(await provider.complete('hi', { maxTokens: 64, json: true, system: 'be brief' })).toBe('local answer');
    const [request] = server.requests;
    expect(request!.url).toBe('/v1/chat/completions');
    expect(request!.headers.authorization).toBeUndefined();
    expect(request!.body).toEqual({
      model: 'llama3.1:8b',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      max_tokens: 64,
      response_format: { type: 'json_object' },
    });
  });

  it('sends the key from distill.api_key_env as a bearer token', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 200, chatAnswer('ok')));
    await createVendorProvider(compatible, server.baseUrl).complete('hi');
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
  });

  it('requires distill.base_url and accepts it with or without /v1, or as the full URL', () => {
    expect(() => createOpenAICompatibleProvider({ model: 'm' })).toThrow(/distill\.base_url is required when distill\.provider = "openai-compatible"/);
    for (const base of ['http://127.0.0.1:11434', 'http://127.0.0.1:11434/', 'http://127.0.0.1:11434/v1', 'http://127.0.0.1:11434/v1/chat/completions']) {
      expect(createOpenAICompatibleProvider({ model: 'm', baseUrl: base }).endpoint.url.href).toBe('http://127.0.0.1:11434/v1/chat/completions');
    }
    const proxied = createOpenAICompatibleProvider({ model: 'm', baseUrl: 'https://user:pw@gw.example/llm?tenant=a' });
    expect(proxied.endpoint.url.href).toBe('https://user:pw@gw.example/llm/v1/chat/completions?tenant=a');
    expect(proxied.endpoint.label).toBe('https://gw.example/llm/v1/chat/completions');
    expect(() => createOpenAICompatibleProvider({ model: 'm', baseUrl: 'ftp://x' })).toThrow(/distill\.base_url must be an http\(s\) URL/);
  });

  defineTransportCases(compatible);
});
