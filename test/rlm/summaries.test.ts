import { describe, expect, it } from 'vitest';
import { MoonError } from '../../src/errors.js';
import type { CompleteOptions, Provider } from '../../src/llm/provider.js';
import { ProcessingStats } from '../../src/rlm/stats.js';
import { openSummaryCache } from '../../src/rlm/summary-cache.js';
import { summarizeSegmentLocally, type SegmentSummary } from '../../src/rlm/summary-local.js';
import { parseSummaryAnswer, renderSummaryPrompt, SUMMARY_PROMPT_TEMPLATE } from '../../src/rlm/summary-prompt.js';
import { summarizeSegments, type SummaryJob } from '../../src/rlm/summaries.js';
import { parsePuffinHistory } from '../../src/sources/puffin-history.js';
import { buildSampleHistory, countQuarterChars } from './history-builder.js';

const history = parsePuffinHistory(buildSampleHistory());
const prompts = history.branches.flatMap((branch) => branch.prompts);

const LOCAL: SegmentSummary = { summary: 'local summary', topics: ['local'], keyEntities: ['src/x.ts'], importanceScore: 0.3 };

function jobs(count: number): SummaryJob[] {
  return Array.from({ length: count }, (_, i) => ({ segmentId: `seg-${i}`, segmentHash: `${i}`.padStart(64, '0'), content: () => `content ${i}`, local: () => LOCAL }));
}

/** A provider whose answers come from `answer`; records each prompt and the calls in flight. */
function fakeProvider(answer: (prompt: string, n: number) => Promise<string> | string): Provider & { prompts: string[]; maxInFlight: number } {
  let inFlight = 0;
  const fake = {
    name: 'openai-compatible' as const,
    model: 'fake-model',
    generative: true,
    prompts: [] as string[],
    maxInFlight: 0,
    async complete(prompt: string, options: CompleteOptions = {}) {
      expect(options.json).toBe(true);
      expect(options.maxTokens).toBe(1000);
      fake.prompts.push(prompt);
      inFlight += 1;
      fake.maxInFlight = Math.max(fake.maxInFlight, inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return await answer(prompt, fake.prompts.length);
      } finally {
        inFlight -= 1;
      }
    },
  };
  return fake;
}

const GOOD = JSON.stringify({ summary: 'Chose WAL mode. Renamed a key.', topics: ['Database', 'config keys', 'database'], keyEntities: ['src/store.ts'], importanceScore: 0.95 });

describe('the local summariser', () => {
  it('gives a bounded summary, topics, entities and importance from markers, the same every time', () => {
    const specs = prompts.filter((prompt) => prompt.branchId === 'specifications');
    const markers = [
      { type: 'decision', content: 'use WAL mode for the SQLite store', importance: 1 },
      { type: 'ref', content: 'https://sqlite.org/wal.html', importance: 0.3 },
    ];
    const summary = summarizeSegmentLocally(specs, markers);
    expect(summary).toEqual(summarizeSegmentLocally(specs, markers));
    expect(summary.summary.length).toBeGreaterThan(0);
    expect(summary.summary.length).toBeLessThanOrEqual(1000);
    expect(summary.summary).toContain('@/decision: use WAL mode');
    expect(summary.topics.length).toBeGreaterThanOrEqual(3);
    expect(summary.topics.length).toBeLessThanOrEqual(7);
    for (const topic of summary.topics) expect(topic).toMatch(/^[\p{Ll}\p{N}][\p{Ll}\p{N}-]*$/u);
    expect(summary.keyEntities).toContain('docs/storage.md');
    expect(summary.importanceScore).toBe(1);
  });

  it('scores unmarked work by whether files were modified', () => {
    const bug = prompts.filter((prompt) => prompt.id === 'p-bug-2');
    expect(summarizeSegmentLocally(bug, []).importanceScore).toBe(0.5);
    const plain = prompts.filter((prompt) => prompt.id === 'p-plug-1');
    expect(summarizeSegmentLocally(plain, []).importanceScore).toBe(0.3);
  });
});

