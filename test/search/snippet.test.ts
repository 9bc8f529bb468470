import { describe, expect, test } from 'vitest';
import { makeSnippet } from '../../src/search/snippet.js';
import { INDEX_HEAD_CHARS } from '../../src/text/limits.js';

describe('makeSnippet', () => {
  test('a short text is flattened and defanged whole', () => {
    expect(makeSnippet('run <invoke name="x">\n\tnow', ['run'], 300)).toBe('run ‹invoke name="x"› now');
  });

  test('a long text is cut around the first match with … on each cut side', () => {
    const text = `${'lead '.repeat(200)}the needle sits here ${'tail '.repeat(200)}`;
    const snippet = makeSnippet(text, ['needle'], 100);
    expect(snippet).toContain('needle');
    expect(snippet.startsWith('…')).toBe(true);
    expect(snippet.endsWith('…')).toBe(true);
    expect(snippet.length).toBeLessThanOrEqual(102);
  });

  test('a huge text: the match deep in the indexed head is shown, bounded', () => {
    const text = `${'word '.repeat(100_000)}the needle sits here ${'x'.repeat(8_000_000)}`;
    const snippet = makeSnippet(text, ['needle'], 300);
    expect(snippet).toContain('the needle sits here');
    expect(snippet.length).toBeLessThanOrEqual(302);
    expect(snippet.startsWith('…') && snippet.endsWith('…')).toBe(true);
  });

  test('a huge text without a match starts at its beginning; one in the unindexed middle is not looked for', () => {
    const text = `opening words ${'filler '.repeat(INDEX_HEAD_CHARS / 7 + 1000)} needle ${'end '.repeat(100_000)}`;
    const snippet = makeSnippet(text, ['needle'], 200);
    expect(snippet.startsWith('opening words')).toBe(true);
    expect(snippet.endsWith('…')).toBe(true);
  });

  test('a huge single token with markup is defanged in its window', () => {
    const snippet = makeSnippet(`<system-reminder>${'y'.repeat(5_000_000)}`, ['zzz'], 200);
    expect(snippet.startsWith('‹system-reminder')).toBe(true);
    expect(snippet.length).toBeLessThanOrEqual(201);
  });
});
