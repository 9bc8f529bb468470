import { describe, expect, test } from 'vitest';
import type { Entry } from '../../src/model.js';
import { BOOSTS, type BoostContext, FUSION, fuseSignals } from '../../src/search/fusion.js';
import { selectPartialTerms } from '../../src/search/recall.js';
import type { Candidate } from '../../src/store/store.js';
import { makeEntry } from '../project/fixture.js';

function candidate(rowid: number, score: number, partial: Partial<Entry> = {}): Candidate {
  return { rowid, score, entry: makeEntry({ role: 'assistant', sessionId: 's', ts: 1_000 + rowid, text: `entry ${rowid}`, ...partial, line: rowid }) };
}

const NO_BOOSTS: BoostContext = { phrases: [], words: new Set(), paths: [], priority: false };

describe('weighted reciprocal-rank fusion', () => {
  test('agreement between lists beats a single first place', () => {
    const fused = fuseSignals(
      [
        { signal: 'lexical', weight: 1, candidates: [candidate(1, 9), candidate(2, 8)] },
        { signal: 'vector', weight: 1, candidates: [candidate(3, 0.9), candidate(2, 0.8)] },
      ],
      NO_BOOSTS,
    );
    // 1 and 3 tie (each first in one list); the more recent one (3) comes first
    expect(fused.map((item) => item.rowid)).toEqual([2, 3, 1]);
    const k = FUSION.k;
    expect(fused[0]!.score).toBeCloseTo(k / (k + 2) + k / (k + 2), 5);
    expect(fused[0]!.explanation.signals).toEqual({
      lexical: { rank: 2, raw: 8, contribution: expect.closeTo(k / (k + 2), 5) },
      vector: { rank: 2, raw: 0.8, contribution: expect.closeTo(k / (k + 2), 5) },
    });
  });

  test('weights scale a list’s contribution', () => {
    const fused = fuseSignals(
      [
        { signal: 'lexical', weight: 1, candidates: [candidate(1, 5)] },
        { signal: 'trigram', weight: 0.25, candidates: [candidate(2, 5)] },
      ],
      NO_BOOSTS,
    );
    expect(fused[1]!.score / fused[0]!.score).toBeCloseTo(0.25, 5);
  });

  test('boosts multiply the fused score and are listed in the explanation', () => {
    const edit = candidate(1, 1, { role: 'tool', toolName: 'Edit', toolTarget: 'config.toml', priority: 'high' });
    const read = candidate(2, 2, { role: 'tool', toolName: 'Read', toolTarget: 'config.toml', priority: 'normal' });
    const fused = fuseSignals([{ signal: 'lexical', weight: 1, candidates: [read, edit] }], {
      phrases: [],
      words: new Set(['config.toml']),
      paths: ['config.toml'],
      priority: true,
    });
    expect(fused.map((item) => item.rowid)).toEqual([1, 2]);
    const top = fused[0]!;
    expect(top.explanation.boosts.map((boost) => boost.name)).toEqual(['priority:high', 'path:config.toml']);
    expect(top.score).toBeCloseTo(top.explanation.fused * BOOSTS.priorityHigh * BOOSTS.path, 5);
  });

  test('ties break by recency, then rowid — deterministic', () => {
    const a = fuseSignals([{ signal: 'temporal', weight: 1, candidates: [candidate(5, 0)] }, { signal: 'lexical', weight: 1, candidates: [candidate(4, 0)] }], NO_BOOSTS);
    expect(a.map((item) => item.rowid)).toEqual([5, 4]);
  });
});

describe('partial term selection', () => {
  test('identifiers, paths, versions and CJK go to the substring index; unknown plain words are prefixes; known words neither', () => {
    const known = new Set(['support', 'group', 'deploy']);
    const picked = selectPartialTerms(['support', 'group', 'wrangl', 'renderProj', 'src/app.ts', 'v1.2', '部署中', 'go'], (term) => known.has(term));
    expect(picked).toEqual({ substrings: ['renderProj', 'src/app.ts', 'v1.2', '部署中'], prefixes: ['wrangl'] });
  });

  test('a contraction the index does not know is no word cut short: its last word has under three letters', () => {
    const picked = selectPartialTerms(["I'm", "we've", "don't", "isn't", 'wrangl', "o'neil", 'kept'], () => false);
    expect(picked.prefixes).toEqual(['wrangl', "o'neil", 'kept']);
  });
});
