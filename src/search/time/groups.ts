import {
  compareDates,
  computeDaySpan,
  computeInstant,
  computeMonthSpan,
  computePartSpan,
  formatDate,
  listRecentDates,
  readLocalDate,
  shiftDate,
} from '../../time/calendar.js';
import { readLookback } from './lookback.js';
import type { Atom, Clock, DailyWindow, LocalDate, ParseContext, TimeWindow } from '../../time/types.js';

const MINUTE = 60_000;
/** "05:39" is said to the minute, "3pm" to the hour; the windows are as loose as the way it was said. */
const MINUTE_TOLERANCE_MS = 15 * MINUTE;
const HOUR_TOLERANCE_MS = 30 * MINUTE;

export type Prefix = 'since' | 'between' | 'from' | 'after' | 'before' | 'until' | null;

export interface Group {
  start: number;
  end: number;
  atom: Atom;
  prefix: Prefix;
  /** Where a prefix written before the expression ("since Monday") starts; it is part of what was said. */
  prefixStart: number | null;
}

/** Fragments this close together belong to one expression ("yesterday at 3pm", "05:39 AEDT on 21 Feb"). */
const PLAIN_GAP = /^[\s,]*(?:(?:at|on|in|of|around)\b[\s,]*)?$/i;
const RANGE_GAP = /^\s*(?:and|to|until|till|through|thru|-|–|—)\s*$/i;
const PREFIX = /(?<![\w-])(since|between|from|after|before|until|till|by)\s+(?:(?:at|on|around)\s+)?$/i;
/** "yesterday between 2pm and 4pm", "yesterday after 3pm": the word ties the clock to the day before it. */
const CLOCK_PREFIX_GAP = /^\s*(between|from|after|before)\s+(?:(?:at|around)\s+)?$/i;

/** Merge neighbouring atoms into expressions; a neighbour that would overwrite a field starts a new one. */
export function groupAtoms(atoms: Atom[], query: string): Group[] {
  const sorted = [...atoms].sort((a, b) => a.start - b.start || b.end - a.end);
  const groups: Group[] = [];
  for (const atom of sorted) {
    const current = groups.at(-1);
    const gap = current ? query.slice(current.end, Math.max(current.end, atom.start)) : '';
    const clockPrefix = CLOCK_PREFIX_GAP.exec(gap)?.[1]?.toLowerCase() as Prefix | undefined;
    if (current && clockPrefix && current.prefix === null && isDayOnly(current.atom) && atom.clock && !atom.day) {
      current.prefix = clockPrefix;
      current.atom = { ...current.atom, clock: atom.clock, clockEnd: atom.clockEnd, zone: atom.zone, end: atom.end };
      current.end = atom.end;
      continue;
    }
    const merged = current ? mergeAtoms(current, atom, gap) : null;
    if (current && merged) {
      current.atom = merged;
      current.end = Math.max(current.end, atom.end);
    } else {
      groups.push({ start: atom.start, end: atom.end, atom: { ...atom }, ...readPrefix(query, atom.start) });
    }
  }
  return groups;
}

function isDayOnly(atom: Atom): boolean {
  return Boolean(atom.day) && !atom.dayEnd && !atom.clock && !atom.part && !atom.windows;
}

function readPrefix(query: string, start: number): { prefix: Prefix; prefixStart: number | null } {
  const before = readLookback(query, start);
  const match = PREFIX.exec(before.text);
  const word = match?.[1]?.toLowerCase();
  if (match === null || word === undefined) return { prefix: null, prefixStart: null };
  return { prefix: word === 'till' || word === 'by' ? 'until' : (word as Prefix), prefixStart: before.offset + match.index };
}

function mergeAtoms(group: Group, next: Atom, gap: string): Atom | null {
  const acc = group.atom;
  if (next.zoneOnly) {
    // A zone belongs to the clock right before it (or inside a chrono span: "05:39 AEDT on 21 Feb").
    return acc.clock && !acc.zone && /^\s*$/.test(gap) ? { ...acc, zone: next.zone } : null;
  }
  if (acc.windows || next.windows || acc.zoneOnly) return null;
  // "2pm and 4pm" is only a range after "between"; otherwise "and" joins two separate expressions.
  if (RANGE_GAP.test(gap)) return !/and/i.test(gap) || group.prefix === 'between' ? mergeRange(acc, next) : null;
  return PLAIN_GAP.test(gap) ? mergeFields(acc, next) : null;
}

