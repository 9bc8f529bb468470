import { DateTime } from 'luxon';
import { MoonError } from '../errors.js';
import { ROLES, type Role, SOURCE_NAMES, type SourceName } from '../model.js';

export type RecallGroup = 'session' | 'message';

/** Everything `moon recall` (and MCP, HTTP) may ask. Names match the CLI flags. */
export interface RecallOptions {
  query: string;
  limit?: number;
  group?: RecallGroup;
  require?: string[];
  exclude?: string[];
  project?: string[];
  session?: string[];
  source?: SourceName[];
  role?: Role[];
  tool?: string[];
  /** ISO date or date-time; a date alone means its start in `tz`. */
  since?: string;
  until?: string;
  /** Sessions never to return (the current one, seed 002). */
  excludeSession?: string[];
  messagesPerSession?: number;
  /** Reference time for relative expressions (ISO), default now. */
  now?: string;
  /** IANA zone for dates without an offset, default the residential time zone. */
  tz?: string;
}

export function validateRole(value: string): Role {
  if ((ROLES as readonly string[]).includes(value)) return value as Role;
  throw new MoonError('bad_usage', `--role: "${value}" is not one of ${ROLES.join(', ')}`);
}

export function validateSource(value: string): SourceName {
  if ((SOURCE_NAMES as readonly string[]).includes(value)) return value as SourceName;
  throw new MoonError('bad_usage', `--source: "${value}" is not one of ${SOURCE_NAMES.join(', ')}`);
}

export function validateGroup(value: string): RecallGroup {
  if (value === 'session' || value === 'message') return value;
  throw new MoonError('bad_usage', `--group: "${value}" must be session or message`);
}

/** Parse an ISO date or date-time to epoch ms; dates without an offset are read in `zone`. */
export function parseIsoBound(flag: string, value: string, zone: string): number {
  const parsed = DateTime.fromISO(value.trim(), { zone, setZone: false });
  if (!parsed.isValid) {
    throw new MoonError('bad_usage', `${flag}: "${value}" is not an ISO date or date-time (e.g. 2026-02-21 or 2026-02-21T18:39:00Z)`);
  }
  return parsed.toMillis();
}
