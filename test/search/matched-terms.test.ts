import { describe, expect, test } from 'vitest';
import { createEntry } from '../../src/model.js';
import { findMatchedTerms, hasWordStartingWith } from '../../src/search/matched-terms.js';

const deploy = createEntry({
  id: 'e1',
  key: 'k1',
  sessionId: 's',
  seq: 1000,
  line: 1,
  ts: null,
  role: 'tool',
  text: 'npx wrangler deploy --env production',
  toolName: 'Bash',
  toolTarget: 'npx wrangler deploy --env production',
  result: 'Deployed shop triggers (3.21 sec)',
});

describe('findMatchedTerms', () => {
  test('names each field a term is in, as the word index stems it; a term the entry lacks is not matched', () => {
    expect(findMatchedTerms(deploy, ['deploys', 'Bash', 'stripe'])).toEqual([
      { term: 'deploys', fields: ['text', 'result', 'target'], matched: true },
      { term: 'bash', fields: ['tool'], matched: true },
      { term: 'stripe', fields: [], matched: false },
    ]);
  });

  test('a plain word counts as the indexes find it: whole stemmed words or a word start, not any substring', () => {
    expect(findMatchedTerms(deploy, ['triggering'])[0]!.fields).toEqual(['result']);
    expect(findMatchedTerms(deploy, ['wrangl'])[0]!.fields).toEqual(['text', 'target']);
    expect(findMatchedTerms(deploy, ['ployed'])[0]).toEqual({ term: 'ployed', fields: [], matched: false });
    expect(findMatchedTerms(deploy, ['iggering'])[0]!.matched).toBe(false);
  });

  test('a technical term counts as a substring (the substring index); an identifier part in the identifiers', () => {
    const entry = createEntry({ id: 'e3', key: 'k3', sessionId: 's', seq: 3000, line: 3, ts: null, role: 'assistant', text: 'vi.setSystemTime froze the clock in test/cart-totals.test.ts' });
    expect(findMatchedTerms(entry, ['cart-totals'])[0]!.fields).toEqual(['text']);
    expect(findMatchedTerms(entry, ['system'])[0]).toEqual({ term: 'system', fields: ['identifiers'], matched: true });
  });

  test('a term only a neighbour holds names that neighbour; one no neighbour holds is not matched', () => {
    const neighbour = (n: number, text: string) => createEntry({ id: `n${n}`, key: `n${n}`, sessionId: 's', seq: n, line: n, ts: null, role: 'user', text });
    const neighbours = [neighbour(1, 'the djinn temple in the desert'), neighbour(2, 'mummies guard the temple'), neighbour(3, 'sounds good')];
    expect(findMatchedTerms(deploy, ['djinn', 'temple', 'pyramid'], neighbours)).toEqual([
      { term: 'djinn', fields: [], neighbours: ['n1'], matched: true },
      { term: 'temple', fields: [], neighbours: ['n1', 'n2'], matched: true },
      { term: 'pyramid', fields: [], matched: false },
    ]);
  });
});

describe('hasWordStartingWith', () => {
  test('a word of any field starts with the prefix as typed, case aside', () => {
    expect(hasWordStartingWith(deploy, 'wrangl')).toBe(true);
    expect(hasWordStartingWith(deploy, 'PROD')).toBe(true);
    expect(hasWordStartingWith(deploy, 'deployed')).toBe(true);
    expect(hasWordStartingWith(deploy, 'trig')).toBe(true);
    expect(hasWordStartingWith(deploy, 'bas')).toBe(true);
    // Inside a word is not a start; a stem is not the typed prefix.
    expect(hasWordStartingWith(deploy, 'rangler')).toBe(false);
    expect(hasWordStartingWith(deploy, 'deploi')).toBe(false);
    expect(hasWordStartingWith(deploy, '')).toBe(false);
  });

  test('an identifier part after a lower-case letter or digit starts a word; after punctuation too', () => {
    const entry = createEntry({ id: 'e2', key: 'k2', sessionId: 's', seq: 2000, line: 2, ts: null, role: 'assistant', text: 'set rainGauge and v2Parser in config/loadSettings.ts' });
    expect(hasWordStartingWith(entry, 'gau')).toBe(true);
    expect(hasWordStartingWith(entry, 'pars')).toBe(true);
    expect(hasWordStartingWith(entry, 'setti')).toBe(true);
    expect(hasWordStartingWith(entry, 'auge')).toBe(false);
  });
});
