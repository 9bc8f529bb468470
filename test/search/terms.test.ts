import { describe, expect, test } from 'vitest';
import { capQueryText, capTerms, splitQueryTerms } from '../../src/search/terms.js';
import { MAX_QUERY_CHARS, MAX_QUERY_TERMS } from '../../src/text/limits.js';

describe('splitQueryTerms', () => {
  test('quoted phrases stay whole; punctuation is trimmed from both ends', () => {
    expect(splitQueryTerms('"exact phrase" (src/app.ts), John\'s ...deploy!!')).toEqual(['exact phrase', 'src/app.ts', 'John', '...deploy']);
    expect(splitQueryTerms('!!! ... ,')).toEqual([]);
  });

  test('a word with a long run of punctuation inside is trimmed without rescanning the run', () => {
    const word = `a${'!'.repeat(200_000)}b${'?'.repeat(200_000)}`;
    expect(splitQueryTerms(word)).toEqual([`a${'!'.repeat(200_000)}b`]);
  });
});

describe('capQueryText', () => {
  test('keeps a query within the cap as it is', () => {
    expect(capQueryText('deploy the worker')).toEqual({ text: 'deploy the worker', note: null });
  });

  test('cuts a longer one before the word it would split, and says so', () => {
    const query = 'abcdefghi '.repeat(1000);
    const capped = capQueryText(query);
    expect(capped.text.length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
    expect(capped.text.endsWith('abcdefghi')).toBe(true);
    expect(capped.note).toBe(`query cut to its first ${capped.text.length} of ${query.length} characters (limit ${MAX_QUERY_CHARS})`);
  });
});

describe('capTerms', () => {
  test('keeps duplicates and order when the distinct terms fit', () => {
    expect(capTerms(['a', 'B', 'b', 'a'], 'query')).toEqual({ terms: ['a', 'B', 'b', 'a'], note: null });
  });

  test('keeps the first distinct terms (ignoring case) over the cap', () => {
    const terms = Array.from({ length: 200 }, (_, index) => `t${index % 100}`);
    const capped = capTerms(terms, 'query');
    expect(capped.terms).toEqual(Array.from({ length: MAX_QUERY_TERMS }, (_, index) => `t${index}`));
    expect(capped.note).toBe(`query: searched the first ${MAX_QUERY_TERMS} of 100 distinct terms`);
  });
});
