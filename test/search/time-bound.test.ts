import { describe, expect, test } from 'vitest';
import { isMoonError } from '../../src/errors.js';
import { parseTimeBound } from '../../src/search/options.js';
import { parseTimeQuery } from '../../src/search/time-query.js';

/** since/until on every door: ISO as before, and the time words a recall query understands. */
const NOW = Date.parse('2026-02-25T03:00:00Z'); // Wednesday 25 Feb, 14:00 in Sydney
const ZONE = 'Australia/Sydney';

describe('a since/until bound', () => {
  test('an ISO date is its start in the zone; a date-time with an offset is that instant', () => {
    expect(parseTimeBound('since', '2026-02-21', ZONE, NOW)).toBe(Date.parse('2026-02-20T13:00:00Z'));
    expect(parseTimeBound('since', '2026-02-21T18:39:00Z', ZONE, NOW)).toBe(Date.parse('2026-02-21T18:39:00Z'));
  });

  test('time words are the start of the window a query with those words would search', () => {
    for (const words of ['yesterday', 'last week', '3 days ago', 'last Saturday', 'January 2026', 'last Saturday morning']) {
      const window = parseTimeQuery(words, { nowMs: NOW, zone: ZONE }).windows;
      expect(window.length, words).toBeGreaterThan(0);
      expect(parseTimeBound('since', words, ZONE, NOW), words).toBe(Math.min(...window.map((item) => item.startMs)));
    }
    expect(parseTimeBound('until', 'yesterday', ZONE, NOW)).toBe(Date.parse('2026-02-23T13:00:00Z'));
    // Read at the given now, not the machine's.
    expect(parseTimeBound('since', 'yesterday', ZONE, NOW + 86_400_000)).toBe(Date.parse('2026-02-24T13:00:00Z'));
  });

  test('anything else is refused with the flag or field named, including words left over beside a time', () => {
    for (const value of ['banana', 'yesterday banana', '', '   ', 'the deploy']) {
      let caught: unknown;
      try {
        parseTimeBound('since', value, ZONE, NOW);
      } catch (error) {
        caught = error;
      }
      expect(isMoonError(caught), JSON.stringify(value)).toBe(true);
      expect((caught as Error).message).toMatch(/^since: /);
    }
  });
});
