import type { DailyFilter } from '../../store/types.js';
import { listOffsetPeriods } from '../../time/offsets.js';
import type { DailyWindow } from '../../time/types.js';

const DAY_MS = 86_400_000;

/**
 * A daily window as store filters over [startMs, endMs): one per stretch of constant UTC offset, so
 * "05:39 Australia/Sydney" follows DST while "05:39 AEDT" stays +11 all year.
 */
export function toDailyFilters(window: DailyWindow, range: { startMs: number; endMs: number }): DailyFilter[] {
  const span = window.toMs - window.fromMs;
  if (span <= 0) return [];
  const whole = span >= DAY_MS;
  const fromMs = whole ? 0 : modDay(window.fromMs);
  const toMs = whole ? DAY_MS : modDay(window.toMs) === 0 && span > 0 ? DAY_MS : modDay(window.toMs);
  return listOffsetPeriods(window.zone, range.startMs, range.endMs).map((period) => ({ ...period, fromMs, toMs }));
}

function modDay(ms: number): number {
  return ((ms % DAY_MS) + DAY_MS) % DAY_MS;
}
