import { describe, expect, it } from 'vitest';
import { detectChanges, hashBranch, hashHistory, hashPrompt, hashSegment, normalizeWhitespace } from '../../src/rlm/hashes.js';
import type { PuffinResponse } from '../../src/sources/puffin-history.js';

const response = (content: string): PuffinResponse => ({ content, sessionId: null, cost: null, turns: null, duration: null, timestamp: null, filesModified: [] });

describe('hashes', () => {
  const base = { id: 'p1', content: 'Use WAL mode\nfor the store.', response: response('Done:  switched.') };

  it('are SHA-256 hex, stable across whitespace-only edits', () => {
    const hash = hashPrompt(base);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashPrompt({ ...base, content: '  Use WAL   mode for\tthe store.  ' })).toBe(hash);
    expect(hashPrompt({ ...base, response: response('Done: switched.\n') })).toBe(hash);
    expect(normalizeWhitespace(' a \n\t b ')).toBe('a b');
    // The fast form equals folding every whitespace run, on every kind of space.
    const spaces = [' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2003', '\u3000', ' \n ', '\ufeff', '\u2028'];
    for (const a of spaces) for (const b of spaces) {
      const text = `${a}x${b}y z${a}${b}`;
      expect(normalizeWhitespace(text)).toBe(text.replace(/\s+/gu, ' ').trim());
    }
  });

  it('change with the id, the prompt or the response; a null response differs from an empty one', () => {
    const hash = hashPrompt(base);
    expect(hashPrompt({ ...base, id: 'p2' })).not.toBe(hash);
    expect(hashPrompt({ ...base, content: 'Use rollback journal' })).not.toBe(hash);
    expect(hashPrompt({ ...base, response: response('Reverted.') })).not.toBe(hash);
    expect(hashPrompt({ ...base, response: null })).not.toBe(hashPrompt({ ...base, response: response('') }));
    // Fields do not run into each other.
    expect(hashPrompt({ id: 'p1', content: 'ab', response: response('c') })).not.toBe(hashPrompt({ id: 'p1', content: 'a', response: response('bc') }));
  });

  it('of segments, branches and the history depend on order and on what they hold', () => {
    const [a, b] = [hashPrompt(base), hashPrompt({ ...base, id: 'p2' })];
    expect(hashBranch('main', [a, b])).not.toBe(hashBranch('main', [b, a]));
    expect(hashBranch('main', [a, b])).not.toBe(hashBranch('other', [a, b]));
    expect(hashSegment('main', [], [a, b])).not.toBe(hashSegment('main', [a], [b]));
    expect(hashHistory([hashBranch('x', [a])])).toBe(hashHistory([hashBranch('x', [a])]));
  });

  it('detect added, modified and removed prompts', () => {
    const old = new Map([
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
    ]);
    const now = new Map([
      ['a', '1'],
      ['b', '9'],
      ['d', '4'],
    ]);
    expect(detectChanges(old, now)).toEqual({ added: ['d'], modified: ['b'], removed: ['c'] });
  });
});
