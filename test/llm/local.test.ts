import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProvider } from '../../src/llm/index.js';
import { LocalProvider, selectInput, summarizeExtractively } from '../../src/llm/local.js';

const NOTES = [
  'We moved the session index to SQLite FTS5 with porter stemming.',
  'Lunch was nice.',
  'The SQLite FTS5 index now ranks sessions by BM25.',
  'Ok, thanks.',
  'Rebuilding the FTS5 index from the SQLite archive takes two minutes.',
  'Someone mentioned the weather.',
].join(' ');

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('local provider', () => {
  it('is the extractive, non-generative default and never touches the network', async () => {
    const fetch = vi.fn(() => Promise.reject(new Error('no network for the local provider')));
    vi.stubGlobal('fetch', fetch);
    const provider = createProvider({ provider: 'local' }, {});
    expect(provider).toBeInstanceOf(LocalProvider);
    expect(provider.name).toBe('local');
    expect(provider.model).toBe('extractive');
    expect(provider.generative).toBe(false);
    expect(await provider.complete(NOTES)).toContain('FTS5');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('takes the most central sentences best first, gives them in their original order, and drops term-less chatter', () => {
    // 136 characters: room for two of the three SQLite sentences, and then for "Lunch was nice.", which must not
    // jump the queue ahead of the third.
    const lines = summarizeExtractively(NOTES, { maxTokens: 34 }).split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.every((line) => line.includes('SQLite') && line.includes('FTS5'))).toBe(true);
    expect(NOTES.indexOf(lines[0]!)).toBeLessThan(NOTES.indexOf(lines[1]!));
    // The best sentence alone does not fit: its head, not a weaker sentence that would.
    const cut = summarizeExtractively(NOTES, { maxTokens: 10 });
    expect(cut).toBe('We moved the session index to SQLite…');
    const all = summarizeExtractively(NOTES, { maxTokens: 1_000 });
    expect(all).not.toContain('thanks');
    expect(all.split('\n')).toEqual([
      'We moved the session index to SQLite FTS5 with porter stemming.',
      'Lunch was nice.',
      'The SQLite FTS5 index now ranks sessions by BM25.',
      'Rebuilding the FTS5 index from the SQLite archive takes two minutes.',
      'Someone mentioned the weather.',
    ]);
  });

  it('reads only what follows the last INPUT: line (the rest of that line included)', () => {
    const prompt = `Summarise the notes below. Mention kubernetes deployments.\nINPUT: first note about the FTS5 index.\nSecond note: the FTS5 index is rebuilt.`;
    expect(selectInput(prompt)).toBe('first note about the FTS5 index.\nSecond note: the FTS5 index is rebuilt.');
    const answer = summarizeExtractively(prompt);
    expect(answer).not.toMatch(/kubernetes|Summarise/);
    expect(answer).toContain('FTS5');
    expect(selectInput('no marker here\nat all')).toBe('no marker here\nat all');
    expect(selectInput('INPUT:\nold\nINPUT:\nnew')).toBe('\nnew');
  });

  it('answers {"summary": ...} in JSON mode, within the bound', () => {
    const answer = summarizeExtractively(NOTES, { json: true, maxTokens: 40 });
    expect(answer.length).toBeLessThanOrEqual(160);
    const parsed = JSON.parse(answer) as { summary: string };
    expect(Object.keys(parsed)).toEqual(['summary']);
    expect(parsed.summary).toContain('FTS5');
    expect(JSON.parse(summarizeExtractively('', { json: true }))).toEqual({ summary: '' });
    expect(summarizeExtractively('')).toBe('');
  });

  it('cuts a sentence longer than the bound at a word, marked with an ellipsis', () => {
    const long = `The migration ${'renames every sqlite column '.repeat(40)}done.`;
    const answer = summarizeExtractively(long, { maxTokens: 10 });
    expect(answer.length).toBeLessThanOrEqual(40);
    expect(answer.endsWith('…')).toBe(true);
    expect(long.startsWith(answer.slice(0, -1))).toBe(true);
    expect(answer.at(-2)).not.toBe(' ');
  });

  it('is deterministic and bounded for any input and token budget', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2_000 }), fc.integer({ min: 1, max: 300 }), fc.boolean(), (text, maxTokens, json) => {
        const first = summarizeExtractively(text, { maxTokens, json });
        expect(summarizeExtractively(text, { maxTokens, json })).toBe(first);
        expect(first.length).toBeLessThanOrEqual(Math.max(maxTokens * 4, json ? '{"summary":""}'.length : 0));
        if (json) expect(typeof (JSON.parse(first) as { summary: unknown }).summary).toBe('string');
      }),
      { numRuns: 300 },
    );
  });
});