describe("seed 004's template and the answer parser", () => {
  it('renders the template with the content in place, the spec text kept', () => {
    const prompt = renderSummaryPrompt('A $& B');
    expect(prompt).toContain('<segment>\nA $& B\n</segment>');
    expect(prompt).toContain('"importanceScore": A score from 0.0 to 1.0');
    expect(prompt).toContain('Respond ONLY with valid JSON.');
    expect(SUMMARY_PROMPT_TEMPLATE).toContain('{content}');
  });

  it('takes a valid answer, normalising topics and clamping the score', () => {
    const parsed = parseSummaryAnswer(GOOD, () => LOCAL)!;
    expect(parsed.source).toBe('llm');
    expect(parsed.summary).toEqual({ summary: 'Chose WAL mode. Renamed a key.', topics: ['database', 'config-keys'], keyEntities: ['src/store.ts'], importanceScore: 0.95 });
    expect(parseSummaryAnswer(JSON.stringify({ summary: 's', topics: [], keyEntities: [], importanceScore: 7 }), () => LOCAL)!.summary.importanceScore).toBe(1);
  });

  it('recovers fields from invalid JSON and fills the rest from the local summary', () => {
    const cut = '{"summary": "Fixed the watcher \\"rename\\" bug.", "topics": ["bug-fix", "watcher"], "importanceScore": 0.8, "keyEntities": ["src/wat';
    const parsed = parseSummaryAnswer(cut, () => LOCAL)!;
    expect(parsed.source).toBe('llm-fallback');
    expect(parsed.summary.summary).toBe('Fixed the watcher "rename" bug.');
    expect(parsed.summary.topics).toEqual(['bug-fix', 'watcher']);
    expect(parsed.summary.importanceScore).toBe(0.8);
    expect(parsed.summary.keyEntities).toEqual(LOCAL.keyEntities);
    const fenced = parseSummaryAnswer(`Here you go:\n\`\`\`json\n${GOOD}\n\`\`\``, () => LOCAL)!;
    expect(fenced.source).toBe('llm');
    const partial = parseSummaryAnswer('{"summary": "Only a summary."}', () => LOCAL)!;
    expect(partial).toEqual({ source: 'llm-fallback', summary: { ...LOCAL, summary: 'Only a summary.' } });
  });

  it('turns a prose answer into the summary, and gives up on an answer with nothing in it', () => {
    const prose = parseSummaryAnswer('The team chose WAL mode. They renamed a key. Then tests passed. And more.', () => LOCAL)!;
    expect(prose.summary.summary).toBe('The team chose WAL mode. They renamed a key. Then tests passed.');
    expect(prose.source).toBe('llm-fallback');
    expect(parseSummaryAnswer('{"topics": ["x"]}', () => LOCAL)).toBeNull();
  });

  it('cuts an overlong summary to the schema bound at a word', () => {
    const parsed = parseSummaryAnswer(JSON.stringify({ summary: 'word '.repeat(400), topics: [], keyEntities: [], importanceScore: 0.5 }), () => LOCAL)!;
    expect(parsed.summary.summary.length).toBeLessThanOrEqual(1000);
    expect(parsed.summary.summary.endsWith('…')).toBe(true);
  });
});

