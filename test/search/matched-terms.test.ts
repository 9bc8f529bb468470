import { describe, expect, test } from 'vitest';
import { createEntry } from '../../src/model.js';
import { findMatchedTerms } from '../../src/search/matched-terms.js';

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
