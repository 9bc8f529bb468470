import { DateTime } from 'luxon';
import { MoonError } from '../errors.js';
import { ROLES, type Priority, type Role, type SourceName } from '../model.js';
import { SOURCE_NAMES } from '../sources/index.js';
import { parseTimeQuery } from './time-query.js';

export type RecallGroup = 'session' | 'message';
export type RecallStrategy = 'hybrid' | 'bm25';

/**
 * Everything `moon recall` (and MCP, HTTP) may ask, as the library takes it. Callers that send a recall as data
 * use the request schema (search/request.ts: snake_case fields, checked) which reads into this.
 */
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
  /** Only messages of these side-effect priorities (seed 000 §3.5: `high` for tool calls that change things). */
  priority?: Priority[];
  /** Only messages carrying an `@/` marker of one of these types (`decision`, `bug`, …). */
  marker?: string[];
  /** ISO date or date-time; a date alone means its start in `tz`. */
  since?: string;
  until?: string;
  /** Sessions never to return (the current one, seed 002). */
  excludeSession?: string[];
  messagesPerSession?: number;
  /** Reference time for relative expressions (ISO), default now. */
  now?: string;
  /** IANA zone (or abbreviation) for times without an offset, default the residential time zone. */
  tz?: string;
  /** `hybrid` (default from config) or `bm25`, the plain baseline. */
  strategy?: RecallStrategy;
  /** Attach each signal's contribution per matched message (metadata.explain). */
  explain?: boolean;
}

export function validateStrategy(value: string): RecallStrategy {
  if (value === 'hybrid' || value === 'bm25') return value;
  throw new MoonError('bad_usage', `strategy: "${value}" must be hybrid or bm25`, { field: 'strategy' });
}

export function validateRole(value: string): Role {
  if ((ROLES as readonly string[]).includes(value)) return value as Role;
  throw new MoonError('bad_usage', `role: "${value}" is not one of ${ROLES.join(', ')}`, { field: 'role' });
}

export function validateSource(value: string): SourceName {
  if (SOURCE_NAMES.includes(value)) return value;
  throw new MoonError('bad_usage', `source: "${value}" is not one of ${SOURCE_NAMES.join(', ')}`, { field: 'source' });
}

export function validateGroup(value: string): RecallGroup {
  if (value === 'session' || value === 'message') return value;
  throw new MoonError('bad_usage', `group: "${value}" must be session or message`, { field: 'group' });
}

/**
 * Parse an ISO date or date-time to epoch ms; dates without an offset are read in `zone`. `label` starts the error:
 * a request field (`since`, carried as the error's `field`) or, for callers that still speak in flags, a flag.
 */
/**
 * A `since`/`until` bound, as every door takes it: an ISO date or date-time (a date alone: its start in `zone`), or
 * the time words a recall query understands ("yesterday", "last week", "3 days ago", "last Saturday morning",
 * "January 2026") — the start of the window they name, read at `nowMs` in `zone`. A value that is neither names the
 * flag or field it came from.
 */
export function parseTimeBound(label: string, value: string, zone: string, nowMs: number = Date.now()): number {
  const trimmed = value.trim();
  const parsed = DateTime.fromISO(trimmed, { zone, setZone: false });
  if (parsed.isValid) return parsed.toMillis();
  const words = trimmed === '' ? null : readTimeWords(trimmed, zone, nowMs);
  if (words === null) {
    throw new MoonError(
      'bad_usage',
      `${label}: "${value}" is not a date, a date-time or a time the queries understand (e.g. 2026-02-21, 2026-02-21T18:39:00Z, yesterday, "last week", "3 days ago")`,
      { field: label },
    );
  }
  return words;
}

/** The start of the one window `text` names as a whole (nothing else left over), or null. */
function readTimeWords(text: string, zone: string, nowMs: number): number | null {
  const found = parseTimeQuery(text, { nowMs, zone });
  if (found.windows.length === 0 || found.text.replace(/[\s,.;:!?]+/g, '') !== '') return null;
  return Math.min(...found.windows.map((window) => window.startMs));
}

/** Library callers (MCP, HTTP, scripts) may pass one value where a list is expected. */
export function toList<T>(value: T | readonly T[] | undefined): T[] | undefined {
  if (value === undefined || value === null) return undefined;
  return Array.isArray(value) ? [...(value as readonly T[])] : [value as T];
}
