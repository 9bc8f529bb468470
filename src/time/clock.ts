import { DateTime } from 'luxon';
import { MoonError } from '../errors.js';

/**
 * The clock every command runs on: `Date.now`, unless `MOON_FAKE_NOW` names an instant — an ISO date-time (with
 * an offset or `Z`; without one it is read as UTC) or epoch milliseconds. Then the clock starts at that instant
 * when it is created and advances in real time from there, so tests and demos get reproducible dates while
 * durations and timeouts still pass. Any other value is a configuration error naming the variable.
 */
export function createClock(env: NodeJS.ProcessEnv): () => number {
  const raw = env.MOON_FAKE_NOW;
  if (raw === undefined || raw.trim() === '') return Date.now;
  const startMs = parseFakeNow(raw.trim());
  const realStartMs = Date.now();
  return () => startMs + (Date.now() - realStartMs);
}

function parseFakeNow(value: string): number {
  if (/^\d+$/.test(value)) {
    const ms = Number(value);
    if (Number.isSafeInteger(ms) && ms > 0) return ms;
  } else {
    const parsed = DateTime.fromISO(value, { zone: 'utc' });
    if (parsed.isValid) return parsed.toMillis();
  }
  throw new MoonError('bad_config', `MOON_FAKE_NOW: expected an ISO date-time (e.g. 2026-03-01T09:00:00Z) or epoch milliseconds, got "${value}"`);
}
