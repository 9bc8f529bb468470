/**
 * The one normalized model every stage speaks. Sources produce it, normalize/ cleans it, project/ renders it,
 * store/ persists it and search/ returns it. Timestamps are epoch milliseconds (UTC) or null when unknown.
 */

/**
 * The format a session was read from: one of `SOURCE_NAMES`, which the registry (`sources/index.ts`) derives
 * from its adapters, so a new format needs no change here. Checked where a name comes in (`validateSource`).
 */
export type SourceName = string;

export type Role = 'user' | 'assistant' | 'tool' | 'system';
export const ROLES: readonly Role[] = ['user', 'assistant', 'tool', 'system'];

/** Side-effect priority of a tool action (seed 000 §3.5): writes, edits, exec and config patches are high. */
export const PRIORITIES = ['high', 'normal'] as const;
export type Priority = (typeof PRIORITIES)[number];

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
  /** The session's own title (Claude Code `summary`/`custom-title` records, Codex thread names), or null. */
  title: string | null;
  /** For subagent transcripts: the agent's type and the task it was given (Claude Code `.meta.json`). */
  agentType: string | null;
  agentDescription: string | null;
}

/** The session fields a source may leave unknown; they default to null. */
export type SessionCore = Omit<Session, 'title' | 'agentType' | 'agentDescription'>;

export function createSession(fields: SessionCore & Partial<Session>): Session {
  return { title: null, agentType: null, agentDescription: null, ...fields };
}

/**
 * What an entry is beyond its role: a reply or message (null), the model's reasoning (searchable, never shown
 * as a reply), or a recap the harness wrote of what happened (Claude Code `away_summary`) — an outcome line.
 */
export type EntryKind = 'reasoning' | 'recap';

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
  kind: EntryKind | null;
  /** Structured outcome of a tool call, when the provider states it (exit code, wall time, status). */
  exitCode: number | null;
  durationMs: number | null;
  /** The provider's own word for how the call ended: `completed`, `failed`, `error`, `interrupted`, ... */
  status: string | null;
}

/** The fields every entry states; the rest default to "no tool, no result, no parent". */
export type EntryCore = Pick<Entry, 'id' | 'key' | 'sessionId' | 'seq' | 'line' | 'ts' | 'role' | 'text'>;

/** An entry from its core fields, with the optional ones null (or false) unless given. */
export function createEntry(fields: EntryCore & Partial<Entry>): Entry {
  return holdOutcomeNumbers({
    toolName: null,
    toolTarget: null,
    priority: null,
    result: null,
    resultId: null,
    parentId: null,
    sidechain: false,
    kind: null,
    exitCode: null,
    durationMs: null,
    status: null,
    ...fields,
  });
}

/**
 * The one rule for the outcome numbers a transcript states, for an entry and for a result: an exit code is a
 * whole number a 32-bit column holds, a duration whole non-negative milliseconds below 2^53; anything else
 * (1e308 s, Infinity, 1.5) is not stated. Sets the fields of `value` in place (a field it leaves out stays out)
 * and returns it.
 */
export function holdOutcomeNumbers<T extends { exitCode?: number | null; durationMs?: number | null }>(value: T): T {
  if (value.exitCode !== undefined) value.exitCode = toExitCode(value.exitCode);
  if (value.durationMs !== undefined) value.durationMs = toDurationMs(value.durationMs);
  return value;
}

function toExitCode(value: number | null): number | null {
  return Number.isInteger(value) && Math.abs(value as number) <= 2 ** 31 - 1 ? (value as number) : null;
}

function toDurationMs(value: number | null): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return null;
  const ms = Math.round(value);
  return ms <= Number.MAX_SAFE_INTEGER ? ms : null;
}

/**
 * What a tool result adds to its call: the output text (null when the record states only the outcome, like
 * Codex `exec_command_end` after the output arrived), where it came from, and the structured outcome.
 * `append` continues output that arrives in pieces (Codex unified exec: `write_stdin` polls of one process).
 */
export interface ToolResult {
  result: string | null;
  resultId: string | null;
  exitCode?: number | null;
  durationMs?: number | null;
  status?: string | null;
  append?: boolean;
}

/** A tool result whose call entry was emitted by an earlier chunk of the same file. */
export interface ResultPatch extends ToolResult {
  /** Key of the tool entry to attach to. */
  key: string;
}

/** The one rule for putting a result onto its call, used by the adapters' chunk builder and by every store. */
export function mergeResultInto(call: Entry, patch: ToolResult): void {
  if (patch.result !== null) {
    call.result = patch.append && call.result ? joinText(call.result, patch.result, '\n') : patch.result;
    call.resultId = call.resultId ?? patch.resultId;
    if (!patch.append) call.resultId = patch.resultId ?? call.resultId;
  }
  if (patch.exitCode !== undefined && patch.exitCode !== null) call.exitCode = patch.exitCode;
  if (patch.durationMs !== undefined && patch.durationMs !== null) call.durationMs = patch.durationMs;
  if (patch.status !== undefined && patch.status !== null) call.status = patch.status;
}

