import { DateTime } from 'luxon';
import { resolveZone } from './format.js';

/**
 * Residential days (seed 001 `distill.residential_timezone`): the calendar day a person living in the zone
 * would say something happened on. Daily memory files, "yesterday's" synthesis and the once-a-day midnight
 * rule all come from here, DST included (a 23- or 25-hour day is still one day).
 */

/** `YYYY-MM-DD` of the instant in the zone. */
export function formatResidentialDay(ms: number, zone: string): string {
  return DateTime.fromMillis(ms, { zone: resolveZone(zone) }).toISODate()!;
}

/** The day before a `YYYY-MM-DD` day (calendar arithmetic: no zone, no DST). */
export function previousDay(day: string): string {
  return DateTime.fromISO(day, { zone: 'UTC' }).minus({ days: 1 }).toISODate()!;
}

/** The instant the residential day starts (local midnight; the first instant of the day where DST skips midnight). */
export function startOfResidentialDay(day: string, zone: string): number {
  return DateTime.fromISO(day, { zone: resolveZone(zone) }).startOf('day').toMillis();
}

/** Whether `day` is a real `YYYY-MM-DD` calendar date. */
export function isDay(day: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(day) && DateTime.fromISO(day, { zone: 'UTC' }).isValid;
}
