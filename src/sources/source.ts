import type { CompactionAnchor, Entry, ResultPatch, Session, SourceName, UsageSnapshot } from '../model.js';

export type { ResultPatch } from '../model.js';

/** One parsed JSONL line with its position in the file. */
export interface RawRecord {
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past the line's newline. */
  end: number;
  value: unknown;
}

export interface SourceContext {
  path: string;
  /**
   * JSON-serialisable state the previous chunk of this file left behind (session id, dedupe window, ...),
   * or null on the first read. The store persists it with the file's committed offset.
   */
  carry: unknown;
  /**
   * Parsed JSON of the transcript's companion file, when it has one and it parsed: a Claude Code subagent's
   * `agent-<id>.meta.json` (`{"agentType":"general-purpose","description":"…"}`). Ingest reads it; adapters stay
   * pure and must treat it as untrusted input of any shape.
   */
  sidecar?: unknown;
}


export interface ParsedChunk {
  /** Everything known about the session so far (carry lets later chunks restate it). */
  session: Session;
  /** Raw entries: text not yet unescaped, cleaned, redacted or filtered — normalize/ does that. */
  entries: Entry[];
  results: ResultPatch[];
  anchors: CompactionAnchor[];
  usage: UsageSnapshot[];
  /** Unknown or ignored record types, counted by type name. Never fatal. */
  skipped: Record<string, number>;
  /** Entries dropped as duplicates of another record (e.g. Codex event_msg echoing a response_item). */
  duplicates: number;
  /** Seed 002 session-level filter: the file is a fork session (first record is a queue-operation). */
  fork: boolean;
  carry: unknown;
}

export interface Source {
  readonly name: SourceName;
  /** True when the first parsed records of a file look like this format. Decided by content, never by path. */
  detect(head: readonly unknown[]): boolean;
  /** Turn a run of records (a whole file, or the part appended since the last run) into the normalized model. */
  parse(records: readonly RawRecord[], context: SourceContext): ParsedChunk;
}
