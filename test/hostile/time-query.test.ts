import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parseTimeQuery, type TimeQuery } from '../../src/search/time-query.js';
import { dropStopwords, splitQueryTerms } from '../../src/search/terms.js';
import { propertyRuns } from './runs.js';

/**
 * The recall query parser against hostile queries: unicode, control characters, floods of digits, colons and time
 * words, every IANA zone. It never throws, its windows are finite and non-empty, the text it returns only holds
 * words of the query, the same input gives the same output, and 100 KB queries that would hang a quadratic
 * parser come back.
 */

const RUNS = propertyRuns(200, 10_000);
const NOW = Date.UTC(2026, 1, 21, 18, 39);
const ZONES = Intl.supportedValuesOf('timeZone');

const TIME_WORDS = [
  'yesterday', 'today', 'tonight', 'last', 'past', 'this', 'next', 'week', 'month', 'year', 'weekend', 'ago', 'hours',
  'minutes', 'days', 'since', 'between', 'and', 'to', 'after', 'before', 'at', 'on', 'in', 'around', 'morning',
  'night', 'noon', 'midnight', 'Saturday', 'monday', 'March', 'may', 'Feb', '21', '2026', '05:39', '3pm', '10pm',
  '2026-02-21', '2026-02-21T05:39:00+11:00', 'AEDT', 'UTC+11', 'GMT-5', '+02:00', 'Z', 'Europe/London', 'PST',
  'the', 'session', 'into', 'start', 'of', 'end', 'middle', 'early', 'late', 'two', 'a couple of', 'half an',
  '99999999999999999999', '1e400', '9'.repeat(400), '0', '-', '–', '(', ')', ',', '.', ':', '/', '"', 'file.ts:12:30',
  'v1.2.3', 'line', 'port', 'monday.com', '--since=yesterday', 'Ω', '日本', '\u0000', '\u202e', '\ud800', '🦀',
];

/** Queries made of time words, digits and separators in any order, with arbitrary strings mixed in. */
const timeish = fc
  .array(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...TIME_WORDS) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) }), { maxLength: 14 })
  .chain((words) => fc.array(fc.constantFrom(' ', ' ', ' ', '', ', ', '\n', '\t'), { minLength: words.length, maxLength: words.length }).map((gaps) => words.map((word, index) => `${word}${gaps[index]}`).join('')));
const anyQuery = fc.oneof(timeish, fc.string({ unit: 'binary', maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 40 }));
const zones = fc.oneof(fc.constantFrom(...ZONES), fc.constantFrom('UTC', 'Australia/Sydney', 'America/St_Johns', 'Pacific/Chatham', 'Asia/Kathmandu'));
const nows = fc.oneof(fc.constant(NOW), fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(2100, 0, 1) }));

/** Every way a parse result breaks its contract; [] for a sound one. */
function describeFaults(query: string, parsed: TimeQuery): string[] {
  const faults: string[] = [];
  for (const window of parsed.windows) {
    if (!Number.isFinite(window.startMs) || !Number.isFinite(window.endMs) || !(window.startMs < window.endMs)) {
      faults.push(`window ${window.label}: ${window.startMs}..${window.endMs}`);
    }
  }
  for (const window of parsed.daily) {
    if (!Number.isFinite(window.fromMs) || !Number.isFinite(window.toMs) || !(window.fromMs < window.toMs)) {
      faults.push(`daily ${window.label}: ${window.fromMs}..${window.toMs}`);
    }
    if (typeof window.zone !== 'string' || window.zone === '') faults.push(`daily zone ${window.zone}`);
  }
  const relative = parsed.sessionRelative;
  if (relative) {
    for (const value of [relative.fromMs, relative.toMs, relative.fromFraction, relative.toFraction]) {
      if (value !== undefined && !Number.isFinite(value)) faults.push(`session-relative ${relative.label}`);
    }
  }
  if (typeof parsed.text !== 'string') faults.push('text');
  // No invented words: cutting and tidying only remove characters (whitespace runs become one space).
  if (!isSubsequence(parsed.text.replace(/\s+/g, ''), query.replace(/\s+/g, ''))) faults.push(`text ${JSON.stringify(parsed.text)}`);
  if (parsed.text.length > query.length) faults.push('text grew');
  for (const expression of parsed.expressions) if (!query.includes(expression)) faults.push(`expression ${expression}`);
  return faults;
}

