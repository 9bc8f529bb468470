import { describe, expect, test } from 'vitest';
import { expandIdentifiers, splitIdentifier } from '../../src/text/identifiers.js';

describe('expandIdentifiers', () => {
  test('splits camelCase, snake_case, paths and dotted names into searchable words', () => {
    expect(expandIdentifiers('call renderProjection then MAX_LINE_BYTES in src/store/sqlite.ts')).toBe(
      'render projection max line bytes src store sqlite ts',
    );
    expect(expandIdentifiers('useHTMLParser2Config HTMLParser')).toBe('use html parser2 config');
    expect(expandIdentifiers('aB config.patch')).toBe('config patch');
  });

  test('leaves plain words, lone separators and trailing separators alone', () => {
    expect(expandIdentifiers('deploy the app')).toBe('');
    expect(expandIdentifiers('ab__cd foo. bar-')).toBe('');
    expect(expandIdentifiers('a.b..c.d')).toBe('');
    expect(expandIdentifiers('one.two..three.four')).toBe('one two three four');
  });

  test('stops at the word cap', () => {
    const text = Array.from({ length: 500 }, (_, index) => `part${index}_x${index}`).join(' ');
    expect(expandIdentifiers(text, 10).split(' ')).toHaveLength(10);
  });

  // Each of these took minutes with the backtracking regex (125 KB of `x` took 50 s); a linear scan is instant.
  test('finishes on a 4 MB single token, hex string and capital run', () => {
    expect(expandIdentifiers('x'.repeat(4_000_000))).toBe('');
    expect(expandIdentifiers('a1'.repeat(2_000_000))).toBe('');
    expect(expandIdentifiers(`a.${'F'.repeat(4_000_000)}`)).toBe('');
  });

  test('drops parts longer than a word (hashes, blobs) but keeps the rest of the identifier', () => {
    expect(expandIdentifiers(`cache_${'f'.repeat(100)}_key`)).toBe('cache key');
  });
});

describe('splitIdentifier', () => {
  test('splits like the regex pair it replaced', () => {
    expect(splitIdentifier('ABcDEf')).toEqual(['a', 'bc', 'd', 'ef']);
    expect(splitIdentifier('getHTTPResponse')).toEqual(['get', 'http', 'response']);
    expect(splitIdentifier('v2Parser')).toEqual(['v2', 'parser']);
    expect(splitIdentifier('--a..b--')).toEqual(['a', 'b']);
  });
});
