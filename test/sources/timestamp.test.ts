import { describe, expect, test } from 'vitest';
import { parseTimestamp } from '../../src/sources/timestamp.js';

const NOON = Date.UTC(2025, 6, 3, 12, 0, 0); // 2025-07-03T12:00:00Z

describe('parseTimestamp', () => {
  test.each([
    ['2025-07-03T12:00:00Z', NOON],
    ['2025-07-03T12:00:00.000Z', NOON],
    ['2025-07-03T12:00:00.250Z', NOON + 250],
    ['2025-07-03T12:00:00.875917Z', NOON + 875], // Claude Code 1.x wrote microseconds
    ['2025-07-03T14:00:00+02:00', NOON],
    ['2025-07-03T07:30:00-0430', NOON],
    ['2025-07-03T12:00:00', NOON], // no zone means UTC, whatever the machine's zone
    ['2025-07-03 12:00:00', NOON],
    ['2025-07-03T12:00', NOON],
    ['2025-07-03', Date.UTC(2025, 6, 3)],
    ['Thu, 03 Jul 2025 12:00:00 GMT', NOON],
  ])('ISO and HTTP strings: %s', (input, expected) => {
    expect(parseTimestamp(input)).toBe(expected);
  });

  test.each([
    [NOON / 1000, NOON], // seconds
    [NOON / 1000 + 0.5, NOON + 500], // fractional seconds
    [NOON, NOON], // milliseconds
    [NOON * 1000, NOON], // microseconds
    [NOON * 1e6, NOON], // nanoseconds
    [String(NOON), NOON],
    [String(NOON / 1000), NOON],
    [` ${NOON * 1000} `, NOON],
  ])('epoch numbers and numeric strings by magnitude: %s', (input, expected) => {
    expect(parseTimestamp(input)).toBe(expected);
  });

  test.each([
    [null],
    [undefined],
    [''],
    ['   '],
    ['yesterday'],
    ['2025-13-01T00:00:00Z'],
    ['2025-02-30'],
    ['2025-07-03T25:00:00Z'],
    ['12:00:00'],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    [0],
    [-5],
    [1e25],
    [{}],
    [[2025, 7, 3]],
    [true],
  ])('garbage is null: %j', (input) => {
    expect(parseTimestamp(input)).toBeNull();
  });

  test('Date objects pass through', () => {
    expect(parseTimestamp(new Date(NOON))).toBe(NOON);
    expect(parseTimestamp(new Date('nope'))).toBeNull();
  });
});
