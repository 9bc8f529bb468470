import { describe, expect, test } from 'vitest';
import { MoonError } from '../../src/errors.js';
import { createClock } from '../../src/time/clock.js';

describe('createClock', () => {
  test('without MOON_FAKE_NOW (or empty) it is the real clock', () => {
    expect(createClock({})).toBe(Date.now);
    expect(createClock({ MOON_FAKE_NOW: '  ' })).toBe(Date.now);
  });

  test('an ISO instant or epoch milliseconds starts the clock there, and it advances in real time', async () => {
    const iso = createClock({ MOON_FAKE_NOW: '2026-03-01T09:00:00Z' });
    const first = iso();
    expect(first - Date.parse('2026-03-01T09:00:00Z')).toBeGreaterThanOrEqual(0);
    expect(first - Date.parse('2026-03-01T09:00:00Z')).toBeLessThan(1000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(iso() - first).toBeGreaterThanOrEqual(25);
    const offset = createClock({ MOON_FAKE_NOW: '2026-03-01T20:00:00+11:00' })();
    expect(offset - Date.parse('2026-03-01T09:00:00Z')).toBeLessThan(1000);
    const noZone = createClock({ MOON_FAKE_NOW: '2026-03-01T09:00' })();
    expect(noZone - Date.parse('2026-03-01T09:00:00Z')).toBeLessThan(1000);
    const epoch = createClock({ MOON_FAKE_NOW: '1772355600000' })();
    expect(epoch - 1772355600000).toBeLessThan(1000);
  });

  test.each(['tomorrow', '2026-13-01', '0', '-5', '1.5e12', '2026-03-01 lunchtime'])('"%s" is MoonError(bad_config) naming MOON_FAKE_NOW', (value) => {
    let caught: unknown;
    try {
      createClock({ MOON_FAKE_NOW: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(MoonError);
    expect((caught as MoonError).code).toBe('bad_config');
    expect((caught as MoonError).message).toContain('MOON_FAKE_NOW');
  });
});
