import type { CompactionAnchor, Entry, EntryKind, Priority, Role, SourceName } from '../model.js';
import type { LongTermMemory, MemoryProvenance, MemoryScope, ReviewState } from '../records/long-term.js';
import type { FailureRecord, FileState, RunRecord, StoredSession } from './types.js';

/**
 * Rows to models, for every engine: the columns are named alike in each; what differs (how a boolean, a JSON
 * value or a 64-bit number comes back from the driver) is converted by the engine before it calls these.
 */

export interface EntryColumns {
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
  kind: string | null;
  exit_code: number | null;
  duration_ms: number | null;
  status: string | null;
}

export function entryFromColumns(row: EntryColumns, sidechain: boolean): Entry {
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
    sidechain,
    kind: row.kind as EntryKind | null,
    exitCode: row.exit_code,
    durationMs: row.duration_ms,
    status: row.status,
  };
}

export interface SessionColumns {
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
  archive_path: string | null;
  projection_path: string | null;
  content_hash: string | null;
  title: string | null;
  agent_type: string | null;
  agent_description: string | null;
}

export function sessionFromColumns(
  row: SessionColumns,
  converted: { skipped: Record<string, number>; projectionStale: boolean; machine?: string | null },
): StoredSession {
  return {
    id: row.id,
    ...(converted.machine === undefined ? {} : { machine: converted.machine }),
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
    skipped: converted.skipped,
    archivePath: row.archive_path,
    projectionPath: row.projection_path,
    contentHash: row.content_hash,
    projectionStale: converted.projectionStale,
    title: row.title,
    agentType: row.agent_type,
    agentDescription: row.agent_description,
  };
}

export interface FileColumns {
  path: string;
  session_id: string | null;
  source: string | null;
  size: number;
  mtime_ms: number;
  prefix_hash: string;
  content_hash: string;
  offset: number;
  line: number;
  excluded: string | null;
  indexed_ms: number;
}

export function fileFromColumns(row: FileColumns, carry: unknown): FileState {
  return {
    path: row.path,
    sessionId: row.session_id,
    source: row.source as SourceName | null,
    size: Number(row.size),
    mtimeMs: Number(row.mtime_ms),
    prefixHash: row.prefix_hash,
    contentHash: row.content_hash,
    offset: Number(row.offset),
    line: row.line,
    carry,
    excluded: row.excluded,
    indexedAtMs: Number(row.indexed_ms),
  };
}

export interface AnchorColumns {
  session_id: string;
  id: string;
  ts: number | null;
  line: number;
  note: string;
  origin_id: string | null;
}

export function anchorFromColumns(row: AnchorColumns): CompactionAnchor {
  return { id: row.id, sessionId: row.session_id, ts: row.ts === null ? null : Number(row.ts), line: row.line, note: row.note, originId: row.origin_id };
}

export function runFromColumns(run: Record<string, number | string | null>): RunRecord {
  return {
    startedAtMs: Number(run.started_ms),
    finishedAtMs: Number(run.finished_ms),
    command: String(run.command),
    files: Number(run.files),
    filesChanged: Number(run.files_changed),
    entries: Number(run.entries),
    warnings: Number(run.warnings),
    errors: Number(run.errors),
  };
}

export interface FailureColumns {
  key: string;
  kind: string;
  path: string;
  fingerprint: string;
  reason: string;
  failed_ms: number;
}

export function failureFromColumns(row: FailureColumns): FailureRecord {
  return {
    key: row.key,
    kind: row.kind === 'projection' ? 'projection' : 'file',
    path: row.path,
    fingerprint: row.fingerprint,
    reason: row.reason,
    failedAtMs: Number(row.failed_ms),
  };
}

/** A `memories` row as the engine hands it over: provenance parsed, the flag a boolean, numbers as numbers. */
export interface MemoryColumns {
  id: string;
  namespace_id: string;
  repo: string | null;
  scope: string;
  review_state: string;
  text: string;
  provenance: MemoryProvenance[];
  agent_loaded: boolean;
  version: number;
  created_ms: number;
  updated_ms: number;
  expires_ms: number | null;
}

export function memoryFromColumns(row: MemoryColumns): LongTermMemory {
  return {
    id: row.id,
    record_kind: 'long_term',
    text: row.text,
    namespace_id: row.namespace_id,
    repo: row.repo,
    scope: row.scope as MemoryScope,
    review_state: row.review_state as ReviewState,
    provenance: row.provenance,
    agent_loaded: row.agent_loaded,
    version: row.version,
    created_at_ms: row.created_ms,
    updated_at_ms: row.updated_ms,
    expires_at_ms: row.expires_ms,
  };
}
