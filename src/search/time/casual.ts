import {
  computeDaySpan,
  computeInstant,
  computeMonthSpan,
  computeWeekSpan,
  computeYearSpan,
  isValidDate,
  readWeekday,
  shiftDate,
} from '../../time/calendar.js';
import { COUNT_SOURCE, readCountWord } from './numbers.js';
import type { Atom, DayPart, LocalDate, TimeWindow } from '../../time/types.js';

/**
 * Word-level time phrases recognised by hand rather than by chrono: chrono's casual parser also reads "sat",
 * "sun" and "now" as dates and knows nothing of weekends, parts of the day or calendar weeks, and its weekday
 * and month guesses may land in the future. Every pattern here is anchored on an unambiguous time word.
 */

export interface CasualContext {
  nowMs: number;
  zone: string;
  today: LocalDate;
}

interface Recognizer {
  pattern: RegExp;
  build: (match: RegExpExecArray, ctx: CasualContext) => Omit<Atom, 'start' | 'end'> | null;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const UNIT = String.raw`(minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)`;

const PATTERNS: Recognizer[] = [
  // ISO dates and date-times first, so nothing else reads their pieces; "2026-02-21.md" is a file name.
  {
    pattern: /(?<![\w./:-])(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?(?![\w/:-]|\.\w)/g,
    build: (m) => {
      const day = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
      if (!isValidDate(day)) return null;
      if (m[4] === undefined) return { day };
      const hour = Number(m[4]);
      const minute = Number(m[5]);
      if (hour > 23 || minute > 59) return null;
      const clock = { hour, minute, second: Number(m[6] ?? 0), minutePrecise: true };
      return m[7] === undefined ? { day, clock } : { day, clock, zone: toLuxonOffset(m[7]) };
    },
  },
  {
    pattern: /\b(?:(?:in|over|during)\s+)?(?:the\s+)?(?:(?:last|past)\s+COUNT|past)\s+UNIT\b(?!\s+(?:of|into|in)\b)/gi,
    build: (m, ctx) => buildRollingWindow(m, ctx),
  },
  {
    pattern: /\bCOUNT\s+UNIT\s+ago\b/gi,
    build: (m, ctx) => buildAgo(m, ctx),
  },
  {
    pattern: /\b(last|previous|this)\s+(week|month|year)\b(?!\s+of\b)/gi,
    build: (m, ctx) => buildCalendarUnit((m[1] ?? '').toLowerCase(), (m[2] ?? '').toLowerCase(), ctx),
  },
  {
    pattern: /\b(?:(over|during|on|at)\s+)?(the\s+)?(?:(last|past|previous|this)\s+)?weekend\b/gi,
    // "the weekend job" is a topic; "over the weekend" and "last weekend" are times.
    build: (m, ctx) => (m[1] === undefined && m[3] === undefined ? null : buildWeekend(m[3], ctx)),
  },
  { pattern: /\b(?:the\s+)?day\s+before\s+yesterday\b/gi, build: (_m, ctx) => ({ day: shiftDate(ctx.today, -2) }) },
  { pattern: /\byesterday\b/gi, build: (_m, ctx) => ({ day: shiftDate(ctx.today, -1) }) },
  // "the Today view" is a product name, not a date.
  { pattern: /(?<!\bthe\s)\b(?:(?:earlier|later)\s+)?today\b/gi, build: (_m, ctx) => ({ day: ctx.today }) },
  { pattern: /\btonight\b/gi, build: (_m, ctx) => ({ day: ctx.today, part: 'night' }) },
  { pattern: /\blast\s+night\b/gi, build: (_m, ctx) => ({ day: shiftDate(ctx.today, -1), part: 'night' }) },
  {
    pattern: /\bthis\s+(morning|afternoon|evening)\b/gi,
    build: (m, ctx) => ({ day: ctx.today, part: (m[1] ?? '').toLowerCase() as DayPart }),
  },
  {
    pattern: /\b(?:(last|past|previous|this)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/gi,
    build: (m, ctx) => buildWeekday(m[1]?.toLowerCase(), (m[2] ?? '').toLowerCase(), ctx),
  },
  {
    pattern: /\b(?:(in\s+the|during\s+the|at)\s+)?(morning|afternoon|evening|night)\b/gi,
    build: (m) => {
      const part = (m[2] ?? '').toLowerCase() as DayPart;
      // "at night" is idiomatic; "at morning" is not English, so "at" only introduces night.
      if (m[1]?.toLowerCase() === 'at' && part !== 'night') return null;
      return { part, partNeedsDay: m[1] === undefined };
    },
  },
  {
    pattern: /\b(?:at\s+)?(noon|midday|midnight)\b/gi,
    build: (m) => ({ clock: { hour: /midnight/i.test(m[1] ?? '') ? 0 : 12, minute: 0, second: 0, minutePrecise: false } }),
  },
];

// Counts and units are spelled once and substituted, to keep the patterns above readable.
const RECOGNIZERS: Recognizer[] = PATTERNS.map(({ pattern, build }) => ({
  pattern: new RegExp(pattern.source.replace('COUNT', COUNT_SOURCE).replace('UNIT', UNIT), pattern.flags),
  build,
}));

/**
 * Phrases about the future are blanked without a window: recall looks back, and "next Saturday" must not be read
 * as "Saturday" nor "in 5 minutes" as a clock time.
 */
const FUTURE = new RegExp(
  String.raw`\b(?:tomorrow|next\s+(?:week|month|year|weekend|time|${WEEKDAYS.join('|')})|in\s+${COUNT_SOURCE}\s+${UNIT}|${COUNT_SOURCE}\s+${UNIT}\s+from\s+now)\b`,
  'gi',
);

/** Recognise word-level phrases; each match is blanked in `masked` so later recognisers cannot reuse it. */
export function findCasualAtoms(masked: string[], ctx: CasualContext): Atom[] {
  const atoms: Atom[] = [];
  for (const match of masked.join('').matchAll(FUTURE)) masked.fill(' ', match.index, match.index + match[0].length);
  for (const { pattern, build } of RECOGNIZERS) {
    for (const match of masked.join('').matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (isGluedToCode(masked, start, end)) continue;
      const built = build(match, ctx);
      if (built === null) continue;
      atoms.push({ ...built, start, end });
      masked.fill(' ', start, end);
    }
  }
  return atoms;
}

/** "monday.com", "--since=yesterday", "v-march": a time word inside an identifier, URL or flag is not a time. */
export function isGluedToCode(masked: string[], start: number, end: number): boolean {
  const before = masked[start - 1] ?? ' ';
  const after = masked.slice(end, end + 2).join('');
  return /[./:=@#\\-]/.test(before) || /^(?:[./:@=-]\w|=)/.test(after);
}

/** "last Saturday" is strictly before today; a bare "Saturday" may be today; "this Saturday" is this week's. */
function buildWeekday(modifier: string | undefined, name: string, ctx: CasualContext): Omit<Atom, 'start' | 'end'> {
  const target = WEEKDAYS.indexOf(name) + 1;
  const todayWeekday = readWeekday(ctx.today);
  if (modifier === 'this') return { day: shiftDate(ctx.today, target - todayWeekday) };
  let back = (todayWeekday - target + 7) % 7;
  if (back === 0 && modifier !== undefined) back = 7;
  return { day: shiftDate(ctx.today, -back), weakDay: modifier === undefined };
}

function buildAgo(m: RegExpExecArray, ctx: CasualContext): Omit<Atom, 'start' | 'end'> | null {
  const count = readCountWord(m[1] ?? '');
  const unit = (m[2] ?? '').toLowerCase();
  if (count === null || count <= 0) return null;
  const whole = Math.round(count);
  if (unit.startsWith('d')) return { day: shiftDate(ctx.today, -whole) };
  if (unit.startsWith('w')) return spanAtom(computeWeekSpan(shiftDate(ctx.today, -7 * whole), ctx.zone), m[0]);
  if (unit.startsWith('mo')) {
    const month = shiftMonth(ctx.today, -whole);
    return spanAtom(computeMonthSpan(month.year, month.month, ctx.zone), m[0]);
  }
  if (unit.startsWith('y')) return spanAtom(computeYearSpan(ctx.today.year - whole, ctx.zone), m[0]);
  // An hour ago is as vague as "at 3pm" (±30 min); minutes are said more precisely (±15 min).
  const isHours = unit.startsWith('h');
  const centre = ctx.nowMs - count * (isHours ? HOUR : MINUTE);
  const tolerance = isHours ? 30 * MINUTE : 15 * MINUTE;
  return spanAtom({ startMs: centre - tolerance, endMs: centre + tolerance }, m[0]);
}

/** "in the past 3 days": from the start of the earliest day named, so a whole day is never cut in half. */
function buildRollingWindow(m: RegExpExecArray, ctx: CasualContext): Omit<Atom, 'start' | 'end'> | null {
  const count = m[1] === undefined ? 1 : readCountWord(m[1]);
  const unit = (m[2] ?? '').toLowerCase();
  if (count === null || count <= 0) return null;
  const whole = Math.max(1, Math.round(count));
  let startMs: number;
  if (unit.startsWith('h')) startMs = ctx.nowMs - count * HOUR;
  else if (unit.startsWith('mi')) startMs = ctx.nowMs - count * MINUTE;
  else {
    const days = unit.startsWith('d') ? whole : unit.startsWith('w') ? 7 * whole : unit.startsWith('mo') ? 30 * whole : 365 * whole;
    startMs = computeInstant(shiftDate(ctx.today, -days), null, ctx.zone);
  }
  return spanAtom({ startMs, endMs: ctx.nowMs }, m[0]);
}

function buildCalendarUnit(which: string, unit: string, ctx: CasualContext): Omit<Atom, 'start' | 'end'> {
  const back = which === 'this' ? 0 : 1;
  const label = `${which} ${unit}`;
  if (unit === 'week') return spanAtom(computeWeekSpan(shiftDate(ctx.today, -7 * back), ctx.zone), label);
  if (unit === 'year') return spanAtom(computeYearSpan(ctx.today.year - back, ctx.zone), label);
  const month = shiftMonth(ctx.today, -back);
  return spanAtom(computeMonthSpan(month.year, month.month, ctx.zone), label);
}

/**
 * Saturday 00:00 to Monday 00:00. "The weekend" is the latest one that has started; "last weekend" said during a
 * weekend means the one before it.
 */
function buildWeekend(modifier: string | undefined, ctx: CasualContext): Omit<Atom, 'start' | 'end'> {
  const weekday = readWeekday(ctx.today);
  const inWeekend = weekday >= 6;
  let saturday = shiftDate(ctx.today, inWeekend ? 6 - weekday : -(weekday + 1));
  const wantsPrevious = modifier !== undefined && modifier.toLowerCase() !== 'this';
  if (inWeekend && wantsPrevious) saturday = shiftDate(saturday, -7);
  return spanAtom(computeDaySpan(saturday, shiftDate(saturday, 1), ctx.zone), 'weekend');
}

function spanAtom(span: { startMs: number; endMs: number }, label: string): { windows: TimeWindow[] } {
  return { windows: [{ ...span, label }] };
}

function shiftMonth(date: LocalDate, months: number): { year: number; month: number } {
  const index = date.year * 12 + (date.month - 1) + months;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

function toLuxonOffset(written: string): string {
  if (written.toUpperCase() === 'Z') return 'UTC';
  const match = /^([+-])(\d{2}):?(\d{2})$/.exec(written);
  return match ? `UTC${match[1]}${Number(match[2])}${match[3] === '00' ? '' : `:${match[3]}`}` : 'UTC';
}
