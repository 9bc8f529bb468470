import { DateTime, IANAZone } from 'luxon';

/**
 * Abbreviations mean a fixed offset: someone who writes "AEDT" means UTC+11 even on a date when Sydney is on
 * AEST, so these never follow DST. IST is India (the common reading in developer chat), BST British Summer Time.
 */
const ABBREVIATION_OFFSETS: Record<string, number> = {
  UTC: 0, GMT: 0, Z: 0,
  AEDT: 660, AEST: 600, ACDT: 630, ACST: 570, AWST: 480,
  NZDT: 780, NZST: 720, JST: 540, KST: 540, IST: 330,
  CET: 60, CEST: 120, EET: 120, EEST: 180, BST: 60, WET: 0, WEST: 60,
  EST: -300, EDT: -240, CST: -360, CDT: -300, MST: -420, MDT: -360, PST: -480, PDT: -420,
  AKST: -540, AKDT: -480, HST: -600,
};

/** Abbreviations that are also English words only count when written in capitals ("5pm WEST", not "5pm west"). */
const CAPITALS_ONLY = new Set(['WET', 'WEST', 'Z']);

/** Resolve an IANA name or abbreviation to a luxon zone name and its offset at `atMs`. */
export function resolveZoneName(name: string, atMs: number): { zone: string; offsetMinutes: number } | null {
  const trimmed = name.trim();
  const fixed = ABBREVIATION_OFFSETS[trimmed.toUpperCase()];
  if (fixed !== undefined) return { zone: formatFixedZone(fixed), offsetMinutes: fixed };
  const offset = parseUtcOffset(trimmed);
  if (offset !== null) return { zone: formatFixedZone(offset), offsetMinutes: offset };
  if (!IANAZone.isValidZone(trimmed)) return null;
  const zone = canonicalizeZone(trimmed);
  return { zone, offsetMinutes: DateTime.fromMillis(atMs, { zone }).offset };
}

/** Offset in minutes of an IANA or luxon zone at an instant — what chrono needs as its reference timezone. */
export function readOffsetMinutes(zone: string, atMs: number): number {
  return DateTime.fromMillis(atMs, { zone }).offset;
}

export interface ZoneToken {
  start: number;
  end: number;
  zone: string;
}

const ABBREVIATION_PATTERN = Object.keys(ABBREVIATION_OFFSETS)
  .filter((abbr) => abbr !== 'Z')
  .sort((a, b) => b.length - a.length)
  .join('|');
// "(UTC+11)", "GMT-5", "+02:00", "Europe/London", "America/Argentina/Buenos_Aires", "18:39Z".
const ZONE_TOKEN = new RegExp(
  String.raw`(?<![\w/+-])\(?(?:((?:UTC|GMT)\s?[+-]\d{1,2}(?::?\d{2})?|[+-]\d{2}:?\d{2})|(${ABBREVIATION_PATTERN})|([A-Za-z]+(?:\/[A-Za-z0-9_+-]+)+))\)?(?![\w/])|(?<=\d\s?)(Z)(?!\w)`,
  'gi',
);

/**
 * Find every zone written in the query. They are masked from chrono (whose own table reads words like "get"
 * as a zone) and only count later when they sit right after a clock time.
 */
export function findZoneTokens(query: string, atMs: number): ZoneToken[] {
  const tokens: ZoneToken[] = [];
  for (const match of query.matchAll(ZONE_TOKEN)) {
    const written = match[1] ?? match[2] ?? match[3] ?? match[4] ?? '';
    if (CAPITALS_ONLY.has(written.toUpperCase()) && written !== written.toUpperCase()) continue;
    if (match[3] !== undefined && !IANAZone.isValidZone(written)) continue;
    const resolved = resolveZoneName(written.replace(/\s/g, ''), atMs);
    if (resolved === null) continue;
    tokens.push({ start: match.index, end: match.index + match[0].length, zone: resolved.zone });
  }
  return tokens;
}

function parseUtcOffset(text: string): number | null {
  const match = /^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(text);
  if (!match) return null;
  const hours = Number(match[2]);
  const minutes = Number(match[3] ?? 0);
  if (hours > 14 || minutes > 59) return null;
  return (match[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/** luxon reads "UTC+5:30" as a fixed-offset zone. */
function formatFixedZone(offsetMinutes: number): string {
  if (offsetMinutes === 0) return 'UTC';
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const minutes = abs % 60;
  return `UTC${sign}${Math.floor(abs / 60)}${minutes ? `:${String(minutes).padStart(2, '0')}` : ''}`;
}

function canonicalizeZone(name: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return name;
  }
}
