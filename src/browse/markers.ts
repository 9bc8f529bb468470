import { homedir } from 'node:os';
import { MoonError } from '../errors.js';
import { requireSessionId } from './resolve-session-id.js';
import { parseTimeBound } from '../search/options.js';
import { type ProjectScope, resolveProjectScope } from '../search/scope.js';
import type { BrowsePort, MarkerPort } from '../store/ports.js';
import type { MarkerQuery, StoredMarker } from '../markers/types.js';

/** `moon markers`, the `markers` MCP tool and `GET /v1/markers`: which markers to list. */
export interface MarkersRequest {
  /** Any of these types (none: every type the index holds). */
  types?: readonly string[];
  /** One session: an id or a unique prefix of one. Overrides the project scope. */
  session?: string | null;
  /** ISO date or date-time (a date alone: its start in the residential zone). */
  since?: string;
  until?: string;
  /** Words every marker's text holds (case-insensitive). */
  text?: string | null;
  /** Most markers listed, newest first (default 50). */
  limit?: number;
  /** The caller's project: its roots (file:// URIs or paths), else its working directory. */
  roots?: readonly string[];
  cwd?: string | null;
  /** Every project, whatever the roots or working directory. */
  allProjects?: boolean;
}

export interface MarkersResult {
  /** Whose markers these are: a project scope (search/scope.ts), or the one session named. */
  scope: ProjectScope | { kind: 'session'; sessionId: string };
  /** Newest first. */
  markers: StoredMarker[];
  /** Markers per type in the same scope, time and words (every type, not only those asked for; not limited). */
  counts: Record<string, number>;
}

export interface MarkersDeps {
  markers: MarkerPort;
  browse: BrowsePort;
  /** The types the configuration knows: asking for another is a mistake to report. */
  knownTypes: readonly string[];
  zone: string;
  homeDir?: string;
  /** Now, for `since`/`until` in time words ("yesterday"). */
  nowMs?: number;
}

export const DEFAULT_MARKERS_LIMIT = 50;

/** Markers for a caller: its project's (or one session's, or every project's), filtered, newest first, with counts by type. */
export async function queryMarkers(deps: MarkersDeps, request: MarkersRequest): Promise<MarkersResult> {
  const types = [...new Set(request.types ?? [])];
  const unknown = types.filter((type) => !deps.knownTypes.includes(type));
  if (unknown.length > 0) {
    throw new MoonError('bad_usage', `type: "${unknown[0]}" is not a marker type here (${deps.knownTypes.join(', ')})`, {
      field: 'type',
      hint: 'custom types are configured under [markers] in moon.toml',
    });
  }
  const limit = request.limit ?? DEFAULT_MARKERS_LIMIT;
  if (!Number.isInteger(limit) || limit <= 0) throw new MoonError('bad_usage', `limit: expected a positive integer, got ${limit}`, { field: 'limit' });
  const base: Omit<MarkerQuery, 'limit' | 'types'> = {
    sinceMs: request.since ? parseTimeBound('since', request.since, deps.zone, deps.nowMs) : undefined,
    untilMs: request.until ? parseTimeBound('until', request.until, deps.zone, deps.nowMs) : undefined,
    words: splitWords(request.text ?? ''),
  };
  let scope: MarkersResult['scope'];
  if (request.session && request.session.trim() !== '') {
    const sessionId = await requireSessionId(deps.browse, request.session, 'session');
    scope = { kind: 'session', sessionId };
    base.sessionIds = [sessionId];
  } else {
    scope = resolveProjectScope(
      { roots: request.roots, cwd: request.cwd ?? null, allProjects: request.allProjects ?? false },
      await deps.browse.listSessionPlaces(),
      deps.homeDir ?? homedir(),
    );
    if (scope.kind === 'project' && !scope.everything) base.sessionIds = scope.sessionIds;
  }
  const [markers, counts] = await Promise.all([deps.markers.list({ ...base, types, limit }), deps.markers.countByType(base)]);
  return { scope, markers, counts };
}

function splitWords(text: string): string[] {
  return [...new Set(text.split(/\s+/).filter((word) => word !== ''))];
}

/** A marker as JSON callers get it (`moon markers --json`, the MCP tool, HTTP): snake_case, the time in ISO UTC. */
export interface MarkerRecord {
  type: string;
  content: string;
  importance: number;
  priority: number;
  session_id: string;
  entry_id: string;
  source_field: StoredMarker['sourceField'];
  line: number;
  context: { before: string; after: string };
  timestamp: string | null;
  project: string | null;
}

export function toMarkerRecord(marker: StoredMarker): MarkerRecord {
  return {
    type: marker.type,
    content: marker.content,
    importance: marker.importance,
    priority: marker.priority,
    session_id: marker.sessionId,
    entry_id: marker.entryId,
    source_field: marker.sourceField,
    line: marker.line,
    context: { before: marker.context.before, after: marker.context.after },
    timestamp: marker.ts === null ? null : new Date(marker.ts).toISOString(),
    project: marker.project,
  };
}

/** The scope as JSON callers get it: how it was chosen and how many sessions it holds, not their ids. */
export type MarkerScopeRecord =
  | { kind: 'all'; reason: string; roots: string[] }
  | { kind: 'project'; via: 'roots' | 'cwd'; roots: string[]; sessions: number; everything: boolean }
  | { kind: 'session'; session_id: string };

export function toMarkerScopeRecord(scope: MarkersResult['scope']): MarkerScopeRecord {
  switch (scope.kind) {
    case 'all':
      return { kind: 'all', reason: scope.reason, roots: scope.roots };
    case 'project':
      return { kind: 'project', via: scope.via, roots: scope.roots, sessions: scope.sessionIds.length, everything: scope.everything };
    case 'session':
      return { kind: 'session', session_id: scope.sessionId };
  }
}
