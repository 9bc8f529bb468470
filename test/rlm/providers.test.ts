import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MoonError } from '../../src/errors.js';
import { createProvider } from '../../src/llm/index.js';
import { generateHistoryIndex, type GenerateOptions } from '../../src/rlm/generator.js';
import { cachePathFor } from '../../src/rlm/summary-cache.js';
import { sendJson, startLoopbackServer, type RecordedRequest } from '../helpers/loopback-server.js';
import { buildSampleHistory, countTokens } from './history-builder.js';

/**
 * The generator with real providers: OpenAI's chat completions on a loopback server (the `openai-compatible`
 * provider, as a local model server would serve it), and the `command` provider running a stub agent CLI.
 */
const STUB = new URL('../fixtures/rlm/stub-agent.mjs', import.meta.url).pathname;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'moon-rlm-prov-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function chatAnswer(content: string): unknown {
  return { id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] };
}

const firstPromptOf = (request: RecordedRequest): string => {
  const messages = (request.body?.messages ?? []) as Array<{ content: string }>;
  return /\[prompt (\S+)/.exec(messages[messages.length - 1]?.content ?? '')?.[1] ?? '?';
};

function generate(options: Partial<GenerateOptions>): ReturnType<typeof generateHistoryIndex> {
  const historyPath = join(dir, 'history.json');
  writeFileSync(historyPath, JSON.stringify(buildSampleHistory()));
  return generateHistoryIndex({ historyPath, outputPath: join(dir, 'index.json'), incremental: false, provider: null, countTokens, summaries: { retryBaseMs: 1 }, ...options });
}

function chatProvider(baseUrl: string, maxTries = 1) {
  return createProvider({ provider: 'openai-compatible', model: 'llama-test', base_url: baseUrl, timeout_ms: 5_000, max_tries: maxTries }, {}, { retryBaseMs: 1 });
}

describe('summaries from an OpenAI-compatible server on loopback', () => {
  it("sends seed 004's template in JSON mode and stores the model's answers", async () => {
    const server = await startLoopbackServer((request, _n, res) =>
      sendJson(res, 200, chatAnswer(JSON.stringify({ summary: `About ${firstPromptOf(request)}.`, topics: ['Storage', 'decisions'], keyEntities: ['docs/storage.md'], importanceScore: 0.9 }))),
    );
    const { index, stats } = await generate({ provider: chatProvider(server.baseUrl) });
    expect(server.requests).toHaveLength(4);
    const body = server.requests[0]!.body!;
    expect(body).toMatchObject({ model: 'llama-test', max_tokens: 1000, response_format: { type: 'json_object' } });
    const prompt = (body.messages as Array<{ role: string; content: string }>)[0]!.content;
    expect(prompt).toContain('Given the following conversation segment from a software development project:');
    expect(prompt).toMatch(/<segment>\n\[prompt \S+ · 2026-01-05T/);
    expect(index.segments.every((segment) => segment.summarySource === 'llm' && segment.summary === `About ${segment.promptIds[0]}.`)).toBe(true);
    expect(index.topicIndex.storage).toHaveLength(4);
    expect(index.generator).toMatchObject({ summarizer: 'openai-compatible', model: 'llama-test' });
    expect(stats.llmCalls.count).toBe(4);
    expect(stats.llmCalls.totalTokens).toBeGreaterThan(1000);
    expect(index.statistics.llmCallCount).toBe(4);
  });

  it('recovers what it can from invalid JSON, and uses the local summary for an answer with none', async () => {
    const server = await startLoopbackServer((request, _n, res) => {
      const first = firstPromptOf(request);
      if (first === 'p-spec-1') return sendJson(res, 200, chatAnswer('{"summary": "Storage work", "topics": ["storage"], "importanceScore": 0.9, "keyEnt'));
      if (first === 'p-bug-1') return sendJson(res, 200, chatAnswer('I cannot help with that.'));
      return sendJson(res, 200, chatAnswer('[1, 2, 3]'));
    });
    const { index, stats } = await generate({ provider: chatProvider(server.baseUrl) });
    const sourceOf = (id: string) => index.segments.find((segment) => segment.id === id)!;
    expect(sourceOf('seg-p-spec-1')).toMatchObject({ summarySource: 'llm-fallback', summary: 'Storage work', topics: ['storage'], importanceScore: 0.9 });
    // A prose answer is taken as the summary; an answer with nothing usable gets the local summary.
    expect(sourceOf('seg-p-bug-1')).toMatchObject({ summarySource: 'llm-fallback', summary: 'I cannot help with that.' });
    expect(sourceOf('seg-p-plug-1').summarySource).toBe('local');
    expect(stats.errors.filter((error) => error.phase === 'summarize')).toHaveLength(2);
    // Invalid answers are not retried: one request per segment.
    expect(server.requests).toHaveLength(4);
  });

  it('retries failures with backoff, then falls back to the local summary for that segment only', async () => {
    const server = await startLoopbackServer((request, _n, res) =>
      firstPromptOf(request) === 'p-bug-1'
        ? sendJson(res, 500, { error: { message: 'model crashed' } })
        : sendJson(res, 200, chatAnswer(JSON.stringify({ summary: 'ok', topics: ['x'], keyEntities: [], importanceScore: 0.5 }))),
    );
    const { index, stats } = await generate({ provider: chatProvider(server.baseUrl, 2) });
    // Two transport tries inside each of three attempts.
    expect(server.requests.filter((request) => firstPromptOf(request) === 'p-bug-1')).toHaveLength(6);
    expect(index.segments.find((segment) => segment.id === 'seg-p-bug-1')!.summarySource).toBe('local');
    expect(index.segments.filter((segment) => segment.summarySource === 'llm')).toHaveLength(3);
    expect(stats.errors).toEqual([{ phase: 'summarize', message: expect.stringMatching(/^segment seg-p-bug-1: 3 attempts failed \(.*HTTP 500.*model crashed\); used the local summary$/) }]);
  });

  it('stops at once on a rejected key, writing nothing', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 401, { error: { message: 'invalid api key' } }));
    const error = (await generate({ provider: chatProvider(server.baseUrl) }).catch((caught: unknown) => caught)) as MoonError;
    expect(error).toBeInstanceOf(MoonError);
    expect(error.code).toBe('bad_config');
    expect(server.requests.length).toBeLessThanOrEqual(4);
  });

  it('answers a second run from the cache beside the index', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 200, chatAnswer(JSON.stringify({ summary: 'cached', topics: ['x'], keyEntities: [], importanceScore: 0.5 }))));
    await generate({ provider: chatProvider(server.baseUrl) });
    expect(server.requests).toHaveLength(4);
    rmSync(join(dir, 'index.json'));
    const { stats, index } = await generate({ provider: chatProvider(server.baseUrl) });
    expect(server.requests).toHaveLength(4);
    expect(stats.llmCalls).toMatchObject({ count: 0, cacheHits: 4 });
    expect(index.segments.every((segment) => segment.summary === 'cached')).toBe(true);
    expect(cachePathFor(join(dir, 'index.json'))).toBe(join(dir, 'index.json.cache.json'));
  });
});

