import { existsSync, readFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import { MoonError } from '../errors.js';
import type { Entry, Role, SourceName } from '../model.js';
import { formatLocalIso, resolveZone } from '../time/format.js';
import type { BrowsePort } from '../store/ports.js';
import type { StoredSession } from '../store/types.js';
import { resolveSessionId, toResolutionError } from './resolve-session-id.js';

/** `moon show` / Moon.show(). */
export interface ShowRequest {
  /** A session id or a unique prefix of one (at least 8 characters: resolve-session-id.ts). */
  session: string;
  /** A message id (recall's `metadata.message_ids`), an ISO time, or a clock time (`14:05`, `2:05pm`) on the session's days. */
  around?: string;
  /** Entries shown before and after the one found (default 3). */
  context?: number;
  /** Zone for clock times and the local times shown; default the residential zone. */
  tz?: string;
}

/**
 * A session as every door gives it (CLI --json, MCP structuredContent, HTTP): snake_case, times local to the
 * answer's zone. `title` is the session's own title or null (src/browse/session-title.ts says how people see it).
 */
export interface ShownSession {
  session_id: string;
  source: SourceName;
  project: string | null;
  cwd: string | null;
  title: string | null;
  /** The start of the session's first user message: what people see when `title` is null. */
  first_prompt: string | null;
  start: string | null;
  end: string | null;
  projection_path: string;
}

export interface ShownEntry {
  id: string;
  /** The session it belongs to: every door names it beside the message id. */
  session_id: string;
  /** Local ISO time with offset, or null when the record had no timestamp. */
  time: string | null;
  ts: number | null;
  role: Role;
  kind: string | null;
  tool: string | null;
  target: string | null;
  text: string;
  result: string | null;
  exit_code: number | null;
  status: string | null;
  /** The entry `around` pointed at. */
  focus: boolean;
  /** Text or result was cut to the answer's budget (MCP's; the CLI and HTTP give them whole: false). */
  truncated: boolean;
}

/** Not found is an answer, not a failure: JSON callers get it as a value. */
export interface SessionNotFound {
  found: false;
  session: string;
  reason: 'unknown' | 'ambiguous';
  /** For an ambiguous prefix: the sessions it matches (up to 10). */
  candidates: string[];
  /** What went wrong, for people: an ambiguous prefix's candidates with their start and title. */
  message: string;
}

export interface SessionShown {
  found: true;
  timezone: string;
  session: ShownSession;
  /** Without `around`: the session's projection (markdown). */
  projection: string | null;
  /** With `around`: what it resolved to, and the entries around it in session order. */
  around: { query: string; entry_id: string; time: string | null } | null;
  entries: ShownEntry[];
}

export type ShowResult = SessionShown | SessionNotFound;

export const DEFAULT_CONTEXT = 3;

export async function showSession(
  store: BrowsePort,
  request: ShowRequest,
  options: { timezone: string; projectionPathFor: (sessionId: string) => string },
): Promise<ShowResult> {
  const resolved = await resolveSession(store, request.session);
  if (!resolved.found) return resolved;
  const session = resolved.session;
  const zone = resolveZone(request.tz ?? options.timezone);
  const [shown] = (await readShownSessions(store, [session.id], zone, options.projectionPathFor)) as [ShownSession];
  const projectionPath = shown.projection_path;
  if (request.around === undefined) {
    if (!existsSync(projectionPath)) {
      throw new MoonError('not_found', `no projection for session ${session.id} at ${projectionPath}`, { hint: 'run `moon index` to write it' });
    }
    return { found: true, timezone: zone, session: shown, projection: readFileSync(projectionPath, 'utf8'), around: null, entries: [] };
  }
  const context = request.context ?? DEFAULT_CONTEXT;
  if (!Number.isInteger(context) || context < 0) throw new MoonError('bad_usage', `context: expected a whole number ≥ 0, got ${context}`, { field: 'context' });
  const entries = await store.listEntries(session.id);
  const index = findFocus(entries, request.around, session, zone);
  const focus = entries[index]!;
  const window = entries.slice(Math.max(0, index - context), index + context + 1);
  return {
    found: true,
    timezone: zone,
    session: shown,
    projection: null,
    around: { query: request.around, entry_id: focus.id, time: focus.ts === null ? null : formatLocalIso(focus.ts, zone) },
    entries: window.map((entry) => toShownEntry(entry, zone, entry === focus)),
  };
}

/**
 * Sessions by id as `show` and the agent interfaces give them (times local to `zone`), each with its first prompt,
 * in the order of `ids`: one read for all of them. An id the index does not hold is left out.
 */
export async function readShownSessions(
  browse: BrowsePort,
  ids: readonly string[],
  zone: string,
  projectionPathFor: (sessionId: string) => string,
): Promise<ShownSession[]> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return [];
  const byId = new Map((await browse.listSessionSummaries({ ids: wanted })).map((summary) => [summary.id, summary]));
  return wanted.flatMap((id) => {
    const summary = byId.get(id);
    return summary ? [toShownSession(summary, zone, projectionPathFor, summary.firstPrompt)] : [];
  });
}