function mergeRange(acc: Atom, next: Atom): Atom | null {
  if (acc.clock && !acc.clockEnd && next.clock && !next.day && !next.clockEnd) {
    return { ...acc, clockEnd: next.clock, zone: acc.zone ?? next.zone, end: next.end };
  }
  if (acc.day && !acc.clock && !acc.dayEnd && next.day && !next.clock) {
    // "Monday to Wednesday" said on a Monday: both weekdays are the latest past ones, so the start moves back.
    const day = acc.weakDay && compareDates(acc.day, next.day) > 0 ? shiftDate(acc.day, -7) : acc.day;
    return { ...acc, day, dayEnd: next.day, end: next.end };
  }
  return null;
}

/** Combine a day, a clock, a part of the day and a month; any field set twice means two expressions. */
function mergeFields(acc: Atom, next: Atom): Atom | null {
  // A bare "morning" only joins a day; next to a clock it would swallow the clock's expression.
  if ((acc.partNeedsDay && !acc.day && !next.day) || (next.partNeedsDay && !acc.day)) return null;
  const merged: Atom = { ...acc, end: next.end };
  if (next.day) {
    if (acc.month) return null;
    // Two dates are two expressions, but an explicit date beats a bare weekday next to it ("Saturday, 21 Feb").
    if (acc.day && Boolean(acc.weakDay) === Boolean(next.weakDay)) return null;
    if (!acc.day || acc.weakDay) Object.assign(merged, { day: next.day, weakDay: next.weakDay, dayEnd: next.dayEnd ?? acc.dayEnd });
  }
  if (next.clock) {
    if (acc.clock) return null;
    Object.assign(merged, { clock: next.clock, clockEnd: next.clockEnd, zone: next.zone ?? acc.zone });
  }
  if (next.part) {
    if (acc.part) return null;
    Object.assign(merged, { part: next.part, partNeedsDay: next.partNeedsDay });
  }
  if (next.month) {
    if (acc.month || acc.day || acc.clock) return null;
    merged.month = next.month;
  }
  return merged;
}

const DAY_MS = 24 * 60 * MINUTE;

export interface Evaluated {
  windows: TimeWindow[];
  daily: DailyWindow[];
}

/**
 * Turn one expression into absolute windows, or — for a time of day with no date ("05:39 AEDT", "after 3pm") —
 * into a daily window: that time on any day, most recent first. An expression left with neither (all future)
 * is not understood.
 */
export function evaluateGroup(group: Group, ctx: ParseContext, label: string): Evaluated {
  const { atom, prefix } = group;
  const hasTime = atom.day || atom.clock || atom.part || atom.month || atom.windows;
  if (!hasTime || prefix === 'until' || (atom.partNeedsDay && !atom.day)) return { windows: [], daily: [] };
  const daily = readDailyWindow(atom, prefix, ctx, label);
  if (daily) return { windows: [], daily: [daily] };
  return { windows: evaluateWindows(atom, prefix, ctx, label), daily: [] };
}

/** A clock time or clock range with no date, alone or after "after"/"before"/"from"/"between". */
function readDailyWindow(atom: Atom, prefix: Prefix, ctx: ParseContext, label: string): DailyWindow | null {
  if (!atom.clock || atom.day || atom.month || atom.windows || atom.part || prefix === 'since') return null;
  const zone = atom.zone ?? ctx.zone;
  const at = toDayMs(atom.clock);
  if (atom.clockEnd) {
    let end = toDayMs(atom.clockEnd);
    if (end <= at) end += DAY_MS; // "10pm to 2am"
    return { zone, fromMs: at, toMs: end, label };
  }
  if (prefix === 'after') return { zone, fromMs: at, toMs: DAY_MS, label };
  if (prefix === 'before') return { zone, fromMs: 0, toMs: at, label };
  const tolerance = atom.clock.minutePrecise ? MINUTE_TOLERANCE_MS : HOUR_TOLERANCE_MS;
  return { zone, fromMs: at - tolerance, toMs: at + tolerance, label };
}

