import type { Entry } from '../../model.js';
import {
  type AnchorColumns,
  type EntryColumns,
  type FileColumns,
  type SessionColumns,
  anchorFromColumns,
  entryFromColumns,
  fileFromColumns,
  sessionFromColumns,
} from '../row-mapping.js';
import type { FileState, StoredSession } from '../store.js';

export interface EntryRow extends EntryColumns {
  sidechain: number;
}

export function toEntry(row: EntryRow): Entry {
  return entryFromColumns(row, row.sidechain === 1);
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

export interface SessionRow extends SessionColumns {
  skipped: string;
  projection_stale: number;
}

export function toSession(row: SessionRow): StoredSession {
  return sessionFromColumns(row, { skipped: JSON.parse(row.skipped) as Record<string, number>, projectionStale: row.projection_stale === 1 });
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

export interface FileRow extends FileColumns {
  carry: string | null;
}

export function toFileState(row: FileRow): FileState {
  return fileFromColumns(row, row.carry === null ? null : JSON.parse(row.carry));
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

export type AnchorRow = AnchorColumns;

export const toAnchor = anchorFromColumns;
