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
import type { FileState, StoredSession } from '../types.js';

/** Rows as node-postgres returns them (bigint columns parsed as numbers by client.ts) and their models. */

export const ENTRY_COLUMNS =
  'e.rowid, e.session_id, e.key, e.id, e.seq, e.line, e.ts, e.role, e.text, e.tool_name, e.tool_target, e.priority, e.result, ' +
  'e.result_id, e.parent_id, e.sidechain, e.kind, e.exit_code, e.duration_ms, e.status';

export interface EntryRow extends EntryColumns {
  sidechain: boolean;
}

export function toEntry(row: EntryRow): Entry {
  return entryFromColumns(row, row.sidechain);
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

export interface SessionRow extends SessionColumns {
  machine: string | null;
  skipped: Record<string, number> | null;
  projection_stale: boolean;
}

export function toSession(row: SessionRow): StoredSession {
  return sessionFromColumns(row, { skipped: row.skipped ?? {}, projectionStale: row.projection_stale, machine: row.machine });
}

export interface FileRow extends FileColumns {
  carry: unknown;
}

export function toFileState(row: FileRow): FileState {
  return fileFromColumns(row, row.carry ?? null);
}

export type AnchorRow = AnchorColumns;

export const toAnchor = anchorFromColumns;

/** The namespace rows of a session carry: its project ('' without one). */
export function namespaceOf(session: { project: string | null } | null): string {
  return session?.project ?? '';
}
