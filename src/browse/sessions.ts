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

export interface SessionListItem {
  id: string;
  source: SourceName;
  project: string | null;
  cwd: string | null;
  title: string | null;
  /** The start of the session's first user message (what a listing shows when there is no title). */
  firstPrompt: string | null;
  /** Local ISO time (with offset) in the listing's zone, or null when the transcript has no timestamps. */
  start: string | null;
  end: string | null;
  startMs: number | null;
  endMs: number | null;
  /** User and assistant messages (tool calls, reasoning and system notes not counted). */
  messages: number;
  /** Everything indexed: messages, tool calls, system notes. */
  entries: number;
  tools: { name: string; count: number }[];
  parentSessionId: string | null;
  projectionPath: string | null;
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
    id: summary.id,
    source: summary.source,
    project: summary.project,
    cwd: summary.cwd,
    title: summary.title,
    firstPrompt: summary.firstPrompt,
    start: summary.startMs === null ? null : formatLocalIso(summary.startMs, zone),
    end: summary.endMs === null ? null : formatLocalIso(summary.endMs, zone),
    startMs: summary.startMs,
    endMs: summary.endMs,
    messages: summary.messages,
    entries: summary.entryCount,
    tools: summary.tools,
    parentSessionId: summary.parentSessionId,
    projectionPath: summary.projectionPath,
  };
}
