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

/**
 * A transcript of JSON lines, appended to as the agent works (Claude Code, Codex, OpenClaw): read in chunks from
 * the last committed byte offset, one session per file.
 */
export interface Source {
  readonly kind?: 'records';
  readonly name: SourceName;
  /** How people call it, for messages ("Claude Code"). */
  readonly label: string;
  /** Names of the files discovery lists for this format (discovery is by name; the format is decided by content). */
  readonly fileName: RegExp;
  /** True when the first parsed records of a file look like this format. Decided by content, never by path. */
  detect(head: readonly unknown[]): boolean;
  /** Turn a run of records (a whole file, or the part appended since the last run) into the normalized model. */
  parse(records: readonly RawRecord[], context: SourceContext): ParsedChunk;
}

/** Files at or above this size are streamed (`DocumentSource.streamDocument`), never parsed whole (seed 004). */
export const DOCUMENT_STREAM_BYTES = 50 * 1024 * 1024;

/** One piece of a document's session (a Puffin prompt with its response) and a hash of its content. */
export interface DocumentPart {
  id: string;
  hash: string;
}

/** One session a document holds, and what it is made of: a change is told part by part. */
export interface DocumentSession {
  /** The session as a whole read gives it: no carry, not a fork. */
  chunk: ParsedChunk;
  /** Its parts in session order. */
  parts: readonly DocumentPart[];
}

export interface ParsedDocument {
  /** Every session the document holds, in document order; ids unique. */
  sessions: DocumentSession[];
  /** One reason per malformed entry skipped (the rest of the document is read). */
  skipped: string[];
}

/**
 * A whole-file JSON document holding any number of sessions, rewritten whole when it changes (Puffin's
 * `.puffin/history.json`). Ingest reads it whole when its size, mtime and hash changed, and writes only the
 * sessions whose content changed (ingest/read-document.ts). `Doc` is the adapter's own view of the document.
 */
export interface DocumentSource<Doc = unknown> {
  readonly kind: 'document';
  readonly name: SourceName;
  readonly label: string;
  readonly fileName: RegExp;
  /** True when a parsed JSON document is this format. Decided by content, never by path. */
  detect(document: unknown): boolean;
  /** The adapter's view of a document `detect` accepted. */
  readDocument(document: unknown): Doc;
  /**
   * The same view from the bytes of a file at or above DOCUMENT_STREAM_BYTES, without parsing them whole; null
   * when they are well-formed JSON of another kind. Throws SyntaxError on malformed JSON.
   */
  streamDocument(bytes: Uint8Array): Doc | null;
  /** The sessions of a read document. Pure. */
  parseDocument(document: Doc, context: { path: string }): ParsedDocument;
}

/** Every kind of adapter the registry (sources/index.ts) holds. */
export type SourceAdapter = Source | DocumentSource;

export function isDocumentSource(source: SourceAdapter): source is DocumentSource {
  return source.kind === 'document';
}

/** A whole JSON document from its bytes; a UTF-8 byte order mark is allowed, as the streaming reader allows it. */
export function parseJsonDocument(bytes: Uint8Array): unknown {
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + start, bytes.length - start).toString('utf8')) as unknown;
}
