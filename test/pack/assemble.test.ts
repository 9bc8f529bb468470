import { describe, expect, test } from 'vitest';
import { loadTokenCounter } from '../../src/text/tokens.js';
import { assemblePack } from '../../src/pack/assemble.js';
import { type PackCandidate, type PackRequest, type PackSection, type PackSubsystem, SubsystemUnavailable } from '../../src/pack/types.js';

const REQUEST: PackRequest = { task: 'deploy the shop', namespace_id: 'github.com/acme/shop', root: '/tmp/shop', planning: null, error: null };

function candidate(text: string, index: number): PackCandidate {
  return { text, source: `src-${index}`, record_kind: 'doc', trust_class: 'raw', provenance: { index }, recency: null };
}

function fixed(name: PackSection, texts: string[], deadlineMs = 1000): PackSubsystem {
  return { name, deadlineMs, gather: async () => texts.map(candidate) };
}

const words = (n: number, word: string): string => Array.from({ length: n }, () => word).join(' ');

const ALL = (): PackSubsystem[] => [
  fixed('planning', ['work item bd-1: deploy the shop to workers', words(120, 'plan')]),
  fixed('history', [words(40, 'history'), words(300, 'longhistory'), 'short history line']),
  fixed('long_term', ['keep stripe keys as wrangler secrets', words(60, 'memory')]),
  fixed('documents', [words(80, 'doc'), words(20, 'readme')]),
];

describe('assemblePack', () => {
  test.each([0, 10, 50, 150, 400, 1000, 5000])('never exceeds a budget of %i tokens, and counts with the tokenizer', async (budget) => {
    const counter = await loadTokenCounter();
    const pack = await assemblePack(REQUEST, ALL(), { budget, failOpen: true, counter });
    const counted = await counter.count(pack.items.map((item) => item.text));
    expect(pack.items.map((item) => item.token_cost)).toEqual(counted);
    expect(pack.used_tokens).toBe(counted.reduce((a, b) => a + b, 0));
    expect(pack.used_tokens).toBeLessThanOrEqual(budget);
    expect(pack.budget).toBe(budget);
    for (const item of pack.items) {
      expect(item).toEqual(expect.objectContaining({ text: expect.any(String), source: expect.any(String), record_kind: 'doc', trust_class: 'raw', provenance: expect.any(Object) }));
      expect(item).toHaveProperty('recency');
    }
  });

  test('a large budget takes everything in section order; a small one skips what does not fit and says so', async () => {
    const counter = await loadTokenCounter();
    const big = await assemblePack(REQUEST, ALL(), { budget: 100_000, failOpen: true, counter });
    expect(big.items.map((item) => item.section)).toEqual(['planning', 'planning', 'history', 'history', 'history', 'long_term', 'long_term', 'documents', 'documents']);
    expect(big.omitted).toEqual([]);
    const small = await assemblePack(REQUEST, ALL(), { budget: 200, failOpen: true, counter });
    expect(small.items.some((item) => item.text === 'short history line')).toBe(true);
    expect(small.items.some((item) => item.text.startsWith('longhistory'))).toBe(false);
    expect(small.omitted).toContainEqual({ subsystem: 'history', reason: 'over_budget', detail: expect.stringContaining('did not fit') });
  });

  test("a section's unused share flows on to the next", async () => {
    const counter = await loadTokenCounter();
    // Planning has nothing: documents (25 % share = 50 tokens) can take an 80-token section thanks to the carry.
    const pack = await assemblePack(REQUEST, [fixed('planning', []), fixed('history', []), fixed('long_term', []), fixed('documents', [words(80, 'doc')])], {
      budget: 200,
      failOpen: true,
      counter,
    });
    expect(pack.items).toHaveLength(1);
    expect(pack.items[0]!.token_cost).toBeGreaterThan(50);
  });

  const broken: Record<string, (name: PackSection) => PackSubsystem> = {
    throws: (name) => ({ name, deadlineMs: 1000, gather: async () => Promise.reject(new Error(`${name} store is down`)) }),
    'times out': (name) => ({ name, deadlineMs: 30, gather: () => new Promise(() => undefined) }),
    missing: (name) => ({ name, deadlineMs: 1000, gather: async () => Promise.reject(new SubsystemUnavailable('missing', `${name} has no source`)) }),
  };

  for (const section of ['planning', 'history', 'long_term', 'documents'] as const) {
    for (const [how, make] of Object.entries(broken)) {
      test(`${section} ${how}: the pack is still made from the rest, and omitted says which and why`, async () => {
        const counter = await loadTokenCounter();
        const subsystems = ALL().map((subsystem) => (subsystem.name === section ? make(section) : subsystem));
        const pack = await assemblePack(REQUEST, subsystems, { budget: 100_000, failOpen: true, counter });
        expect(pack.items.length).toBeGreaterThan(0);
        expect(pack.items.some((item) => item.section === section)).toBe(false);
        const reason = how === 'throws' ? 'error' : how === 'times out' ? 'timeout' : 'missing';
        expect(pack.omitted).toEqual([{ subsystem: section, reason, detail: expect.any(String) }]);
      });
    }
    test(`${section} absent or off: omitted as missing or off`, async () => {
      const counter = await loadTokenCounter();
      const without = await assemblePack(REQUEST, ALL().filter((subsystem) => subsystem.name !== section), { budget: 1000, failOpen: true, counter });
      expect(without.omitted).toContainEqual({ subsystem: section, reason: 'missing', detail: expect.any(String) });
      const off = await assemblePack(REQUEST, ALL(), { budget: 100_000, failOpen: true, counter, off: new Set([section]) });
      expect(off.omitted).toEqual([{ subsystem: section, reason: 'off', detail: expect.any(String) }]);
      expect(off.items.some((item) => item.section === section)).toBe(false);
    });
  }

  test('with fail-open off an error or a timeout is raised; off and missing still only omit', async () => {
    const counter = await loadTokenCounter();
    const failing = ALL().map((subsystem) => (subsystem.name === 'history' ? broken.throws!('history') : subsystem));
    await expect(assemblePack(REQUEST, failing, { budget: 1000, failOpen: false, counter })).rejects.toThrow(/history failed: history store is down/);
    const slow = ALL().map((subsystem) => (subsystem.name === 'documents' ? broken['times out']!('documents') : subsystem));
    await expect(assemblePack(REQUEST, slow, { budget: 1000, failOpen: false, counter })).rejects.toThrow(/documents timed out/);
    const missing = ALL().map((subsystem) => (subsystem.name === 'planning' ? broken.missing!('planning') : subsystem));
    const pack = await assemblePack(REQUEST, missing, { budget: 1000, failOpen: false, counter });
    expect(pack.omitted).toContainEqual({ subsystem: 'planning', reason: 'missing', detail: 'planning has no source' });
  });
});
