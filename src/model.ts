/**
 * The one normalized model every stage speaks. Sources produce it, normalize/ cleans it, project/ renders it,
 * store/ persists it and search/ returns it. Timestamps are epoch milliseconds (UTC) or null when unknown.
 */

export type SourceName = 'claude-code' | 'codex' | 'openclaw';
export const SOURCE_NAMES: readonly SourceName[] = ['claude-code', 'codex', 'openclaw'];

export type Role = 'user' | 'assistant' | 'tool' | 'system';
export const ROLES: readonly Role[] = ['user', 'assistant', 'tool', 'system'];

/** Side-effect priority of a tool action (seed 000 §3.5): writes, edits, exec and config patches are high. */
export type Priority = 'high' | 'normal';

export interface Session {
  id: string;
  source: SourceName;
  /** Transcript file the session was read from. */
  path: string;
  /** Short project name (basename of cwd, or the source's own project folder name). */
  project: string | null;
  cwd: string | null;
  branch: string | null;
  /** For subagent transcripts: the session that spawned them. */
  parentSessionId: string | null;
  startMs: number | null;
  endMs: number | null;
}

export interface Entry {
  /** The source record's own id: Claude Code `uuid`, OpenClaw entry `id`, Codex call id or `L<line>`. */
  id: string;
  /**
   * Merge key, unique within a session and stable across runs. Records that continue one logical message
   * (Claude Code streaming blocks sharing message.id + requestId) share a key, so a later chunk of a growing
   * file merges into the entry an earlier run stored.
   */
  key: string;
  sessionId: string;
  /** Order within the session: line number * 1000 + block index. */
  seq: number;
  /** 1-based line of the first record that contributed to this entry. */
  line: number;
  ts: number | null;
  role: Role;
  /** Cleaned, redacted full text. For a tool entry: a readable form of the call (e.g. `npm test`). */
  text: string;
  toolName: string | null;
  /** Command or path the tool acted on. */
  toolTarget: string | null;
  priority: Priority | null;
  /** Coupled tool result (seed 000 §3.6), cleaned and redacted. */
  result: string | null;
  resultId: string | null;
  parentId: string | null;
  sidechain: boolean;
}

/** The fields every entry states; the rest default to "no tool, no result, no parent". */
export type EntryCore = Pick<Entry, 'id' | 'key' | 'sessionId' | 'seq' | 'line' | 'ts' | 'role' | 'text'>;

/** An entry from its core fields, with the optional ones null (or false) unless given. */
export function createEntry(fields: EntryCore & Partial<Entry>): Entry {
  return {
    toolName: null,
    toolTarget: null,
    priority: null,
    result: null,
    resultId: null,
    parentId: null,
    sidechain: false,
    ...fields,
  };
}

export interface CompactionAnchor {
  /** Record id of the compaction record itself. */
  id: string;
  sessionId: string;
  ts: number | null;
  line: number;
  note: string;
  /** The record the compaction points back to (logicalParentUuid, firstKeptEntryId, ...). */
  originId: string | null;
}

/** Seed 001 SessionUsageSnapshot. */
export interface UsageSnapshot {
  session_id: string;
  used_tokens: number;
  max_tokens: number;
  usage_ratio: number;
  captured_at_epoch_secs: number;
  provider: string;
}

/** Seed 001 ArchiveRecord (one line of archives/ledger.jsonl). */
export interface ArchiveRecord {
  session_id: string;
  archive_path: string;
  content_hash: string;
  created_at_epoch_secs: number;
  indexed_collection: string;
  projection_filtered_noise_count: number | null;
}

/** Seed 001 RecallResult — a public contract: tools and benchmarks parse it. */
export interface RecallResult {
  query: string;
  matches: RecallMatch[];
  generated_at_epoch_secs: number;
}

export interface RecallMatch {
  archive_path: string;
  snippet: string;
  score: number;
  metadata: RecallMetadata;
}

export interface RecallMetadata {
  session_id: string;
  source: SourceName;
  project: string | null;
  cwd: string | null;
  branch: string | null;
  /** Matched records' own ids, in rank order. */
  message_ids: string[];
  /** ISO UTC timestamps of the matched records, parallel to message_ids. */
  timestamps: (string | null)[];
  roles: Role[];
  tools: (string | null)[];
  match_count: number;
  session_start: string | null;
  session_end: string | null;
  [key: string]: unknown;
}
