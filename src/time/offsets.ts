import { DateTime } from 'luxon';

/** A stretch of time over which a zone keeps one UTC offset. */
export interface OffsetPeriod {
  startMs: number;
  endMs: number;
  offsetMs: number;
}

const HOUR = 3_600_000;
/** Zones change offset at most a few times a year; sampling weekly finds every change, bisection finds its exact instant. */
const STEP_MS = 7 * 24 * HOUR;
const MINUTE = 60_000;

function offsetAt(zone: string, ms: number): number {
  return DateTime.fromMillis(ms, { zone }).offset * MINUTE;
}

/**
 * The periods of constant offset that cover [startMs, endMs) in `zone` (an IANA name or a fixed offset such as
 * `UTC+11`), in time order. A fixed-offset zone is one period; Sydney over a year is three.
 */
export function listOffsetPeriods(zone: string, startMs: number, endMs: number): OffsetPeriod[] {
  if (endMs <= startMs) return [];
  const periods: OffsetPeriod[] = [];
  let periodStart = startMs;
  let offset = offsetAt(zone, startMs);
  for (let probe = startMs + STEP_MS; ; probe += STEP_MS) {
    const at = Math.min(probe, endMs);
    const next = offsetAt(zone, at);
    if (next !== offset) {
      // Bisect to the millisecond the offset changed, somewhere in (at - STEP_MS, at]: ~30 steps.
      let low = Math.max(periodStart, at - STEP_MS);
      let high = at;
      while (high - low > 1) {
        const middle = low + Math.floor((high - low) / 2);
        if (offsetAt(zone, middle) === offset) low = middle;
        else high = middle;
      }
      periods.push({ startMs: periodStart, endMs: high, offsetMs: offset });
      periodStart = high;
      offset = offsetAt(zone, high);
      // A second change within the same week (never seen in practice) is found by the next probe.
      probe = high;
      continue;
    }
    if (at >= endMs) break;
  }
  periods.push({ startMs: periodStart, endMs, offsetMs: offset });
  return periods;
}
