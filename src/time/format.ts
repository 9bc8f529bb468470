import { DateTime, IANAZone } from 'luxon';

/**
 * Time formatting for projections. Every function takes an instant (epoch ms) so offsets and abbreviations
 * are computed per instant — a session crossing a DST change shows AEDT before and AEST after.
 * A fixed locale keeps output independent of the machine's default locale.
 */

const LOCALE = 'en-US';

/** Locales tried in order when en-US only knows a zone as `GMT+11`; each region's English locale names its own zones. */
const ABBREVIATION_LOCALES = ['en-US', 'en-AU', 'en-GB', 'en-IN', 'en-NZ', 'en-CA'];

/** Zones ICU names only as GMT±N in every English locale; all are DST-free, so one abbreviation each is correct. */
const FIXED_ABBREVIATIONS: Readonly<Record<string, string>> = {
  'Asia/Tokyo': 'JST',
  'Asia/Seoul': 'KST',
  'Asia/Shanghai': 'CST',
  'Asia/Hong_Kong': 'HKT',
  'Asia/Taipei': 'CST',
  'Asia/Singapore': 'SGT',
  'Asia/Manila': 'PHT',
  'Asia/Jakarta': 'WIB',
  'Asia/Bangkok': 'ICT',
  'Asia/Ho_Chi_Minh': 'ICT',
  'Asia/Dubai': 'GST',
  'Asia/Karachi': 'PKT',
};

/** The zone if luxon knows it, else UTC, so a bad config value degrades instead of printing "Invalid DateTime". */
export function resolveZone(zone: string): string {
  let valid = zoneValidity.get(zone);
  if (valid === undefined) {
    // isValidZone builds a fresh Intl formatter on every call; validity never changes within a process.
    valid = IANAZone.isValidZone(zone);
    zoneValidity.set(zone, valid);
  }
  return valid ? zone : 'UTC';
}

const zoneValidity = new Map<string, boolean>();

function toZoned(ms: number, zone: string): DateTime {
  return DateTime.fromMillis(ms, { zone: resolveZone(zone), locale: LOCALE });
}

function toUtc(ms: number): DateTime {
  return DateTime.fromMillis(ms, { zone: 'UTC', locale: LOCALE });
}

/** `18:39:12Z` */
export function formatUtcTime(ms: number): string {
  return toUtc(ms).toFormat("HH:mm:ss'Z'");
}

/** `2026-02-21T18:39:12Z` */
export function formatUtcIso(ms: number): string {
  return toUtc(ms).toFormat("yyyy-MM-dd'T'HH:mm:ss'Z'");
}

/**
 * UTC offset of a zone at an instant, in minutes. Offsets change only at transitions, and every zone's
 * transitions fall on a quarter hour, so one Intl lookup per zone and quarter hour serves every timestamp in
 * it — a timeline of thousands of rows costs a handful of lookups instead of one each.
 */
function offsetMinutes(ms: number, zone: string): number {
  const resolved = resolveZone(zone);
  const key = `${resolved}|${Math.floor(ms / QUARTER_HOUR_MS)}`;
  let offset = offsetCache.get(key);
  if (offset === undefined) {
    offset = toZoned(ms, resolved).offset;
    if (offsetCache.size > 50_000) offsetCache.clear();
    offsetCache.set(key, offset);
  }
  return offset;
}

const QUARTER_HOUR_MS = 15 * 60 * 1000;
const offsetCache = new Map<string, number>();

/** Wall-clock fields at an instant in a zone, without building a DateTime. */
function localClock(ms: number, zone: string): { date: Date; offset: number } {
  const offset = offsetMinutes(ms, zone);
  return { date: new Date(ms + offset * 60_000), offset };
}

const pad = (value: number): string => String(value).padStart(2, '0');

function formatOffsetMinutes(offset: number): string {
  const sign = offset < 0 ? '-' : '+';
  const absolute = Math.abs(offset);
  return `${sign}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`;
}

/** `2026-02-22T05:39:12+11:00` — always a numeric offset, also for UTC, so every value parses the same way. */
export function formatLocalIso(ms: number, zone: string): string {
  const { date, offset } = localClock(ms, zone);
  return `${date.toISOString().slice(0, 19)}${formatOffsetMinutes(offset)}`;
}

/** `05:39:12 AEDT` */
export function formatLocalTime(ms: number, zone: string): string {
  const { date } = localClock(ms, zone);
  return `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} ${abbreviateZone(ms, zone)}`;
}

/** `+11:00`, `-07:00`, `+05:30`, `+00:00` */
export function formatOffset(ms: number, zone: string): string {
  return formatOffsetMinutes(offsetMinutes(ms, zone));
}

/** `AEDT (+11:00)` — the zone label used in frontmatter. */
export function formatZoneLabel(ms: number, zone: string): string {
  return `${abbreviateZone(ms, zone)} (${formatOffset(ms, zone)})`;
}

/**
 * Short zone name at an instant: AEDT/AEST, PST/PDT, UTC, BST... ICU only abbreviates a zone in the locale of
 * its region, so try a few English locales, then a small table, then a readable `UTC+11` / `UTC+5:30`.
 */
export function abbreviateZone(ms: number, zone: string): string {
  const resolved = resolveZone(zone);
  // Looking a name up costs ~0.5 ms (fresh Intl formatters per locale); a zone's name is fixed for a given offset
  // within a year, so memoizing on that key keeps big sessions fast without changing any output.
  const { date, offset } = localClock(ms, resolved);
  const key = `${resolved}|${offset}|${date.getUTCFullYear()}`;
  const cached = abbreviationCache.get(key);
  if (cached !== undefined) return cached;
  const name = lookUpAbbreviation(toZoned(ms, resolved), resolved);
  abbreviationCache.set(key, name);
  return name;
}

const abbreviationCache = new Map<string, string>();

function lookUpAbbreviation(base: DateTime, resolved: string): string {
  if (base.offset === 0 && /^(UTC|Etc\/(UTC|GMT|Zulu|Universal)|GMT|Zulu|Universal)$/.test(resolved)) return 'UTC';
  for (const locale of ABBREVIATION_LOCALES) {
    const name = base.setLocale(locale).offsetNameShort;
    if (name && !/^(GMT|UTC)[+-−]/.test(name)) return name;
  }
  return FIXED_ABBREVIATIONS[resolved] ?? `UTC${base.toFormat('Z')}`;
}

/** Local calendar fields the temporal markers and header need. */
export function toLocalParts(ms: number, zone: string): { date: string; time: string; weekday: string; hour: number; abbr: string } {
  const local = toZoned(ms, zone);
  return {
    date: local.toFormat('yyyy-MM-dd'),
    time: local.toFormat('HH:mm'),
    weekday: local.toFormat('cccc'),
    hour: local.hour,
    abbr: abbreviateZone(ms, zone),
  };
}

/** Weekday name of the local day before the instant's day (for "Saturday night" at 01:00 Sunday). */
export function formatPreviousWeekday(ms: number, zone: string): string {
  return toZoned(ms, zone).minus({ days: 1 }).toFormat('cccc');
}

/** UTC calendar fields for the `> Session:` header. */
export function toUtcParts(ms: number): { date: string; time: string } {
  const utc = toUtc(ms);
  return { date: utc.toFormat('yyyy-MM-dd'), time: utc.toFormat('HH:mm') };
}
