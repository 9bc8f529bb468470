import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { QUERIES } from '../../bench/queries.mjs';
import { TIME_CUE_WORDS, mayHoldTime } from '../../src/search/time/cue.js';
import { findTimeExpressions, parseTimeQuery } from '../../src/search/time-query.js';

/**
 * parseTimeQuery skips its finders for a query without a time cue (src/search/time/cue.ts). That is only right if
 * the cue is a superset of what the finders read: checked against chrono's own dictionaries, and by running every
 * finder on thousands of phrases — each time phrase the finders know, built from chrono's and moon's vocabulary,
 * and every user and assistant line of the real transcript fixtures — where a finder reading anything must mean
 * the cue said yes.
 */
const require = createRequire(import.meta.url);
const constants = require(join(dirname(require.resolve('chrono-node/en')), 'constants.js')) as Record<string, Record<string, unknown>>;
const OPTIONS = { nowMs: Date.parse('2026-03-04T05:06:07Z'), zone: 'Australia/Sydney' };

const found = (query: string) => {
  const parsed = findTimeExpressions(query, OPTIONS);
  return parsed.expressions.length > 0 || parsed.windows.length > 0 || parsed.daily.length > 0 || parsed.sessionRelative !== null;
};

describe('the time cue', () => {
  test("holds every word of chrono's weekday and month dictionaries and its unabbreviated units", () => {
    const words = new Set(TIME_CUE_WORDS);
    for (const dictionary of ['WEEKDAY_DICTIONARY', 'MONTH_DICTIONARY', 'TIME_UNIT_DICTIONARY_NO_ABBR']) {
      for (const key of Object.keys(constants[dictionary]!)) expect(words.has(key.replace(/\.$/, '')), `${dictionary}: ${key}`).toBe(true);
    }
  });

  test('every time phrase the finders read has a cue', () => {
    const numbers = [...Object.keys(constants.INTEGER_WORD_DICTIONARY!), 'a', 'an', 'few', 'several', 'a couple of', 'half an', '3', '1.5'];
    const ordinals = Object.keys(constants.ORDINAL_WORD_DICTIONARY!);
    const units = Object.keys(constants.TIME_UNIT_DICTIONARY!);
    const months = Object.keys(constants.MONTH_DICTIONARY!);
    const weekdays = Object.keys(constants.WEEKDAY_DICTIONARY!);
    const modifiers = ['', 'last ', 'past ', 'previous ', 'this ', 'next ', 'on ', 'in the ', 'during the ', 'at ', 'over the ', 'early ', 'late ', 'mid '];
    const phrases: string[] = [];
    for (const n of numbers) for (const unit of units) phrases.push(`${n} ${unit} ago`, `within ${n} ${unit}`, `in ${n} ${unit}`, `${n} ${unit} later`, `${n} ${unit} into the session`);
    for (const modifier of modifiers) {
      for (const word of [...units, ...weekdays, ...months, 'weekend', 'weekday', 'morning', 'afternoon', 'evening', 'night', 'noon', 'midnight', 'midday', 'today', 'tonight', 'yesterday', 'tomorrow', 'now', 'christmas', 'eod', 'ago']) {
        phrases.push(`${modifier}${word}`);
      }
    }
    for (const month of months) for (const ordinal of ordinals.slice(0, 40)) phrases.push(`${month} ${ordinal}`, `the ${ordinal} of ${month}`);
    for (const where of ['start', 'beginning', 'end', 'middle']) for (const what of ['session', 'conversation', 'chat']) phrases.push(`at the ${where} of the ${what}`, `early in the ${what}`, `midway through the ${what}`);
    phrases.push('5:39 AEDT', 'at 05:39', '2026-02-21', '21/02/2026', 'Feb 21', 'noon UTC', 'half past five', 'quarter to six', 'a fortnight ago', 'the day before yesterday');
    let read = 0;
    for (const phrase of phrases) {
      for (const query of [phrase, `what did we change ${phrase}?`, `${phrase[0]?.toUpperCase()}${phrase.slice(1)} the deploy failed`]) {
        if (!found(query)) continue;
        read += 1;
        expect(mayHoldTime(query), query).toBe(true);
      }
    }
    // The phrases are real work for the finders: most are read as times.
    expect(read).toBeGreaterThan(2000);
  });

  test("every line of the real transcripts and the bench's queries: what a finder reads has a cue, and without one nothing changes", () => {
    const lines = [...QUERIES.map((query) => query.query)];
    const fixtures = join(import.meta.dirname, '../fixtures');
    for (const format of ['claude-code', 'codex', 'pi']) {
      for (const file of readdirSync(join(fixtures, format), { recursive: true }).map(String).filter((name) => name.endsWith('.jsonl'))) {
        for (const line of readFileSync(join(fixtures, format, file), 'utf8').split('\n')) {
          for (const text of line.match(/"text":"((?:[^"\\]|\\.){12,400})"/g) ?? []) lines.push(JSON.parse(`{${text}}`).text as string);
        }
      }
    }
    expect(lines.length).toBeGreaterThan(500);
    let withoutCue = 0;
    for (const line of lines) {
      if (found(line)) expect(mayHoldTime(line), line).toBe(true);
      if (!mayHoldTime(line)) {
        withoutCue += 1;
        expect(parseTimeQuery(line, OPTIONS)).toEqual(findTimeExpressions(line, OPTIONS));
      }
    }
    // Many lines name no time, and most queries: the cue spares them the finders.
    expect(withoutCue).toBeGreaterThan(lines.length / 5);
    const queries = QUERIES.map((query) => query.query);
    expect(queries.filter((query) => !mayHoldTime(query)).length).toBeGreaterThan(queries.length * 0.8);
  });
});
