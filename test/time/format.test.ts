import { describe, expect, it } from 'vitest';
import {
  abbreviateZone,
  formatLocalIso,
  formatLocalTime,
  formatOffset,
  formatUtcIso,
  formatUtcTime,
  formatZoneLabel,
  resolveZone,
} from '../../src/time/format.js';

const at = (iso: string): number => Date.parse(iso);

describe('time labels', () => {
  it('Australia/Sydney: AEDT in summer, AEST in winter, switching at the DST instant', () => {
    expect(formatZoneLabel(at('2026-02-21T18:39:00Z'), 'Australia/Sydney')).toBe('AEDT (+11:00)');
    expect(formatZoneLabel(at('2026-07-01T00:00:00Z'), 'Australia/Sydney')).toBe('AEST (+10:00)');
    // DST ends 2026-04-05 03:00 AEDT = 16:00Z.
    expect(formatLocalTime(at('2026-04-04T15:59:59Z'), 'Australia/Sydney')).toBe('02:59:59 AEDT');
    expect(formatLocalTime(at('2026-04-04T16:00:00Z'), 'Australia/Sydney')).toBe('02:00:00 AEST');
    expect(formatLocalIso(at('2026-02-21T18:39:00Z'), 'Australia/Sydney')).toBe('2026-02-22T05:39:00+11:00');
  });

  it('America/Los_Angeles: PST and PDT', () => {
    expect(formatZoneLabel(at('2026-01-15T12:00:00Z'), 'America/Los_Angeles')).toBe('PST (-08:00)');
    expect(formatZoneLabel(at('2026-07-15T12:00:00Z'), 'America/Los_Angeles')).toBe('PDT (-07:00)');
    // DST starts 2026-03-08 02:00 PST = 10:00Z.
    expect(formatLocalTime(at('2026-03-08T09:59:00Z'), 'America/Los_Angeles')).toBe('01:59:00 PST');
    expect(formatLocalTime(at('2026-03-08T10:00:00Z'), 'America/Los_Angeles')).toBe('03:00:00 PDT');
    expect(formatLocalIso(at('2026-07-15T12:00:00Z'), 'America/Los_Angeles')).toBe('2026-07-15T05:00:00-07:00');
  });

  it('UTC uses a numeric offset in ISO and the label UTC', () => {
    expect(formatZoneLabel(at('2026-01-15T12:00:00Z'), 'UTC')).toBe('UTC (+00:00)');
    expect(formatZoneLabel(at('2026-01-15T12:00:00Z'), 'Etc/UTC')).toBe('UTC (+00:00)');
    expect(formatLocalIso(at('2026-01-15T12:00:00Z'), 'UTC')).toBe('2026-01-15T12:00:00+00:00');
    expect(formatLocalTime(at('2026-01-15T12:00:00Z'), 'UTC')).toBe('12:00:00 UTC');
  });

  it('produces readable labels where ICU only knows GMT+N', () => {
    expect(abbreviateZone(at('2026-01-15T12:00:00Z'), 'Europe/London')).toBe('GMT');
    expect(abbreviateZone(at('2026-07-15T12:00:00Z'), 'Europe/London')).toBe('BST');
    expect(abbreviateZone(at('2026-01-15T12:00:00Z'), 'Asia/Tokyo')).toBe('JST');
    expect(formatZoneLabel(at('2026-01-15T12:00:00Z'), 'Etc/GMT-11')).toBe('UTC+11 (+11:00)');
    expect(formatOffset(at('2026-01-15T12:00:00Z'), 'Asia/Kolkata')).toBe('+05:30');
    for (const zone of ['Asia/Kathmandu', 'Asia/Shanghai', 'Pacific/Auckland', 'Europe/Berlin']) {
      expect(abbreviateZone(at('2026-01-15T12:00:00Z'), zone)).not.toMatch(/^GMT[+-]/);
    }
  });

  it('formats UTC and falls back to UTC for an unknown zone', () => {
    expect(formatUtcTime(at('2026-02-21T18:39:12Z'))).toBe('18:39:12Z');
    expect(formatUtcIso(at('2026-02-21T18:39:12.345Z'))).toBe('2026-02-21T18:39:12Z');
    expect(resolveZone('Not/AZone')).toBe('UTC');
    expect(formatLocalTime(at('2026-02-21T18:39:12Z'), 'Not/AZone')).toBe('18:39:12 UTC');
  });
});