function toShownSession(session: StoredSession, zone: string, projectionPathFor: (sessionId: string) => string, firstPrompt: string | null): ShownSession {
  return {
    session_id: session.id,
    source: session.source,
    project: session.project,
    cwd: session.cwd,
    title: session.title,
    first_prompt: firstPrompt,
    start: session.startMs === null ? null : formatLocalIso(session.startMs, zone),
    end: session.endMs === null ? null : formatLocalIso(session.endMs, zone),
    projection_path: session.projectionPath ?? projectionPathFor(session.id),
  };
}

/**
 * A session by id or unique prefix (resolve-session-id.ts); an unknown or ambiguous one is an answer, not a
 * failure. A prefix too short to be one is an error.
 */
export async function resolveSession(store: BrowsePort, wanted: string): Promise<{ found: true; session: StoredSession } | SessionNotFound> {
  const resolution = await resolveSessionId(store, wanted);
  if (resolution.kind === 'found') {
    const session = await store.getSession(resolution.session.id);
    if (session) return { found: true, session };
    return { found: false, session: wanted, reason: 'unknown', candidates: [], message: toResolutionError({ kind: 'unknown', wanted }).message };
  }
  return {
    found: false,
    session: wanted,
    reason: resolution.kind,
    candidates: resolution.kind === 'ambiguous' ? resolution.candidates.map((match) => match.id) : [],
    message: toResolutionError(resolution).message,
  };
}

/** The entry `around` names: a message id (or key), else the entry nearest the time it gives. */
export function findFocus(entries: Entry[], around: string, session: StoredSession, zone: string): number {
  if (entries.length === 0) throw new MoonError('not_found', `session ${session.id} has no indexed entries`);
  const value = around.trim();
  const byId = entries.findIndex((entry) => entry.id === value);
  if (byId >= 0) return byId;
  const byKey = entries.findIndex((entry) => entry.key === value);
  if (byKey >= 0) return byKey;
  const atMs = parseAroundTime(value, session, zone);
  if (atMs === null) {
    throw new MoonError('not_found', `around: "${around}" is neither a message id in session ${session.id} nor a time (ISO, or a clock time like 14:05)`, { field: 'around' });
  }
  const best = findNearestEntry(entries, atMs);
  if (best < 0) throw new MoonError('not_found', `session ${session.id} has no timestamps to place ${around} in`);
  return best;
}

const CLOCK = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(am|pm)?$/i;

/**
 * An ISO date-time (read in `zone` without an offset), or a clock time. A clock time is placed on the local day
 * of the session's start, or the next day when the session ran past midnight and that is closer to its span.
 */
export function parseAroundTime(value: string, session: Pick<StoredSession, 'startMs' | 'endMs'>, zone: string): number | null {
  const clock = CLOCK.exec(value);
  if (clock && (clock[2] !== undefined || clock[4] !== undefined)) {
    let hour = Number(clock[1]);
    const minute = Number(clock[2] ?? 0);
    const second = Number(clock[3] ?? 0);
    const meridiem = clock[4]?.toLowerCase();
    if (meridiem) {
      if (hour < 1 || hour > 12) return null;
      hour = (hour % 12) + (meridiem === 'pm' ? 12 : 0);
    }
    if (hour > 23 || minute > 59 || second > 59) return null;
    const anchor = session.startMs ?? session.endMs;
    if (anchor === null) return null;
    const startDay = DateTime.fromMillis(anchor, { zone }).startOf('day');
    const endMs = session.endMs ?? anchor;
    const candidates = [0, 1, 2]
      .map((days) => startDay.plus({ days }).set({ hour, minute, second }).toMillis())
      .filter((ms, index) => index === 0 || ms <= endMs + 12 * 3600_000);
    const distance = (ms: number): number => (ms < anchor ? anchor - ms : ms > endMs ? ms - endMs : 0);
    return candidates.reduce((best, ms) => (distance(ms) < distance(best) ? ms : best));
  }
  const iso = DateTime.fromISO(value, { zone, setZone: false });
  return iso.isValid ? iso.toMillis() : null;
}

export function toShownEntry(entry: Entry, zone: string, focus: boolean): ShownEntry {
  return {
    id: entry.id,
    session_id: entry.sessionId,
    time: entry.ts === null ? null : formatLocalIso(entry.ts, zone),
    ts: entry.ts,
    role: entry.role,
    kind: entry.kind,
    tool: entry.toolName,
    target: entry.toolTarget,
    text: entry.text,
    result: entry.result,
    exit_code: entry.exitCode,
    status: entry.status,
    focus,
    truncated: false,
  };
}

/** The entry nearest the instant (the earlier one on a tie); -1 when none has a time. */
export function findNearestEntry(entries: readonly Entry[], atMs: number): number {
  let best = -1;
  let bestDistance = Number.POSITIVE_INFINITY;
  entries.forEach((entry, index) => {
    if (entry.ts === null) return;
    const distance = Math.abs(entry.ts - atMs);
    if (distance < bestDistance) {
      best = index;
      bestDistance = distance;
    }
  });
  return best;
}
