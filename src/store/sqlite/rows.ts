import type { CompactionAnchor, Entry, EntryKind, Priority, Role, SourceName } from '../../model.js';
import type { FileState, StoredSession } from '../store.js';

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
  sidechain: number;
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
    sidechain: row.sidechain === 1,
    kind: row.kind as EntryKind | null,
    exitCode: row.exit_code,
    durationMs: row.duration_ms,
    status: row.status,
  };
}

export function entryParams(entry: Entry): Record<string, unknown> {
  return {
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
    sidechain: entry.sidechain ? 1 : 0,
    kind: entry.kind,
    exit_code: entry.exitCode,
    duration_ms: entry.durationMs,
    status: entry.status,
  };
}

export interface SessionRow {
  id: string;
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
  skipped: string;
  archive_path: string | null;
  projection_path: string | null;
  content_hash: string | null;
  projection_stale: number;
  title: string | null;
  agent_type: string | null;
  agent_description: string | null;
}

export function toSession(row: SessionRow): StoredSession {
  return {
    id: row.id,
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
    skipped: JSON.parse(row.skipped) as Record<string, number>,
    archivePath: row.archive_path,
    projectionPath: row.projection_path,
    contentHash: row.content_hash,
    projectionStale: row.projection_stale === 1,
    title: row.title,
    agentType: row.agent_type,
    agentDescription: row.agent_description,
  };
}

export function sessionParams(session: StoredSession): Record<string, unknown> {
  return {
    id: session.id,
    source: session.source,
    path: session.path,
    project: session.project,
    cwd: session.cwd,
    branch: session.branch,
    parent_id: session.parentSessionId,
    start_ms: session.startMs,
    end_ms: session.endMs,
    filtered_count: session.filteredNoiseCount,
    skipped: JSON.stringify(session.skipped),
    archive_path: session.archivePath,
    projection_path: session.projectionPath,
    content_hash: session.contentHash,
    title: session.title,
    agent_type: session.agentType,
    agent_description: session.agentDescription,
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
  carry: string | null;
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
    carry: row.carry === null ? null : JSON.parse(row.carry),
    excluded: row.excluded,
    indexedAtMs: row.indexed_ms,
  };
}

export function fileParams(file: FileState): Record<string, unknown> {
  return {
    path: file.path,
    session_id: file.sessionId,
    source: file.source,
    size: file.size,
    mtime_ms: file.mtimeMs,
    prefix_hash: file.prefixHash,
    content_hash: file.contentHash,
    offset: file.offset,
    line: file.line,
    carry: file.carry === null || file.carry === undefined ? null : JSON.stringify(file.carry),
    excluded: file.excluded,
    indexed_ms: file.indexedAtMs,
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
