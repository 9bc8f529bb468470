import { describe, expect, test } from 'vitest';
import { listOffsetPeriods } from '../../src/time/offsets.js';

const HOUR = 3_600_000;
const at = (iso: string): number => Date.parse(iso);

describe('listOffsetPeriods', () => {
  test('a fixed-offset zone is one period, whatever the span', () => {
    expect(listOffsetPeriods('UTC+11', at('2024-01-01T00:00:00Z'), at('2026-12-31T00:00:00Z'))).toEqual([
      { startMs: at('2024-01-01T00:00:00Z'), endMs: at('2026-12-31T00:00:00Z'), offsetMs: 11 * HOUR },
    ]);
  });

  test('Sydney in 2026: AEDT, AEST from 5 April 03:00 local, AEDT again from 4 October 02:00 local', () => {
    const periods = listOffsetPeriods('Australia/Sydney', at('2026-01-01T00:00:00Z'), at('2027-01-01T00:00:00Z'));
    expect(periods).toEqual([
      { startMs: at('2026-01-01T00:00:00Z'), endMs: at('2026-04-04T16:00:00Z'), offsetMs: 11 * HOUR },
      { startMs: at('2026-04-04T16:00:00Z'), endMs: at('2026-10-03T16:00:00Z'), offsetMs: 10 * HOUR },
      { startMs: at('2026-10-03T16:00:00Z'), endMs: at('2027-01-01T00:00:00Z'), offsetMs: 11 * HOUR },
    ]);
  });

  test('a change in the last, partial week is found; an empty span has no periods', () => {
    const periods = listOffsetPeriods('America/Los_Angeles', at('2026-03-05T00:00:00Z'), at('2026-03-09T00:00:00Z'));
    expect(periods.map((period) => period.offsetMs / HOUR)).toEqual([-8, -7]);
    expect(periods[1]!.startMs).toBe(at('2026-03-08T10:00:00Z'));
    expect(listOffsetPeriods('Europe/London', 5, 5)).toEqual([]);
  });
});
