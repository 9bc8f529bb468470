import { describe, expect, it } from 'vitest';
import { ANTHROPIC_JSON_INSTRUCTION, AnthropicProvider } from '../../src/llm/anthropic.js';
import { createProvider } from '../../src/llm/index.js';
import { sendJson, startLoopbackServer } from '../helpers/loopback-server.js';
import { createVendorProvider, defineTransportCases, expectMoonError, TEST_KEY, type VendorSpec } from './transport-cases.js';

/** A Messages API answer as Anthropic sends it. */
function message(content: unknown[], stop_reason: unknown = 'end_turn'): unknown {
  return {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content,
    stop_reason,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 3 },
  };
}

const anthropic: VendorSpec = {
  provider: 'anthropic',
  model: 'claude-test-haiku',
  keyEnv: 'MOON_TEST_ANTHROPIC_KEY',
  path: '/v1/messages',
  answer: (text) => message([{ type: 'text', text }]),
  textless: message([{ type: 'tool_use', id: 'toolu_1', name: 'x', input: {} }]),
};

describe('anthropic provider against a loopback /v1/messages', () => {
  it('posts model, max_tokens, system and one user message, with x-api-key and anthropic-version', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 200, message([{ type: 'text', text: 'The build is green.' }])));
    const provider = createVendorProvider(anthropic, server.baseUrl);
    expect(provider.name).toBe('anthropic');
    expect(provider.model).toBe('claude-test-haiku');
    expect(await provider.complete('Summarise: build green.', { system: 'You write summaries.', maxTokens: 200 })).toBe('The build is green.');
    const [request] = server.requests;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/v1/messages');
    expect(request!.headers['x-api-key']).toBe(TEST_KEY);
    expect(request!.headers['anthropic-version']).toBe('2023-06-01');
    expect(request!.headers.authorization).toBeUndefined();
    expect(request!.body).toEqual({
      model: 'claude-test-haiku',
      max_tokens: 200,
      system: 'You write summaries.',
      messages: [{ role: 'user', content: 'Summarise: build green.' }],
    });
  });

  it('has no JSON mode: asks for JSON in the system text, and takes a fence off the answer', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 200, message([{ type: 'text', text: '```json\n{"summary": "x"}\n```' }])));
    const provider = createVendorProvider(anthropic, server.baseUrl);
    expect(await provider.complete('p', { json: true })).toBe('{"summary": "x"}');
    expect(await provider.complete('p', { json: true, system: 'Be brief.' })).toBe('{"summary": "x"}');
    expect(server.requests[0]!.body).toEqual({ model: 'claude-test-haiku', max_tokens: 1024, system: ANTHROPIC_JSON_INSTRUCTION, messages: [{ role: 'user', content: 'p' }] });
    expect(server.requests[1]!.body!.system).toBe(`Be brief.\n\n${ANTHROPIC_JSON_INSTRUCTION}`);
  });

  it('concatenates the text blocks and skips the others', async () => {
    const server = await startLoopbackServer((_request, _n, res) =>
      sendJson(res, 200, message([{ type: 'thinking', thinking: 'hmm', signature: 's' }, { type: 'text', text: 'first, ' }, { type: 'text', text: 'second' }])),
    );
    expect(await createVendorProvider(anthropic, server.baseUrl).complete('p')).toBe('first, second');
  });

  it('treats a refusal, an unexpected stop and wrong types as errors naming provider and model', async () => {
    const bodies: [unknown, RegExp][] = [
      [message([], 'refusal'), /the model refused \(stop_reason "refusal"\)/],
      [message([{ type: 'text', text: 'calling a tool' }], 'tool_use'), /stopped without answering \(stop_reason "tool_use"\)/],
      [message([{ type: 'text', text: 7 }]), /a text block's text is not text: "7"/],
      [message([{ type: 'text', text: ' \n ' }]), /the text of content\[\] is empty/],
      [{ type: 'message', content: 'not a list' }, /no content\[\] in /],
      [message([{ type: 'text', text: '{"cut": ' }], 'max_tokens'), /JSON answer was cut off at the token limit \(stop_reason "max_tokens", max 1024 tokens\)/],
    ];
    const server = await startLoopbackServer((_request, n, res) => sendJson(res, 200, bodies[n - 1]![0]));
    const provider = createVendorProvider(anthropic, server.baseUrl);
    for (const [, pattern] of bodies) {
      const error = await expectMoonError(provider.complete('p', { json: true }), 'io', pattern);
      expect(error.message).toMatch(/^anthropic model "claude-test-haiku" gave no usable answer: /);
    }
  });

  it('keeps a text answer cut at max_tokens', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 200, message([{ type: 'text', text: 'The build is' }], 'max_tokens')));
    expect(await createVendorProvider(anthropic, server.baseUrl).complete('p', { maxTokens: 3 })).toBe('The build is');
  });

  it('defaults to api.anthropic.com and ANTHROPIC_API_KEY', () => {
    expect(new AnthropicProvider({ model: 'm' }).endpoint.url.href).toBe('https://api.anthropic.com/v1/messages');
    expect(createProvider({ provider: 'anthropic', model: 'm' }, { ANTHROPIC_API_KEY: 'k-123456' }).name).toBe('anthropic');
    expect(() => createProvider({ provider: 'anthropic', model: 'm' }, { OPENAI_API_KEY: 'k' })).toThrow(/ANTHROPIC_API_KEY/);
  });

  defineTransportCases(anthropic);
});
