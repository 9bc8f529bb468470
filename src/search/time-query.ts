import { readLocalDate } from './time/calendar.js';
import { findCasualAtoms } from './time/casual.js';
import { findChronoAtoms, findMonthAtoms } from './time/dates.js';
import { evaluateGroup, groupAtoms, type Group } from './time/groups.js';
import { findSessionRelative } from './time/session.js';
import type { Atom, DailyWindow, TimeQuery, TimeWindow } from './time/types.js';
import { findZoneTokens } from './time/zones.js';

export type { DailyWindow, SessionRelative, TimeQuery, TimeWindow } from './time/types.js';
export { toDailyFilters } from './time/daily.js';
export { resolveZoneName } from './time/zones.js';

/** Connectives that only introduced the time ("what happened at 05:39") go with it. */
const LEADING_CONNECTIVES = /(?:(?<![\w-])(?:since|between|from|after|before|at|on|in|during|around|over)\s+(?:the\s+)?)+$/i;

/**
 * Find the time expressions in a recall query and turn them into absolute UTC windows, relative to `nowMs` in the
 * IANA `zone`. Conservative by design: a wrong window silently hides the right transcript, so anything ambiguous
 * (versions, file names, "we may", durations, future times) is left as plain text.
 */
export function parseTimeQuery(query: string, options: { nowMs: number; zone: string }): TimeQuery {
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
    const expression = describeExpression(query, group);
    const found = evaluateGroup(group, options, expression);
    if (found.windows.length === 0 && found.daily.length === 0) continue;
    for (const window of found.windows) windows.push(window);
    for (const window of found.daily) daily.push(window);
    expressions.push(expression);
    removals.push([trimConnectivesBefore(query, group.prefixStart ?? group.start), group.end]);
  }
  return { windows, daily, sessionRelative: session?.relative ?? null, text: removeSpans(query, removals), expressions };
}

function describeExpression(query: string, group: Group): string {
  return query.slice(group.prefixStart ?? group.start, group.end).trim().replace(/^(?:at|on)\s+/i, '');
}

function trimConnectivesBefore(query: string, start: number): number {
  const match = LEADING_CONNECTIVES.exec(query.slice(0, start));
  return match ? match.index : start;
}

/** Cut the time words out and tidy what is left; a query with nothing cut comes back unchanged. */
function removeSpans(query: string, spans: Array<[number, number]>): string {
  if (spans.length === 0) return query;
  const keep = query.split('');
  for (const [start, end] of spans) keep.fill('', start, end);
  return keep
    .join('')
    .replace(/\(\s*\)|\[\s*\]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s+([?!.,;:])(?=\s|$)/g, '$1')
    .replace(/^(?:[\s,;:]|\b(?:and|or)\b)+|(?:[\s,;:]|\b(?:and|or)\b)+$/gi, '')
    .replace(/^([?!.])$/, '');
}
