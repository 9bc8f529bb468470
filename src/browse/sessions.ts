import type { SourceName } from '../model.js';
import { formatLocalIso } from '../time/format.js';
import { parseTimeBound, toList } from '../search/options.js';
import type { BrowsePort } from '../store/ports.js';
import type { SessionSummary } from '../store/types.js';

/** `moon sessions` / Moon.sessions(): which sessions to list. */
export interface SessionsRequest {
  /** Project name (exact, case-insensitive) or, with a `/`, part of the cwd. */
  project?: string | string[];
  source?: SourceName | SourceName[];
  /** ISO date or date-time; a date alone is read in `tz`. Sessions overlapping [since, until) are listed. */
  since?: string;
  until?: string;
  limit?: number;
  /** Zone for dates without an offset and for the local times shown; default the residential zone. */
  tz?: string;
}

/**
 * One session of a listing, as every door gives it. The counts follow one rule (src/browse/session-title.ts):
 * `message_count` is every message of the session — user, assistant, tool calls and their results, notes — as its
 * projection's `message_count` and `> Messages:` line count them; `turn_count` the user's and the assistant's
 * alone. `title` is the session's own title or null; `first_prompt` what people see when it is null.
 */
export interface SessionListItem {
  session_id: string;
  source: SourceName;
  project: string | null;
  cwd: string | null;
  title: string | null;
  /** The start of the session's first user message (what a listing shows when there is no title). */
  first_prompt: string | null;
  /** Local ISO time (with offset) in the listing's zone, or null when the transcript has no timestamps. */
  start: string | null;
  end: string | null;
  start_ms: number | null;
  end_ms: number | null;
  message_count: number;
  turn_count: number;
  tools: { name: string; count: number }[];
  parent_session_id: string | null;
  projection_path: string | null;
}

export interface SessionListing {
  timezone: string;
  sessions: SessionListItem[];
}

export async function listSessions(store: BrowsePort, request: SessionsRequest, timezone: string, nowMs: number = Date.now()): Promise<SessionListing> {
  const zone = request.tz ?? timezone;
  const summaries = await store.listSessionSummaries({
    projects: toList(request.project),
    sources: toList(request.source),
    sinceMs: request.since === undefined ? undefined : parseTimeBound('since', request.since, zone, nowMs),
    untilMs: request.until === undefined ? undefined : parseTimeBound('until', request.until, zone, nowMs),
    limit: request.limit,
  });
  return { timezone: zone, sessions: summaries.map((summary) => toListItem(summary, zone)) };
}

function toListItem(summary: SessionSummary, zone: string): SessionListItem {
  return {
    session_id: summary.id,
    source: summary.source,
    project: summary.project,
    cwd: summary.cwd,
    title: summary.title,
    first_prompt: summary.firstPrompt,
    start: summary.startMs === null ? null : formatLocalIso(summary.startMs, zone),
    end: summary.endMs === null ? null : formatLocalIso(summary.endMs, zone),
    start_ms: summary.startMs,
    end_ms: summary.endMs,
    message_count: summary.entryCount,
    turn_count: summary.messages,
    tools: summary.tools,
    parent_session_id: summary.parentSessionId,
    projection_path: summary.projectionPath,
  };
}
