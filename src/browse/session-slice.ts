import { existsSync, readFileSync } from 'node:fs';
import { MoonError } from '../errors.js';
import type { Entry } from '../model.js';
import type { BrowsePort } from '../store/ports.js';
import { resolveZone } from '../time/format.js';
import { type SessionNotFound, type ShownEntry, type ShownSession, parseAroundTime, readShownSessions, resolveSession, toShownEntry } from './show.js';

/**
 * A session for an agent: its projection (the markdown moon wrote for it), or a slice of it — the entries from
 * one message id to another, or between two times.
 */
export interface GetSessionRequest {
  /** A session id or a unique prefix of one. */
  id: string;
  /** First entry of the slice: a message id (or entry key), inclusive. */
  fromEntry?: string;
  /** Last entry of the slice: a message id (or entry key), inclusive. */
  toEntry?: string;
  /** Entries at or after this time: ISO, or a clock time (`14:05`) on the session's days. */
  since?: string;
  /** Entries before this time. */
  until?: string;
  /** Zone for times without an offset and the local times shown; default the residential zone. */
  tz?: string;
  /** Every entry of the session, and its projection beside them when it is written (the web view reads both). */
  allEntries?: boolean;
}

export interface SessionSlice {
  from_entry: string | null;
  to_entry: string | null;
  since: string | null;
  until: string | null;
  /** Entries in the whole session, of which `entries` is the slice. */
  total_entries: number;
}

export interface SessionGot {
  found: true;
  timezone: string;
  session: ShownSession;
  /** Without a range: the session's projection (markdown). With one: null; with allEntries: it too, when written. */
  projection: string | null;
  /** With a range: what it was, and the entries in it in session order. */
  slice: SessionSlice | null;
  entries: ShownEntry[];
}

export type GetSessionResult = SessionGot | SessionNotFound;

export async function readSession(
  browse: BrowsePort,
  request: GetSessionRequest,
  options: { timezone: string; projectionPathFor: (sessionId: string) => string },
): Promise<GetSessionResult> {
  const resolved = await resolveSession(browse, request.id);
  if (!resolved.found) return resolved;
  const stored = resolved.session;
  const zone = resolveZone(request.tz ?? options.timezone);
  const [session] = (await readShownSessions(browse, [stored.id], zone, options.projectionPathFor)) as [ShownSession];
  const ranged = request.allEntries === true || [request.fromEntry, request.toEntry, request.since, request.until].some((value) => value !== undefined && value.trim() !== '');
  if (!ranged) {
    if (!existsSync(session.projection_path)) {
      throw new MoonError('not_found', `no projection for session ${stored.id} at ${session.projection_path}`, { hint: 'run `moon index` to write it' });
    }
    return { found: true, timezone: zone, session, projection: readFileSync(session.projection_path, 'utf8'), slice: null, entries: [] };
  }
  const entries = await browse.listEntries(stored.id);
  const position = (field: 'from_entry' | 'to_entry', wanted: string | undefined): number | null => {
    const value = wanted?.trim();
    if (!value) return null;
    let index = entries.findIndex((entry) => entry.id === value);
    if (index < 0) index = entries.findIndex((entry) => entry.key === value);
    if (index < 0) throw new MoonError('not_found', `${field}: "${value}" is not a message id in session ${stored.id}`, { field });
    return index;
  };
  const instant = (field: 'since' | 'until', wanted: string | undefined): number | null => {
    const value = wanted?.trim();
    if (!value) return null;
    const ms = parseAroundTime(value, stored, zone);
    if (ms === null) throw new MoonError('bad_input', `${field}: "${value}" is not an ISO date-time or a clock time like 14:05`, { field });
    return ms;
  };
  const from = position('from_entry', request.fromEntry) ?? 0;
  const to = position('to_entry', request.toEntry) ?? entries.length - 1;
  const sinceMs = instant('since', request.since);
  const untilMs = instant('until', request.until);
  const inTime = (entry: Entry): boolean =>
    (sinceMs === null && untilMs === null) || (entry.ts !== null && (sinceMs === null || entry.ts >= sinceMs) && (untilMs === null || entry.ts < untilMs));
  const picked = entries.slice(from, to + 1).filter(inTime);
  return {
    found: true,
    timezone: zone,
    session,
    projection: request.allEntries === true && existsSync(session.projection_path) ? readFileSync(session.projection_path, 'utf8') : null,
    slice: {
      from_entry: request.fromEntry?.trim() || null,
      to_entry: request.toEntry?.trim() || null,
      since: request.since?.trim() || null,
      until: request.until?.trim() || null,
      total_entries: entries.length,
    },
    entries: picked.map((entry) => toShownEntry(entry, zone, false)),
  };
}