/**
 * The one rule for continuing a message by key (streamed blocks of one API message, a later chunk of a growing
 * file): text appended, the first target, priority and kind kept, the latest result and outcome taken.
 */
export function mergeEntryInto(existing: Entry, entry: Entry): void {
  existing.text = joinText(existing.text, entry.text, '\n\n');
  existing.result = entry.result ?? existing.result;
  existing.resultId = entry.resultId ?? existing.resultId;
  existing.toolTarget = existing.toolTarget ?? entry.toolTarget;
  existing.priority = existing.priority ?? entry.priority;
  existing.kind = existing.kind ?? entry.kind;
  existing.exitCode = entry.exitCode ?? existing.exitCode;
  existing.durationMs = entry.durationMs ?? existing.durationMs;
  existing.status = entry.status ?? existing.status;
}

/**
 * The store's upsert, in memory: entries sharing a key continue one message (mergeEntryInto), then results
 * attach to their calls by key (mergeResultInto); a result whose call is not among `entries` is left out.
 * Keyed by entry key, in first-seen order; the entries passed in are not changed.
 */
export function mergeByKey(entries: readonly Entry[], results: readonly ResultPatch[] = []): Map<string, Entry> {
  const merged = new Map<string, Entry>();
  for (const entry of entries) {
    const known = merged.get(entry.key);
    if (known) mergeEntryInto(known, entry);
    else merged.set(entry.key, { ...entry });
  }
  for (const patch of results) {
    const known = merged.get(patch.key);
    if (known) mergeResultInto(known, patch);
  }
  return merged;
}

function joinText(before: string, after: string, separator: string): string {
  if (!before) return after;
  if (!after) return before;
  return `${before}${separator}${after}`;
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

/**
 * Seed 001 SessionUsageSnapshot as `moon usage` reads it from a transcript's own usage fields: the index's
 * UsageSnapshot plus the model the numbers came from, when the transcript names it.
 */
export interface SessionUsageSnapshot extends UsageSnapshot {
  model?: string;
}

/** Seed 001 ContinuityMap (`moon continuity`): what a new session needs to pick up where another left off. */
export interface ContinuityMap {
  source_session_id: string;
  target_session_id: string;
  /** The source session's raw archive copies, then its projection; never empty. Relative to $MOON_HOME when inside it. */
  archive_refs: string[];
  /** Daily memory files (`memory/YYYY-MM-DD.md`, relative to $MOON_HOME) holding a block of the source session, by name. */
  daily_memory_refs: string[];
  key_decisions: string[];
  generated_at_epoch_secs: number;
}

/**
 * Seed 001 ArchiveRecord (one line of archives/ledger.jsonl). On disk `archive_path` is relative to $MOON_HOME;
 * Ledger.records() hands it back resolved against the home in use.
 */
export interface ArchiveRecord {
  session_id: string;
  archive_path: string;
  content_hash: string;
  created_at_epoch_secs: number;
  indexed_collection: string;
  projection_filtered_noise_count: number | null;
}

/**
 * Seed 001 DistillationRecord: one per L1 block written or L2 run (failed ones included). `provider` is
 * `l1-normaliser` for L1; for L2 the LLM provider's name. An L2 run covers a day, not a session: its
 * `session_id` is `daily:YYYY-MM-DD` and its `archive_path` the daily file it read first.
 */
export interface DistillationRecord {
  session_id: string;
  archive_path: string;
  provider: string;
  summary_path: string;
  audit_log_path: string;
  created_at_epoch_secs: number;
}

/** Seed 001 RecallResult — a public contract: tools and benchmarks parse it. */
export interface RecallResult {
  query: string;
  matches: RecallMatch[];
  generated_at_epoch_secs: number;
  /** Present only when part of the query was not searched (over MAX_QUERY_CHARS or MAX_QUERY_TERMS). */
  notes?: string[];
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

/**
 * Add to a named count. Names come from transcripts (record types, filter reasons), so an own-property check
 * keeps "valueOf" or "constructor" from reading Object.prototype, and the count is defined rather than assigned
 * so "__proto__" is a count like any other (an assignment would try to set the prototype).
 */
export function addCount(counts: Record<string, number>, name: string, by = 1): void {
  const value = (Object.hasOwn(counts, name) ? (counts[name] as number) : 0) + by;
  Object.defineProperty(counts, name, { value, enumerable: true, writable: true, configurable: true });
}
