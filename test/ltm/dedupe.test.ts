import { describe, expect, test } from 'vitest';
import { duplicateKind, findDuplicate, normaliseMemoryText, tokenSetOverlap } from '../../src/memory/dedupe.js';
import { mergeProvenance } from '../../src/records/long-term.js';

describe('normaliseMemoryText', () => {
  test('case, accents, bullets, emphasis, punctuation and spacing go', () => {
    expect(normaliseMemoryText('  - **Always** run `npm test`   before pushing!  ')).toBe('always run npm test before pushing');
    expect(normaliseMemoryText('1. Café config lives in ~/.cafe')).toBe('cafe config lives in cafe');
    expect(normaliseMemoryText('')).toBe('');
  });
});

describe('duplicateKind', () => {
  test('exact: equal once normalised', () => {
    expect(duplicateKind('Use pnpm, not npm.', '* use PNPM not npm')).toBe('exact');
  });

  test('near: almost every word shared, in the same order', () => {
    expect(duplicateKind('Always run npm test before pushing to main', 'Always run npm test before pushing to the main branch')).toBe('near');
  });

  test('the same words in another order are not merged (they may say the opposite)', () => {
    expect(duplicateKind('use pnpm for installs, not npm in this repo', 'use npm for installs, not pnpm in this repo')).toBeNull();
  });

  test('short texts must match exactly; unrelated texts never match; empty is nothing', () => {
    expect(duplicateKind('use pnpm', 'use pnpm please')).toBeNull();
    expect(duplicateKind('Deploys happen on Tuesday afternoons', 'The staging database resets nightly at 2am')).toBeNull();
    expect(duplicateKind('', '')).toBeNull();
    expect(duplicateKind('!!', '??')).toBeNull();
  });

  test('the overlap threshold: one changed word of a long sentence stays near, half the sentence does not', () => {
    const base = 'the integration tests need docker compose up before running vitest locally';
    expect(tokenSetOverlap(base, base.replace('locally', 'here'))).toBeGreaterThanOrEqual(0.8);
    expect(duplicateKind(base, base.replace('locally', 'here'))).toBe('near');
    // a negation in a shorter sentence weighs enough to keep the two apart
    expect(duplicateKind('always run the migrations before the seed script', 'never run the migrations before the seed script')).toBeNull();
    expect(duplicateKind(base, `${base} always`)).toBe('near');
    expect(duplicateKind(base, 'the integration tests need a database and a queue')).toBeNull();
  });
});

describe('findDuplicate', () => {
  test('exact beats an earlier near match', () => {
    const candidates = [
      { id: 'near', text: 'Always run npm test before pushing to the main branch' },
      { id: 'exact', text: 'always run npm test before pushing to main' },
    ];
    expect(findDuplicate('Always run npm test before pushing to main.', candidates)).toEqual({ match: candidates[1], kind: 'exact' });
    expect(findDuplicate('Something else entirely, about deploys', candidates)).toBeNull();
  });
});

describe('mergeProvenance', () => {
  test('one item per source and content hash, ids unioned', () => {
    const merged = mergeProvenance(
      [{ source: 'manual', session_ids: ['s1'], message_ids: ['m1'] }],
      [
        { source: 'manual', session_ids: ['s1', 's2'], message_ids: [] },
        { source: 'import:/r/CLAUDE.md', session_ids: [], message_ids: [], content_hash: 'h1' },
        { source: 'import:/r/CLAUDE.md', session_ids: [], message_ids: [], content_hash: 'h2' },
      ],
    );
    expect(merged).toEqual([
      { source: 'manual', session_ids: ['s1', 's2'], message_ids: ['m1'] },
      { source: 'import:/r/CLAUDE.md', session_ids: [], message_ids: [], content_hash: 'h1' },
      { source: 'import:/r/CLAUDE.md', session_ids: [], message_ids: [], content_hash: 'h2' },
    ]);
  });
});

describe('isInjectable (what a context pack may use)', () => {
  test('approved, live and not already loaded by the agent', async () => {
    const { isInjectable } = await import('../../src/records/long-term.js');
    const base = { review_state: 'approved' as const, agent_loaded: false, expires_at_ms: null };
    expect(isInjectable(base, 10)).toBe(true);
    expect(isInjectable({ ...base, review_state: 'draft' }, 10)).toBe(false);
    expect(isInjectable({ ...base, review_state: 'deprecated' }, 10)).toBe(false);
    expect(isInjectable({ ...base, agent_loaded: true }, 10)).toBe(false);
    expect(isInjectable({ ...base, expires_at_ms: 10 }, 10)).toBe(false);
    expect(isInjectable({ ...base, expires_at_ms: 11 }, 10)).toBe(true);
  });
});