function isSubsequence(part: string, whole: string): boolean {
  let at = 0;
  for (const char of part) {
    at = whole.indexOf(char, at);
    if (at < 0) return false;
    at += char.length;
  }
  return true;
}

describe('parseTimeQuery on hostile queries', () => {
  test('never throws; windows finite and non-empty; no invented words; deterministic', () => {
    fc.assert(
      fc.property(anyQuery, zones, nows, (query, zone, nowMs) => {
        const parsed = parseTimeQuery(query, { nowMs, zone });
        expect(describeFaults(query, parsed)).toEqual([]);
        expect(parseTimeQuery(query, { nowMs, zone })).toEqual(parsed);
      }),
      RUNS,
    );
  });

  test('every IANA zone parses a clock time, a date and a day word', () => {
    for (const zone of ZONES) {
      const parsed = parseTimeQuery('deploy yesterday at 05:39 and on 21 Feb 2026 between 2pm and 4pm', { nowMs: NOW, zone });
      expect(describeFaults('deploy yesterday at 05:39 and on 21 Feb 2026 between 2pm and 4pm', parsed), zone).toEqual([]);
      expect(parsed.windows.length, zone).toBeGreaterThan(0);
    }
  });

  test('counts too large for a calendar are left as text', () => {
    for (const query of [`${'9'.repeat(400)} days ago`, `in the past ${'9'.repeat(400)} hours`, '99999999999999999999 years ago', `${'9'.repeat(30)} hours into the session`]) {
      const parsed = parseTimeQuery(query, { nowMs: NOW, zone: 'UTC' });
      expect(describeFaults(query, parsed), query).toEqual([]);
    }
  });

  // Each would hang (minutes to hours) if any step were quadratic in the query's length.
  const FLOODS: [string, string][] = [
    ['time words', 'yesterday '.repeat(10_000)],
    ['connectives', `${'at '.repeat(33_000)}x 3pm`],
    ['clock times', '3pm '.repeat(25_000)],
    ['dates', '21 Feb 2026 '.repeat(8_000)],
    ['digits and colons', '1:2:3 '.repeat(16_000)],
    ['commas after a time', `3pm${' ,'.repeat(50_000)} x`],
    ['trailing joiners', `deploy 3pm${' and'.repeat(25_000)}`],
    ['since chains', `${'since '.repeat(16_000)}monday`],
    ['zone-like paths', `${'a/'.repeat(50_000)}b 5pm`],
    ['one long word', `${'x'.repeat(100_000)} yesterday`],
    ['unicode', `${'日本語 🦀 '.repeat(12_000)} last week`],
  ];

  test.each(FLOODS)('a 100 KB flood of %s returns, bounded', (_name, query) => {
    const parsed = parseTimeQuery(query, { nowMs: NOW, zone: 'Australia/Sydney' });
    expect(describeFaults(query, parsed)).toEqual([]);
    expect(parsed.expressions.length).toBeLessThanOrEqual(16);
    expect(parsed.windows.length + parsed.daily.length).toBeLessThanOrEqual(16 * 31);
  });
});

describe('query terms on hostile queries', () => {
  test('splitQueryTerms and dropStopwords never throw and only return pieces of the query', () => {
    fc.assert(
      fc.property(anyQuery, (query) => {
        const terms = splitQueryTerms(query);
        for (const term of terms) {
          expect(term).not.toBe('');
          expect(query.includes(term), term).toBe(true);
        }
        const kept = dropStopwords(terms);
        expect(kept.every((term) => terms.includes(term))).toBe(true);
        expect(splitQueryTerms(query)).toEqual(terms);
      }),
      RUNS,
    );
  });

  test.each([
    ['quotes', '"'.repeat(100_000)],
    ['an unclosed quote', `"${'word '.repeat(20_000)}`],
    ['punctuation', '.,;:!?'.repeat(17_000)],
    ['apostrophes', "John's ".repeat(14_000)],
  ])('a 100 KB query of %s splits', (_name, query) => {
    const terms = splitQueryTerms(query);
    expect(dropStopwords(terms).length).toBeLessThanOrEqual(terms.length);
  });
});
