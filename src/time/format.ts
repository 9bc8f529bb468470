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

/**
 * The zone if the platform knows it, else UTC, so a bad config value degrades instead of printing a broken time.
 * Plain Intl (no date library): a hook formats a handful of times and should not load one.
 */
export function resolveZone(zone: string): string {
  let valid = zoneValidity.get(zone);
  if (valid === undefined) {
    valid = isKnownZone(zone);
    zoneValidity.set(zone, valid);
  }
  return valid ? zone : 'UTC';
}

const zoneValidity = new Map<string, boolean>();

function isKnownZone(zone: string): boolean {
  if (zone === '') return false;
  // UTC needs no zone data: Intl's first use costs a short-lived process ~30 ms.
  if (zone === 'UTC' || zone === 'Etc/UTC') return true;
  try {
    new Intl.DateTimeFormat(LOCALE, { timeZone: zone }).format();
    return true;
  } catch {
    return false;
  }
}

/** One formatter per zone and locale: building one is the costly part of a lookup. */
function formatterFor(zone: string, locale: string, timeZoneName: 'longOffset' | 'short'): Intl.DateTimeFormat {
  const key = `${zone}|${locale}|${timeZoneName}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName, year: 'numeric' });
    formatters.set(key, formatter);
  }
  return formatter;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's name at an instant as Intl prints it: `GMT+11:00` (longOffset) or `AEDT` / `GMT+11` (short). */
function zoneNameAt(ms: number, zone: string, locale: string, timeZoneName: 'longOffset' | 'short'): string {
  return formatterFor(zone, locale, timeZoneName).formatToParts(ms).find((part) => part.type === 'timeZoneName')?.value ?? '';
}

/** `GMT+11:00`, `GMT-03:30`, `GMT` → minutes east of UTC. */
function parseGmtOffset(name: string): number {
  const match = /^(?:GMT|UTC)(?:([+\-\u2212])(\d{1,2})(?::?(\d{2}))?)?$/.exec(name);
  if (!match) return 0;
  if (match[1] === undefined) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  return match[1] === '+' ? minutes : -minutes;
}

/** `18:39:12Z` */
export function formatUtcTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)}Z`;
}

/** `2026-02-21T18:39:12Z` */
export function formatUtcIso(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
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
    offset = resolved === 'UTC' ? 0 : parseGmtOffset(zoneNameAt(ms, resolved, LOCALE, 'longOffset'));
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
  const name = lookUpAbbreviation(ms, offset, resolved);
  abbreviationCache.set(key, name);
  return name;
}

const abbreviationCache = new Map<string, string>();

function lookUpAbbreviation(ms: number, offset: number, resolved: string): string {
  if (offset === 0 && /^(UTC|Etc\/(UTC|GMT|Zulu|Universal)|GMT|Zulu|Universal)$/.test(resolved)) return 'UTC';
  for (const locale of ABBREVIATION_LOCALES) {
    const name = zoneNameAt(ms, resolved, locale, 'short');
    if (name && !/^(GMT|UTC)[+-−]/.test(name)) return name;
  }
  return FIXED_ABBREVIATIONS[resolved] ?? `UTC${formatShortOffset(offset)}`;
}

/** `+11`, `+5:30`, `-3`: the short offset a zone without a name is shown with. */
function formatShortOffset(offset: number): string {
  const sign = offset < 0 ? '-' : '+';
  const absolute = Math.abs(offset);
  const minutes = absolute % 60;
  return `${sign}${Math.floor(absolute / 60)}${minutes === 0 ? '' : `:${pad(minutes)}`}`;
}

/** Local calendar fields the temporal markers and header need. */
export function toLocalParts(ms: number, zone: string): { date: string; time: string; weekday: string; hour: number; abbr: string } {
  const { date } = localClock(ms, zone);
  const iso = date.toISOString();
  return {
    date: iso.slice(0, 10),
    time: iso.slice(11, 16),
    weekday: WEEKDAYS[date.getUTCDay()]!,
    hour: date.getUTCHours(),
    abbr: abbreviateZone(ms, zone),
  };
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Weekday name of the local day before the instant's day (for "Saturday night" at 01:00 Sunday). */
export function formatPreviousWeekday(ms: number, zone: string): string {
  return WEEKDAYS[(localClock(ms, zone).date.getUTCDay() + 6) % 7]!;
}

/** UTC calendar fields for the `> Session:` header. */
export function toUtcParts(ms: number): { date: string; time: string } {
  const iso = new Date(ms).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 16) };
}
