import { readLocalDate } from '../time/calendar.js';
import { findCasualAtoms } from './time/casual.js';
import { mayHoldTime } from './time/cue.js';
import { findChronoAtoms, findMonthAtoms } from './time/dates.js';
import { evaluateGroup, groupAtoms, type Group } from './time/groups.js';
import { readLookback } from './time/lookback.js';
import { findSessionRelative } from './time/session.js';
import type { Atom, DailyWindow, TimeQuery, TimeWindow } from '../time/types.js';
import { findZoneTokens } from '../time/zone-names.js';

export type { DailyWindow, SessionRelative, TimeQuery, TimeWindow } from '../time/types.js';
export { toDailyFilters } from './time/daily.js';
export { resolveZoneName } from '../time/zone-names.js';

/**
 * Expressions read from one query. A query is a question, not a document: past this many, the rest stays text,
 * so a pasted log full of dates cannot turn into thousands of store filters (each a clause of one SQL query).
 */
const MAX_EXPRESSIONS = 16;

/** Connectives that only introduced the time ("what happened at 05:39") go with it. */
const LEADING_CONNECTIVES = /(?:(?<![\w-])(?:since|between|from|after|before|at|on|in|during|around|over)\s+(?:the\s+)?)+$/i;

/**
 * Find the time expressions in a recall query and turn them into absolute UTC windows, relative to `nowMs` in the
 * IANA `zone`. Conservative by design: a wrong window silently hides the right transcript, so anything ambiguous
 * (versions, file names, "we may", durations, future times) is left as plain text.
 */
export function parseTimeQuery(query: string, options: { nowMs: number; zone: string }): TimeQuery {
  // Most queries name no time: no finder needs to run (time/cue.ts).
  if (!mayHoldTime(query)) return { windows: [], daily: [], sessionRelative: null, text: query, expressions: [] };
  return findTimeExpressions(query, options);
}

/** Every finder over the query, whatever its words (parseTimeQuery runs it when a cue says it may find something). */
export function findTimeExpressions(query: string, options: { nowMs: number; zone: string }): TimeQuery {
  const ctx = { ...options, today: readLocalDate(options.nowMs, options.zone) };
  const masked = query.split(''); // UTF-16 units, so indices match the query's
  const session = findSessionRelative(query);
  if (session) masked.fill(' ', session.start, session.end);

  // Order matters: each finder blanks what it took, so ISO stamps, phrases and zones are safe from chrono.
  const atoms: Atom[] = findCasualAtoms(masked, ctx);
  for (const token of findZoneTokens(masked.join(''), options.nowMs)) {
    atoms.push({ start: token.start, end: token.end, zone: token.zone, zoneOnly: true });
    masked.fill(' ', token.start, token.end);
  }
  atoms.push(...findChronoAtoms(masked, ctx), ...findMonthAtoms(masked, ctx));

  const windows: TimeWindow[] = [];
  const daily: DailyWindow[] = [];
  const expressions: string[] = [];
  const removals: Array<[number, number]> = [];
  if (session) {
    expressions.push(session.relative.label);
    removals.push([trimConnectivesBefore(query, session.start), session.end]);
  }
  for (const group of groupAtoms(atoms, query)) {
    if (expressions.length >= MAX_EXPRESSIONS) break;
    const expression = describeExpression(query, group);
    const found = evaluateGroup(group, options, expression);
    const usable = found.windows.filter(isUsableWindow);
    const usableDaily = found.daily.filter(isUsableDaily);
    if (usable.length === 0 && usableDaily.length === 0) continue;
    for (const window of usable) windows.push(window);
    for (const window of usableDaily) daily.push(window);
    expressions.push(expression);
    removals.push([trimConnectivesBefore(query, group.prefixStart ?? group.start), group.end]);
  }
  return { windows, daily, sessionRelative: session?.relative ?? null, text: removeSpans(query, removals), expressions };
}

function describeExpression(query: string, group: Group): string {
  return query.slice(group.prefixStart ?? group.start, group.end).trim().replace(/^(?:at|on)\s+/i, '');
}

/** Instants past the calendar luxon can hold come back as NaN or ±Infinity; such a window would match nothing. */
function isUsableWindow(window: TimeWindow): boolean {
  return Number.isFinite(window.startMs) && Number.isFinite(window.endMs) && window.startMs < window.endMs;
}

function isUsableDaily(window: DailyWindow): boolean {
  return Number.isFinite(window.fromMs) && Number.isFinite(window.toMs) && window.fromMs < window.toMs;
}

function trimConnectivesBefore(query: string, start: number): number {
  const before = readLookback(query, start);
  const match = LEADING_CONNECTIVES.exec(before.text);
  return match ? before.offset + match.index : start;
}

/** Cut the time words out and tidy what is left; a query with nothing cut comes back unchanged. */
function removeSpans(query: string, spans: Array<[number, number]>): string {
  if (spans.length === 0) return query;
  const keep = query.split('');
  for (const [start, end] of spans) keep.fill('', start, end);
  const tidied = keep
    .join('')
    .replace(/\(\s*\)|\[\s*\]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s+([?!.,;:])(?=\s|$)/g, '$1')
    .replace(/^(?:[\s,;:]|\b(?:and|or)\b)+/i, '');
  return trimTrailingJoiners(tidied).replace(/^([?!.])$/, '');
}

/**
 * Separators and a dangling "and"/"or" at the end, removed by scanning back from the end: a regex anchored only at
 * the end is retried from every position and costs the square of a long run of commas.
 */
function trimTrailingJoiners(text: string): string {
  let end = text.length;
  while (end > 0) {
    if (/[\s,;:]/.test(text[end - 1]!)) {
      end -= 1;
      continue;
    }
    const joiner = [3, 2].find((length) => {
      const word = text.slice(end - length, end).toLowerCase();
      return end >= length && (word === 'and' || word === 'or') && !/\w/.test(text[end - length - 1] ?? ' ');
    });
    if (joiner === undefined) break;
    end -= joiner;
  }
  return text.slice(0, end);
}
