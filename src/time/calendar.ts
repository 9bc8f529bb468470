import { DateTime } from 'luxon';
import type { Clock, DayPart, LocalDate } from './types.js';

/**
 * Calendar arithmetic happens on local dates and is turned into instants only at the end, through luxon in the
 * right zone, so a window spanning a DST change is 23 or 25 hours long as it should be.
 */

export const RECENT_DAYS = 30;

/** Local hours of each part of the day; night runs past midnight (same boundaries as the projection markers). */
const DAY_PARTS: Record<DayPart, { from: number; to: number }> = {
  morning: { from: 5, to: 12 },
  afternoon: { from: 12, to: 17 },
  evening: { from: 17, to: 21 },
  night: { from: 21, to: 29 },
};

export function readLocalDate(ms: number, zone: string): LocalDate {
  const local = DateTime.fromMillis(ms, { zone });
  return { year: local.year, month: local.month, day: local.day };
}

export function shiftDate(date: LocalDate, days: number): LocalDate {
  const shifted = DateTime.utc(date.year, date.month, date.day).plus({ days });
  return { year: shifted.year, month: shifted.month, day: shifted.day };
}

export function compareDates(a: LocalDate, b: LocalDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

/** ISO weekday: 1 = Monday … 7 = Sunday. */
export function readWeekday(date: LocalDate): number {
  return DateTime.utc(date.year, date.month, date.day).weekday;
}

export function isValidDate(date: LocalDate): boolean {
  return DateTime.utc(date.year, date.month, date.day).isValid;
}

/** The instant of a wall-clock time; luxon moves a time skipped by DST forward and picks the earlier of a repeated one. */
export function computeInstant(date: LocalDate, clock: Clock | null, zone: string, extraHours = 0): number {
  return DateTime.fromObject(
    { ...date, hour: clock?.hour ?? 0, minute: clock?.minute ?? 0, second: clock?.second ?? 0 },
    { zone },
  )
    .plus({ hours: extraHours })
    .toMillis();
}

/** Midnight-to-midnight span of local days `from`..`to` inclusive. */
export function computeDaySpan(from: LocalDate, to: LocalDate, zone: string): { startMs: number; endMs: number } {
  return { startMs: computeInstant(from, null, zone), endMs: computeInstant(shiftDate(to, 1), null, zone) };
}

export function computePartSpan(date: LocalDate, part: DayPart, zone: string): { startMs: number; endMs: number } {
  const { from, to } = DAY_PARTS[part];
  // Hours past 24 belong to the next local date; computing them there keeps a DST night the right length.
  const endDate = to >= 24 ? shiftDate(date, 1) : date;
  return {
    startMs: computeInstant(date, { hour: from, minute: 0, second: 0, minutePrecise: false }, zone),
    endMs: computeInstant(endDate, { hour: to % 24, minute: 0, second: 0, minutePrecise: false }, zone),
  };
}

/** Monday-to-Monday calendar week containing `date`. */
export function computeWeekSpan(date: LocalDate, zone: string): { startMs: number; endMs: number } {
  const monday = shiftDate(date, 1 - readWeekday(date));
  return computeDaySpan(monday, shiftDate(monday, 6), zone);
}

export function computeMonthSpan(year: number, month: number, zone: string): { startMs: number; endMs: number } {
  const start = DateTime.fromObject({ year, month, day: 1 }, { zone });
  return { startMs: start.toMillis(), endMs: start.plus({ months: 1 }).toMillis() };
}

export function computeYearSpan(year: number, zone: string): { startMs: number; endMs: number } {
  const start = DateTime.fromObject({ year, month: 1, day: 1 }, { zone });
  return { startMs: start.toMillis(), endMs: start.plus({ years: 1 }).toMillis() };
}

/** Today and the days before it, newest first: what a time with no date refers to. */
export function listRecentDates(today: LocalDate): LocalDate[] {
  return Array.from({ length: RECENT_DAYS }, (_, back) => shiftDate(today, -back));
}

export function formatDate(date: LocalDate): string {
  return `${date.year}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}