describe('summarizeSegments', () => {
  const options = (provider: Provider | null, extra: Partial<Parameters<typeof summarizeSegments>[1]> = {}) => ({
    provider,
    cache: openSummaryCache(null),
    stats: new ProcessingStats(),
    countTokens: countQuarterChars,
    retryBaseMs: 1,
    ...extra,
  });

  it('uses the local summariser without a provider', async () => {
    const results = await summarizeSegments(jobs(3), options(null));
    expect([...results.values()].map((result) => result.source)).toEqual(['local', 'local', 'local']);
  });

  it('asks at most four segments at once, with the template, and counts calls and tokens', async () => {
    const provider = fakeProvider(() => GOOD);
    const settings = options(provider);
    const progress: number[] = [];
    const results = await summarizeSegments(jobs(10), { ...settings, onProgress: (done) => progress.push(done) });
    expect(provider.prompts).toHaveLength(10);
    expect(provider.maxInFlight).toBe(4);
    expect(provider.prompts[0]).toContain('<segment>\ncontent 0\n</segment>');
    expect(results.get('seg-7')).toEqual({ source: 'llm', summary: parseSummaryAnswer(GOOD, () => LOCAL)!.summary });
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const stats = settings.stats.finalize();
    expect(stats.llmCalls.count).toBe(10);
    expect(stats.llmCalls.totalTokens).toBeGreaterThan(10 * 100);
  });

  it('retries a failed call with exponential backoff, then falls back to the local summary and records the error', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    const flaky = fakeProvider((_prompt, n) => {
      if (n < 3) throw new MoonError('io', `HTTP 500 (${n})`);
      return GOOD;
    });
    const settings = options(flaky, { retryBaseMs: 100, sleep, concurrency: 1 });
    const first = await summarizeSegments(jobs(1), settings);
    expect(first.get('seg-0')!.source).toBe('llm');
    expect(waits).toEqual([100, 200]);
    const failing = fakeProvider(() => {
      throw new MoonError('io', 'HTTP 503');
    });
    const stats = new ProcessingStats();
    const second = await summarizeSegments(jobs(2), { ...options(failing, { sleep, concurrency: 1 }), stats });
    expect(second.get('seg-1')).toEqual({ source: 'local', summary: LOCAL });
    expect(failing.prompts).toHaveLength(6);
    const errors = stats.finalize().errors;
    expect(errors).toHaveLength(2);
    expect(errors[0]).toEqual({ phase: 'summarize', message: 'segment seg-0: 3 attempts failed (HTTP 503); used the local summary' });
    expect(stats.finalize().llmCalls.count).toBe(6);
  });

  it('stops the run on a configuration error: every segment would fail the same way', async () => {
    const denied = fakeProvider(() => {
      throw new MoonError('bad_config', 'HTTP 401: bad key');
    });
    await expect(summarizeSegments(jobs(8), options(denied))).rejects.toThrow('bad key');
    expect(denied.prompts.length).toBeLessThanOrEqual(4);
  });

  it('falls back on an answer with no summary, and recovers from invalid JSON without retrying', async () => {
    const junk = fakeProvider((_prompt, n) => (n === 1 ? 'Sorry, {"topics": [' : '{"summary": "Half an answer", "topics": ["x"'));
    const stats = new ProcessingStats();
    const results = await summarizeSegments(jobs(2), { ...options(junk, { concurrency: 1 }), stats });
    expect(results.get('seg-0')).toEqual({ source: 'local', summary: LOCAL });
    expect(results.get('seg-1')!.source).toBe('llm-fallback');
    expect(results.get('seg-1')!.summary.summary).toBe('Half an answer');
    expect(junk.prompts).toHaveLength(2);
    expect(stats.finalize().errors.map((error) => error.phase)).toEqual(['summarize']);
  });

  it('reuses cached answers by provider, model, template and segment hash; fallbacks are not cached', async () => {
    const cache = openSummaryCache(null);
    const provider = fakeProvider(() => GOOD);
    await summarizeSegments(jobs(3), options(provider, { cache }));
    const stats = new ProcessingStats();
    const again = await summarizeSegments(jobs(4), { ...options(provider, { cache }), stats });
    expect(provider.prompts).toHaveLength(4);
    expect(again.get('seg-2')!.source).toBe('llm');
    expect(stats.finalize().llmCalls).toMatchObject({ count: 1, cacheHits: 3 });
    const other = fakeProvider(() => GOOD);
    Object.assign(other, { model: 'another-model' });
    await summarizeSegments(jobs(1), options(other, { cache }));
    expect(other.prompts).toHaveLength(1);
  });
});
