import type { CompactionAnchor, Entry, EntryKind, Priority, Role, SourceName } from '../../model.js';
import type { FileState, StoredSession } from '../types.js';

/** Rows as node-postgres returns them (bigint columns parsed as numbers by client.ts) and their models. */

export const ENTRY_COLUMNS =
  'e.rowid, e.session_id, e.key, e.id, e.seq, e.line, e.ts, e.role, e.text, e.tool_name, e.tool_target, e.priority, e.result, ' +
  'e.result_id, e.parent_id, e.sidechain, e.kind, e.exit_code, e.duration_ms, e.status';

export interface EntryRow {
  rowid: number;
  session_id: string;
  key: string;
  id: string;
  seq: number;
  line: number;
  ts: number | null;
  role: string;
  text: string;
  tool_name: string | null;
  tool_target: string | null;
  priority: string | null;
  result: string | null;
  result_id: string | null;
  parent_id: string | null;
  sidechain: boolean;
  kind: string | null;
  exit_code: number | null;
  duration_ms: number | null;
  status: string | null;
}

export function toEntry(row: EntryRow): Entry {
  return {
    id: row.id,
    key: row.key,
    sessionId: row.session_id,
    seq: row.seq,
    line: row.line,
    ts: row.ts,
    role: row.role as Role,
    text: row.text,
    toolName: row.tool_name,
    toolTarget: row.tool_target,
    priority: row.priority as Priority | null,
    result: row.result,
    resultId: row.result_id,
    parentId: row.parent_id,
    sidechain: row.sidechain,
    kind: row.kind as EntryKind | null,
    exitCode: row.exit_code,
    durationMs: row.duration_ms,
    status: row.status,
  };
}

/** An entry as a JSON record for jsonb_to_recordset (one round trip for a file's entries). */
export function entryRecord(entry: Entry, namespace: string): Record<string, unknown> {
  return {
    namespace,
    session_id: entry.sessionId,
    key: entry.key,
    id: entry.id,
    seq: entry.seq,
    line: entry.line,
    ts: entry.ts,
    role: entry.role,
    text: entry.text,
    tool_name: entry.toolName,
    tool_target: entry.toolTarget,
    priority: entry.priority,
    result: entry.result,
    result_id: entry.resultId,
    parent_id: entry.parentId,
    sidechain: entry.sidechain,
    kind: entry.kind,
    exit_code: entry.exitCode,
    duration_ms: entry.durationMs,
    status: entry.status,
  };
}

export const ENTRY_RECORD_TYPE =
  'namespace text, session_id text, key text, id text, seq bigint, line integer, ts bigint, role text, text text, tool_name text, ' +
  'tool_target text, priority text, result text, result_id text, parent_id text, sidechain boolean, kind text, exit_code integer, ' +
  'duration_ms bigint, status text';

export interface SessionRow {
  id: string;
  machine: string | null;
  source: string;
  path: string;
  project: string | null;
  cwd: string | null;
  branch: string | null;
  parent_id: string | null;
  start_ms: number | null;
  end_ms: number | null;
  entry_count: number;
  filtered_count: number;
  skipped: Record<string, number>;
  archive_path: string | null;
  projection_path: string | null;
  content_hash: string | null;
  projection_stale: boolean;
  title: string | null;
  agent_type: string | null;
  agent_description: string | null;
}

export function toSession(row: SessionRow): StoredSession {
  return {
    id: row.id,
    machine: row.machine,
    source: row.source as SourceName,
    path: row.path,
    project: row.project,
    cwd: row.cwd,
    branch: row.branch,
    parentSessionId: row.parent_id,
    startMs: row.start_ms,
    endMs: row.end_ms,
    entryCount: row.entry_count,
    filteredNoiseCount: row.filtered_count,
    skipped: row.skipped ?? {},
    archivePath: row.archive_path,
    projectionPath: row.projection_path,
    contentHash: row.content_hash,
    projectionStale: row.projection_stale,
    title: row.title,
    agentType: row.agent_type,
    agentDescription: row.agent_description,
  };
}

export interface FileRow {
  path: string;
  session_id: string | null;
  source: string | null;
  size: number;
  mtime_ms: number;
  prefix_hash: string;
  content_hash: string;
  offset: number;
  line: number;
  carry: unknown;
  excluded: string | null;
  indexed_ms: number;
}

export function toFileState(row: FileRow): FileState {
  return {
    path: row.path,
    sessionId: row.session_id,
    source: row.source as SourceName | null,
    size: row.size,
    mtimeMs: row.mtime_ms,
    prefixHash: row.prefix_hash,
    contentHash: row.content_hash,
    offset: row.offset,
    line: row.line,
    carry: row.carry ?? null,
    excluded: row.excluded,
    indexedAtMs: row.indexed_ms,
  };
}

export interface AnchorRow {
  session_id: string;
  id: string;
  ts: number | null;
  line: number;
  note: string;
  origin_id: string | null;
}

export function toAnchor(row: AnchorRow): CompactionAnchor {
  return { id: row.id, sessionId: row.session_id, ts: row.ts, line: row.line, note: row.note, originId: row.origin_id };
}

/** The namespace rows of a session carry: its project ('' without one). */
export function namespaceOf(session: { project: string | null } | null): string {
  return session?.project ?? '';
}
