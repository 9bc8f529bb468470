import { DateTime } from 'luxon';
import { MoonError } from '../errors.js';
import type { Entry } from '../model.js';
import type { BrowsePort, SearchPort } from '../store/ports.js';
import type { StoredSession } from '../store/types.js';
import { formatLocalIso, resolveZone } from '../time/format.js';
import { type ShownEntry, type ShownSession, findNearestEntry, parseAroundTime, readShownSessions, resolveSession, toShownEntry } from './show.js';

/**
 * The entries around one point of history, for expanding a recall hit: a message id (recall's
 * `metadata.message_ids`), or a time — in one session, or across every session (or the sessions of a caller's
 * project). Search → timeline → entries: a hit costs a snippet until it is opened.
 */
export interface TimelineRequest {
  /** The entry to center on: a message id (or an entry key). */
  messageId?: string;
  /**
   * Or a time: ISO date-time (read in `tz` without an offset); with `sessionId` also a clock time (`14:05`) on the
   * session's days. Without a session, the entries nearest it in any session (of `withinSessions`).
   */
  time?: string;
  /** The session (id or unique prefix). Narrows a message id; needed for a clock time. */
  sessionId?: string;
  /** Entries before the one found (default 3, at most 50). */
  before?: number;
  /** Entries after it (default 3, at most 50). */
  after?: number;
  /** Zone for times without an offset and the local times shown; default the residential zone. */
  tz?: string;
  /** A time without a session looks only in these sessions (a caller's project scope); empty: none. */
  withinSessions?: readonly string[];
}

/** An entry of a timeline or an entries answer: a shown entry (it names its session). */
export type TimelineEntry = ShownEntry;

export interface TimelineFound {
  found: true;
  timezone: string;
  /** What the request pointed at and the entry it resolved to. */
  focus: { message_id: string | null; time: string | null; entry_id: string; session_id: string; at: string | null };
  /** The sessions the entries belong to, in the order they first appear. */
  sessions: ShownSession[];
  /** In time order (session order within a session); the focus entry has `focus: true`. */
  entries: TimelineEntry[];
}

export interface TimelineNotFound {
  found: false;
  reason: 'unknown_session' | 'ambiguous_session' | 'unknown_message' | 'ambiguous_message' | 'no_entries';
  /** What was looked for: the session, the message id, or the time. */
  query: string;
  /** Sessions an ambiguous session prefix or message id matches (up to 10). */
  candidates: string[];
}

export type TimelineResult = TimelineFound | TimelineNotFound;

export const DEFAULT_TIMELINE_SPAN = 3;
export const MAX_TIMELINE_SPAN = 50;

/** A time without a session: entries are first looked for within a week of it, then anywhere. */
const NEAR_MS = 7 * 24 * 3600_000;

export interface TimelineEnvironment {
  browse: BrowsePort;
  search: SearchPort;
  timezone: string;
  projectionPathFor: (sessionId: string) => string;
}

export async function readTimeline(environment: TimelineEnvironment, request: TimelineRequest): Promise<TimelineResult> {
  const before = checkSpan('before', request.before);
  const after = checkSpan('after', request.after);
  const messageId = request.messageId?.trim() || undefined;
  const time = request.time?.trim() || undefined;
  if ((messageId === undefined) === (time === undefined)) {
    throw new MoonError('bad_input', 'a timeline needs either a message id (message_id) or a time (time), not both and not neither');
  }
  const zone = resolveZone(request.tz ?? environment.timezone);
  const { browse } = environment;
  let session: StoredSession | null = null;
  if (request.sessionId !== undefined) {
    const resolved = await resolveSession(browse, request.sessionId);
    if (!resolved.found) {
      return { found: false, reason: resolved.reason === 'unknown' ? 'unknown_session' : 'ambiguous_session', query: request.sessionId, candidates: resolved.candidates };
    }
    session = resolved.session;
  }
  if (messageId !== undefined && session === null) {
    const holders = [...new Set((await browse.getEntriesByIds([messageId])).map((entry) => entry.sessionId))];
    if (holders.length === 0) return { found: false, reason: 'unknown_message', query: messageId, candidates: [] };
    if (holders.length > 1) return { found: false, reason: 'ambiguous_message', query: messageId, candidates: holders.slice(0, 10) };
    session = await browse.getSession(holders[0]!);
    if (!session) return { found: false, reason: 'unknown_message', query: messageId, candidates: [] };
  }
  if (session === null) return readAcrossSessions(environment, time!, { before, after, zone, within: request.withinSessions });
  const entries = await browse.listEntries(session.id);
  let index: number;
  if (messageId !== undefined) {
    index = entries.findIndex((entry) => entry.id === messageId);
    if (index < 0) index = entries.findIndex((entry) => entry.key === messageId);
    if (index < 0) return { found: false, reason: 'unknown_message', query: messageId, candidates: [] };
  } else {
    const atMs = parseAroundTime(time!, session, zone);
    if (atMs === null) throw new MoonError('bad_input', `time: "${time}" is not an ISO date-time or a clock time like 14:05`, { field: 'time' });
    index = findNearestEntry(entries, atMs);
    if (index < 0) return { found: false, reason: 'no_entries', query: time!, candidates: [] };
  }
  const focus = entries[index]!;
  const window = entries.slice(Math.max(0, index - before), index + after + 1);
  return {
    found: true,
    timezone: zone,
    focus: {
      message_id: messageId ?? null,
      time: time ?? null,
      entry_id: focus.id,
      session_id: session.id,
      at: focus.ts === null ? null : formatLocalIso(focus.ts, zone),
    },
    sessions: await readShownSessions(environment.browse, [session.id], zone, environment.projectionPathFor),
    entries: window.map((entry) => toShownEntry(entry, zone, entry === focus)),
  };
}

