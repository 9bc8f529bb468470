import { formatLocalIso } from './format.js';

/**
 * Residential days (seed 001 `distill.residential_timezone`): the calendar day a person living in the zone
 * would say something happened on. Daily memory files, "yesterday's" synthesis and the once-a-day midnight
 * rule all come from here, DST included (a 23- or 25-hour day is still one day). Plain Intl through format.ts:
 * every hook records its run under the residential day, and a date library would cost each ~40 ms to load.
 */

/** `YYYY-MM-DD` of the instant in the zone. */
export function formatResidentialDay(ms: number, zone: string): string {
  return formatLocalIso(ms, zone).slice(0, 10);
}

/** The day before a `YYYY-MM-DD` day (calendar arithmetic: no zone, no DST). */
export function previousDay(day: string): string {
  return new Date(utcMidnight(day) - DAY_MS).toISOString().slice(0, 10);
}

/**
 * The instant the residential day starts: local midnight, or the first instant of the day where DST skips
 * midnight. Found by bisection over the instants that can hold it (every zone is within ±14 h of UTC, and local
 * dates only move forward with time), to the millisecond.
 */
export function startOfResidentialDay(day: string, zone: string): number {
  const midnight = utcMidnight(day);
  let low = midnight - 15 * HOUR_MS;
  let high = midnight + 15 * HOUR_MS;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (formatResidentialDay(middle, zone) >= day) high = middle;
    else low = middle;
  }
  return high;
}

/** Whether `day` is a real `YYYY-MM-DD` calendar date. */
export function isDay(day: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
  const ms = utcMidnight(day);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === day;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

function utcMidnight(day: string): number {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, date);
  return at.getTime();
}