function toDayMs(clock: Clock): number {
  return ((clock.hour * 60 + clock.minute) * 60 + clock.second) * 1000;
}

function evaluateWindows(atom: Atom, prefix: Prefix, ctx: ParseContext, label: string): TimeWindow[] {
  let windows = listBaseWindows(atom, ctx, label);
  if (prefix === 'since') {
    const started = windows
      .map((w) => ({ ...w, startMs: sinceStart(atom, w), endMs: ctx.nowMs }))
      .filter((w) => w.startMs < ctx.nowMs);
    windows = started.slice(0, 1); // the latest such moment that has passed
  }
  const isPointInTime = Boolean(atom.clock && !atom.clockEnd);
  if (prefix === 'after') {
    windows = isPointInTime ? listClockSides(atom, ctx, label, 'after') : windows.map((w) => ({ ...w, startMs: w.endMs, endMs: ctx.nowMs }));
  }
  // "before Monday" reaches back without limit: no window is better than a guessed one.
  if (prefix === 'before') windows = isPointInTime ? listClockSides(atom, ctx, label, 'before') : [];
  return windows.filter((w) => w.startMs < ctx.nowMs && w.endMs > w.startMs);
}

function listBaseWindows(atom: Atom, ctx: ParseContext, label: string): TimeWindow[] {
  if (atom.windows) return atom.windows.map((w) => ({ ...w, label }));
  if (atom.month) return [{ ...computeMonthSpan(atom.month.year, atom.month.month, ctx.zone), label }];
  if (atom.day && atom.dayEnd && !atom.clock) return [{ ...computeDaySpan(atom.day, atom.dayEnd, ctx.zone), label }];
  const clockZone = atom.zone ?? ctx.zone;
  return listDates(atom, ctx).map((date) => {
    const dated = atom.day ? label : `${label} (${formatDate(date)})`;
    if (atom.clock && atom.clockEnd) {
      const startMs = computeInstant(date, atom.clock, clockZone);
      let endMs = computeInstant(date, atom.clockEnd, clockZone);
      if (endMs <= startMs) endMs = computeInstant(shiftDate(date, 1), atom.clockEnd, clockZone); // "10pm to 2am"
      return { startMs, endMs, label: dated };
    }
    if (atom.clock) {
      const at = computeInstant(date, atom.clock, clockZone);
      const tolerance = atom.clock.minutePrecise ? MINUTE_TOLERANCE_MS : HOUR_TOLERANCE_MS;
      return { startMs: at - tolerance, endMs: at + tolerance, label: dated };
    }
    if (atom.part) return { ...computePartSpan(date, atom.part, ctx.zone), label: dated };
    return { ...computeDaySpan(date, date, ctx.zone), label: dated };
  });
}

/** The stated date, or — for a time of day with no date — each of the recent days, counted in the clock's zone. */
function listDates(atom: Atom, ctx: ParseContext): LocalDate[] {
  if (atom.day) return [atom.day];
  return listRecentDates(readLocalDate(ctx.nowMs, atom.clock ? (atom.zone ?? ctx.zone) : ctx.zone));
}

/** "since 3pm" starts at 3pm itself, not at the tolerance edge. */
function sinceStart(atom: Atom, window: TimeWindow): number {
  if (atom.clock && !atom.clockEnd) return window.startMs + (atom.clock.minutePrecise ? MINUTE_TOLERANCE_MS : HOUR_TOLERANCE_MS);
  return window.startMs;
}

/** "after 3pm yesterday" → 15:00 to that midnight; "before 3pm" → midnight to 15:00, per day when undated. */
function listClockSides(atom: Atom, ctx: ParseContext, label: string, side: 'after' | 'before'): TimeWindow[] {
  const zone = atom.zone ?? ctx.zone;
  const clock = atom.clock as Clock;
  return listDates(atom, ctx).map((date) => {
    const at = computeInstant(date, clock, zone);
    const dated = atom.day ? label : `${label} (${formatDate(date)})`;
    return side === 'after'
      ? { startMs: at, endMs: computeInstant(shiftDate(date, 1), null, zone), label: dated }
      : { startMs: computeInstant(date, null, zone), endMs: at, label: dated };
  });
}