/** The entries nearest an ISO time in any session (of `within`), `before` of them before it and `after` after. */
async function readAcrossSessions(
  environment: TimelineEnvironment,
  time: string,
  options: { before: number; after: number; zone: string; within: readonly string[] | undefined },
): Promise<TimelineResult> {
  // A date is required: luxon would read a bare time as today by the system clock, not this instance's.
  const parsed = DateTime.fromISO(time, { zone: options.zone, setZone: false });
  if (!/^\d{4}-\d{2}-\d{2}/.test(time) || !parsed.isValid) {
    throw new MoonError('bad_input', `time: "${time}" is not an ISO date-time (a clock time like 14:05 needs a session)`, { field: 'time' });
  }
  if (options.within !== undefined && options.within.length === 0) return { found: false, reason: 'no_entries', query: time, candidates: [] };
  const atMs = parsed.toMillis();
  const sessionIds = options.within ? [...options.within] : undefined;
  const nearest = async (side: 'before' | 'after', count: number): Promise<Entry[]> => {
    const bounds = (near: boolean) =>
      side === 'before' ? { untilMs: atMs + 1, ...(near ? { sinceMs: atMs - NEAR_MS } : {}) } : { sinceMs: atMs + 1, ...(near ? { untilMs: atMs + NEAR_MS } : {}) };
    const look = async (near: boolean) =>
      (await environment.search.searchTime({ filters: { sessionIds, ...bounds(near) }, all: [], none: [], centerMs: atMs, limit: count })).map((candidate) => candidate.entry);
    const close = await look(true);
    return close.length >= count ? close : look(false);
  };
  const [early, late] = await Promise.all([nearest('before', options.before + 1), nearest('after', options.after + 1)]);
  const all = [...early, ...late].sort(compareInTime);
  if (all.length === 0) return { found: false, reason: 'no_entries', query: time, candidates: [] };
  const focusIndex = findNearestEntry(all, atMs);
  const focus = all[focusIndex]!;
  const window = all.slice(Math.max(0, focusIndex - options.before), focusIndex + options.after + 1);
  const sessions = await readShownSessions(environment.browse, window.map((entry) => entry.sessionId), options.zone, environment.projectionPathFor);
  return {
    found: true,
    timezone: options.zone,
    focus: { message_id: null, time, entry_id: focus.id, session_id: focus.sessionId, at: focus.ts === null ? null : formatLocalIso(focus.ts, options.zone) },
    sessions,
    entries: window.map((entry) => toShownEntry(entry, options.zone, entry === focus)),
  };
}

function checkSpan(field: 'before' | 'after', value: number | undefined): number {
  if (value === undefined) return DEFAULT_TIMELINE_SPAN;
  if (!Number.isInteger(value) || value < 0 || value > MAX_TIMELINE_SPAN) {
    throw new MoonError('bad_input', `${field}: must be a whole number from 0 to ${MAX_TIMELINE_SPAN}, got ${value}`, { field });
  }
  return value;
}


function compareInTime(a: Entry, b: Entry): number {
  return (a.ts ?? 0) - (b.ts ?? 0) || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0) || a.seq - b.seq;
}
