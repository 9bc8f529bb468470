/**
 * Timestamps in transcripts come as ISO strings (Claude Code, Codex, OpenClaw entries), epoch milliseconds
 * (OpenClaw `message.timestamp`, Puffin) and occasionally epoch seconds or microseconds. Everything becomes
 * epoch milliseconds (UTC), or null when the value is not a plausible time.
 */

// Boundaries between units, chosen so each unit covers 1973..5138 without overlapping the next:
// 1e11 seconds is the year 5138, while 1e11 milliseconds is only March 1973.
const MAX_SECONDS = 1e11;
const MAX_MILLIS = 1e14;
const MAX_MICROS = 1e17;
const MAX_NANOS = 1e20;

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;
const NUMERIC = /^[+-]?\d+(?:\.\d+)?$/;
// RFC 2822 / HTTP dates carry their own zone, so Date.parse reads them the same in every local time zone.
const RFC_2822 = /^[A-Za-z]{3}, \d{1,2} [A-Za-z]{3} \d{4} \d{2}:\d{2}(?::\d{2})? (?:GMT|UTC|[+-]\d{4})$/;

export function parseTimestamp(value: unknown): number | null {
  if (typeof value === 'number') return parseEpoch(value);
  if (value instanceof Date) return Number.isFinite(value.getTime()) ? value.getTime() : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (text === '') return null;
  if (NUMERIC.test(text)) return parseEpoch(Number(text));
  const iso = parseIso(text);
  if (iso !== null) return iso;
  if (RFC_2822.test(text)) {
    const ms = Date.parse(text);
    return Number.isFinite(ms) ? ms : null;
  }
  return null;
}

/** Epoch number in seconds, ms, µs or ns, told apart by magnitude. Zero and negatives are placeholders. */
function parseEpoch(value: number): number | null {
  if (!Number.isFinite(value) || value <= 0) return null;
  if (value < MAX_SECONDS) return Math.round(value * 1000);
  if (value < MAX_MILLIS) return Math.round(value);
  if (value < MAX_MICROS) return Math.round(value / 1000);
  if (value < MAX_NANOS) return Math.round(value / 1e6);
  return null;
}

/** ISO 8601 date or date-time; a missing zone means UTC (Date.parse would use the local zone instead). */
function parseIso(text: string): number | null {
  const match = ISO.exec(text);
  if (!match) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return null;
  const millis = fraction === '' ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);
  const utc = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59), millis);
  // Date.UTC rolls 2025-02-31 over into March; a date that does not round-trip does not exist.
  const check = new Date(utc);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return null;
  }
  return utc - parseZoneOffsetMs(zone);
}

function parseZoneOffsetMs(zone: string): number {
  if (zone === 'Z' || zone === 'z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  return sign * (hours * 60 + minutes) * 60_000;
}
