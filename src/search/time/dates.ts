import { createRequire } from 'node:module';
import type { ParsedComponents } from 'chrono-node';
import { compareDates, isValidDate } from '../../time/calendar.js';
import { isGluedToCode, type CasualContext } from './casual.js';
import { readLookback } from './lookback.js';
import { readOffsetMinutes } from '../../time/zone-names.js';
import type { Atom, Clock, LocalDate } from '../../time/types.js';

/**
 * Calendar dates and clock times ("21 Feb 2026", "February 21st", "5:39am", "2pm-4pm", "at 5pm on 21 Feb") come
 * from chrono's strict parser, which skips casual words. Only the components chrono is certain of are used; the
 * instants are computed later with luxon, because chrono applies one fixed offset to every date it builds.
 */
export function findChronoAtoms(masked: string[], ctx: CasualContext): Atom[] {
  const text = masked.join('');
  const chrono = loadChrono();
  // chrono ignores IANA names: it wants the offset in minutes at the reference instant.
  const reference = { instant: new Date(ctx.nowMs), timezone: readOffsetMinutes(ctx.zone, ctx.nowMs) };
  const atoms: Atom[] = [];
  for (const result of chrono.strict.parse(text, reference, { forwardDate: false })) {
    let written = result.text;
    // Real zones were masked beforehand, so any zone chrono still found is a word like "get" ("3pm get logs").
    if (result.start.isCertain('timezoneOffset')) {
      const trimmed = written.replace(/[\s,]*\(?[A-Za-z]{2,5}\)?$/, '');
      if (trimmed === written) continue;
      written = trimmed;
    }
    const start = result.index;
    const end = start + written.length;
    if (!isStandalone(text, start, end, written)) continue;
    const atom = buildAtom(result.start, result.end, written, ctx.today);
    if (atom === null) continue;
    atoms.push({ ...atom, start, end });
    masked.fill(' ', start, end);
  }
  return atoms;
}

type Chrono = typeof import('chrono-node/en');
let loaded: Chrono | null = null;

/** chrono is loaded the first time a query may hold a time (~40 ms): most queries never need it. */
function loadChrono(): Chrono {
  loaded ??= createRequire(import.meta.url)('chrono-node/en') as Chrono;
  return loaded;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_WORD = String.raw`(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?`;
const MONTH_PATTERN = new RegExp(String.raw`\b(?:(in|during|since|from|throughout|early|late|mid|of)\s+)?${MONTH_WORD}(?:\s+(\d{4}))?\b(?![-/.]\w)`, 'gi');

/**
 * A month on its own ("in March", "March 2025"). Month names double as words ("we may need", "march on"), so a
 * bare name needs a year, a preposition, or a capital letter — and "may" never counts on a capital alone, since
 * it starts sentences.
 */
export function findMonthAtoms(masked: string[], ctx: CasualContext): Atom[] {
  const atoms: Atom[] = [];
  for (const match of masked.join('').matchAll(MONTH_PATTERN)) {
    const name = match[2] ?? '';
    const lower = name.toLowerCase();
    const index = MONTHS.findIndex((month) => month.startsWith(lower.slice(0, 3)));
    const hasYear = match[3] !== undefined;
    const hasPreposition = match[1] !== undefined;
    const isFullName = MONTHS[index] === lower;
    const isCapitalised = name[0] !== undefined && name[0] === name[0].toUpperCase();
    const accepted = hasYear || (isFullName && (hasPreposition || (isCapitalised && lower !== 'may')));
    if (index < 0 || !accepted || isGluedToCode(masked, match.index, match.index + match[0].length)) continue;
    const month = index + 1;
    // Without a year: the most recent such month that has started (this March, if it is March now).
    const year = hasYear ? Number(match[3]) : month <= ctx.today.month ? ctx.today.year : ctx.today.year - 1;
    const start = match.index;
    const end = start + match[0].length;
    atoms.push({ start, end, month: { year, month } });
    masked.fill(' ', start, end);
  }
  return atoms;
}

/** Reject matches glued to code: "file.ts:12:30", "report-2026-02-21", "line 10:30", "1/2 of the tests". */
function isStandalone(text: string, start: number, end: number, written: string): boolean {
  const before = readLookback(text, start).text;
  const after = text.slice(end, end + 2);
  if (/[\w.:/#@-]$/.test(before) || /^(?:[\w/:-]|\.\w)/.test(after)) return false;
  if (/\b(?:line|lines|ln|col|column|port|version|v|step|page|chapter|verse)\s*$/i.test(before)) return false;
  // Numeric dates are read month-first by chrono; only accept them when the order cannot matter.
  const numeric = /\b(\d{1,4})[/.](\d{1,2})(?:[/.](\d{2,4}))?\b/.exec(written);
  if (numeric) {
    const [first, second, third] = [Number(numeric[1]), Number(numeric[2]), numeric[3]];
    const yearFirst = (numeric[1] ?? '').length === 4;
    if (third === undefined && !yearFirst) return false;
    if (!yearFirst && ((third ?? '').length !== 4 || (first <= 12 && second <= 12 && first !== second))) return false;
  }
  return !/\bmay\b/.test(written); // lower-case "may" is the verb ("we may 10x it").
}

function buildAtom(start: ParsedComponents, end: ParsedComponents | undefined, written: string, today: LocalDate): Omit<Atom, 'start' | 'end'> | null {
  const day = readDate(start, today);
  const clock = readClock(start, written);
  if (day === null && clock === null) return null;
  const atom: Omit<Atom, 'start' | 'end'> = {};
  if (day) atom.day = day;
  if (clock) atom.clock = clock;
  if (end) {
    const endDay = readDate(end, today);
    const endClock = readClock(end, written);
    if (clock && endClock) atom.clockEnd = endClock;
    else if (day && endDay && !clock) atom.dayEnd = endDay;
    else return null;
  }
  return atom;
}

/** A certain month and day; a missing year means the latest occurrence that is not in the future. */
function readDate(components: ParsedComponents, today: LocalDate): LocalDate | null {
  if (!components.isCertain('month') || !components.isCertain('day')) return null;
  const month = components.get('month') ?? 0;
  const day = components.get('day') ?? 0;
  let year = components.isCertain('year') ? (components.get('year') ?? 0) : today.year;
  if (!components.isCertain('year') && compareDates({ year, month, day }, today) > 0) year -= 1;
  const date = { year, month, day };
  return isValidDate(date) ? date : null;
}

function readClock(components: ParsedComponents, written: string): Clock | null {
  if (!components.isCertain('hour')) return null;
  return {
    hour: components.get('hour') ?? 0,
    minute: components.get('minute') ?? 0,
    second: components.get('second') ?? 0,
    // "3pm" names an hour; "3:00pm" or "15:00" names a minute and earns the tighter tolerance.
    minutePrecise: /\d[:.]\d{2}/.test(written),
  };
}