describe('summaries from an agent CLI (the command provider)', () => {
  const command = (mode: string) => createProvider({ provider: 'command', command: [process.execPath, STUB], timeout_ms: 20_000 }, { PATH: process.env.PATH, STUB_MODE: mode });

  it('runs the CLI per segment and records its reported cost', async () => {
    const { index, stats } = await generate({ provider: command('claude') });
    expect(index.segments.map((segment) => segment.summary)).toEqual(index.segments.map((segment) => `Stub summary of ${segment.promptIds[0]}.`));
    expect(index.segments.every((segment) => segment.summarySource === 'llm')).toBe(true);
    expect(index.generator).toMatchObject({ summarizer: 'command', model: 'node' });
    expect(stats.llmCalls).toMatchObject({ count: 4, totalTokens: 4 * 1060, estimatedCost: 0.0492 });
  });

  it('falls back on invalid JSON and on a failing CLI, and says why', async () => {
    const cut = await generate({ provider: command('invalid') });
    expect(cut.index.segments.every((segment) => segment.summarySource === 'llm-fallback' && segment.summary === 'A cut answer about the stub')).toBe(true);
    rmSync(join(dir, 'index.json'));
    const failing = await generate({ provider: command('fail') });
    expect(failing.index.segments.every((segment) => segment.summarySource === 'local')).toBe(true);
    expect(failing.stats.errors[0]!.message).toMatch(/3 attempts failed \(command "node" exited with code 3: .*not logged in"\)/);
    expect(failing.stats.llmCalls.count).toBe(12);
  });
});
