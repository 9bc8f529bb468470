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
  test('names each field a term is in, stems included, and none for a term only the neighbours hold', () => {
    expect(findMatchedTerms(deploy, ['deploys', 'Bash', 'stripe'])).toEqual([
      { term: 'deploys', fields: ['text', 'result', 'target'] },
      { term: 'bash', fields: ['tool'] },
      { term: 'stripe', fields: [] },
    ]);
  });

  test('the term itself counts anywhere (partial words), a stem only where it starts a word', () => {
    expect(findMatchedTerms(deploy, ['ployed'])[0]!.fields).toEqual(['result']);
    expect(findMatchedTerms(deploy, ['ployment'])[0]!.fields).toEqual([]);
    expect(findMatchedTerms(deploy, ['triggering'])[0]!.fields).toEqual(['result']);
    expect(findMatchedTerms(deploy, ['iggering'])[0]!.fields).toEqual([]);
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
