import { describe, expect, it } from 'vitest';
import { GeminiProvider } from '../../src/llm/gemini.js';
import { createProvider } from '../../src/llm/index.js';
import { sendJson, startLoopbackServer } from '../helpers/loopback-server.js';
import { createVendorProvider, defineTransportCases, expectMoonError, TEST_KEY, type VendorSpec } from './transport-cases.js';

/** A generateContent answer as Gemini sends it. */
function generated(parts: unknown[], finishReason: unknown = 'STOP'): unknown {
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }],
    usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2, totalTokenCount: 6 },
    modelVersion: 'gemini-test',
  };
}

const gemini: VendorSpec = {
  provider: 'gemini',
  model: 'gemini-test-flash',
  keyEnv: 'MOON_TEST_GEMINI_KEY',
  path: '/v1beta/models/gemini-test-flash:generateContent',
  answer: (text) => generated([{ text }]),
  textless: generated([{ functionCall: { name: 'x', args: {} } }]),
};

describe('gemini provider against a loopback /v1beta/models/{model}:generateContent', () => {
  it('posts contents, systemInstruction and generationConfig (maxOutputTokens, JSON mime type) with x-goog-api-key', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 200, generated([{ text: '{"summary":' }, { text: '"green"}' }])));
    const provider = createVendorProvider(gemini, server.baseUrl);
    expect(provider.name).toBe('gemini');
    expect(provider.model).toBe('gemini-test-flash');
    expect(await provider.complete('Summarise: build green.', { system: 'You write summaries.', json: true, maxTokens: 256 })).toBe('{"summary":"green"}');
    const [request] = server.requests;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/v1beta/models/gemini-test-flash:generateContent');
    expect(request!.headers['x-goog-api-key']).toBe(TEST_KEY);
    expect(request!.headers.authorization).toBeUndefined();
    expect(request!.url).not.toContain(TEST_KEY);
    expect(request!.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Summarise: build green.' }] }],
      systemInstruction: { parts: [{ text: 'You write summaries.' }] },
      generationConfig: { maxOutputTokens: 256, responseMimeType: 'application/json' },
    });
  });

  it('sends no systemInstruction or mime type when not asked; skips thought parts', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 200, generated([{ text: 'thinking...', thought: true }, { text: 'the answer' }])));
    expect(await createVendorProvider(gemini, `${server.baseUrl}/v1beta`).complete('hi')).toBe('the answer');
    expect(server.requests[0]!.url).toBe('/v1beta/models/gemini-test-flash:generateContent');
    expect(server.requests[0]!.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 1024 } });
  });

  it('treats a blocked prompt, a safety stop and wrong types as errors naming provider and model', async () => {
    const bodies: [unknown, RegExp][] = [
      [{ promptFeedback: { blockReason: 'SAFETY', safetyRatings: [] } }, /the prompt was blocked \(promptFeedback\.blockReason "SAFETY"\)/],
      [generated([{ text: 'partial' }], 'SAFETY'), /the answer was blocked \(finishReason "SAFETY"\)/],
      [generated([], 'RECITATION'), /the answer was blocked \(finishReason "RECITATION"\)/],
      [{ candidates: [] }, /no candidates\[\] in /],
      [{ candidates: [{ finishReason: 'STOP' }] }, /candidates\[0\]\.content\.parts is nothing/],
      [generated([{ text: 5 }]), /a part's text is not text: "5"/],
      [generated([{ text: '' }]), /the text of candidates\[0\]\.content\.parts is empty/],
      [generated([{ text: '{"summary": "cut' }], 'MAX_TOKENS'), /JSON answer was cut off at the token limit \(finishReason "MAX_TOKENS", max 1024 tokens\)/],
    ];
    const server = await startLoopbackServer((_request, n, res) => sendJson(res, 200, bodies[n - 1]![0]));
    const provider = createVendorProvider(gemini, server.baseUrl);
    for (const [, pattern] of bodies) {
      const error = await expectMoonError(provider.complete('p', { json: true }), 'io', pattern);
      expect(error.message).toMatch(/^gemini model "gemini-test-flash" gave no usable answer: /);
    }
  });

  it('defaults to generativelanguage.googleapis.com and GEMINI_API_KEY; accepts models/ names', () => {
    expect(new GeminiProvider({ model: 'gemini-2.0-flash' }).endpoint.url.href).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent',
    );
    expect(new GeminiProvider({ model: 'models/gemini-2.0-flash' }).endpoint.url.href).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent',
    );
    expect(createProvider({ provider: 'gemini', model: 'm' }, { GEMINI_API_KEY: 'k-123456' }).name).toBe('gemini');
    expect(() => createProvider({ provider: 'gemini', model: 'm' }, {})).toThrow(/GEMINI_API_KEY/);
  });

  defineTransportCases(gemini);
});
