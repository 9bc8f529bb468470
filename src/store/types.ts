import type { ArchiveRecord, CompactionAnchor, Entry, ResultPatch, Role, Session, SourceName, UsageSnapshot } from '../model.js';
import type { PreparedDocument } from './index-document.js';
import type { RecordEnvelope } from '../records/envelope.js';

/**
 * The shapes the store ports (ports.ts) take and return. Shared by every engine; no engine's types leak out.
 */

/** What the indexer remembers about one transcript file. */
export interface FileState {
  path: string;
  sessionId: string | null;
  source: SourceName | null;
  size: number;
  mtimeMs: number;
  /** sha256 of the bytes [0, offset): lets a grown file prove it was appended to, not rewritten. */
  prefixHash: string;
  /** sha256 of the whole file when it was last seen (the archive's content hash). */
  contentHash: string;
  offset: number;
  line: number;
  carry: unknown;
  /** Why the file is not indexed (e.g. 'fork'), or null. */
  excluded: string | null;
  indexedAtMs: number;
}

export interface StoredSession extends Session {
  /** Which machine's file the session was last read from, when several share the engine (else null/absent). */
  machine?: string | null;
  entryCount: number;
  filteredNoiseCount: number;
  skipped: Record<string, number>;
  archivePath: string | null;
  projectionPath: string | null;
  contentHash: string | null;
  /** The projection must be rewritten (set in the same transaction as new entries). */
  projectionStale: boolean;
}

/** One session's part of a file's commit: its row, its entries merged by key, and the raw copy it stands on. */
export interface SessionWrite {
  session: StoredSession;
  /** Drop what this session had before (the file was rewritten, or a full re-index). */
  reset: boolean;
  entries: Entry[];
  results: ResultPatch[];
  anchors: CompactionAnchor[];
  usage: UsageSnapshot[];
  /**
   * The raw archive copy this commit stands on. Recorded in the same transaction, so its ledger line is
   * written once, after the commit, by whichever process committed it first (Store.flushLedger).
   */
  archived?: ArchiveRecord | null;
  /** The entries' index documents, prepared beside the parse (index-document.ts), by entry key; optional. */
  documents?: ReadonlyMap<string, PreparedDocument>;
}

/** One file's changes, applied in one transaction: a crash never leaves half a file. */
export interface FileCommit extends Omit<SessionWrite, 'session'> {
  file: FileState;
  /** Null when the file holds no session (excluded before parsing), or holds several (`sessions`). */
  session: StoredSession | null;
  /** Drop this file's state in the same transaction: its session was taken over by `file` (after a rebuild). */
  forgetFile?: string | null;
  /**
   * The sessions of a file that holds several (a whole-file document: one per Puffin conversation), each
   * written as `session` is; only those that changed.
   */
  sessions?: readonly SessionWrite[];
  /**
   * Sessions the file no longer holds (a conversation deleted from the document): removed with their entries,
   * index rows, vectors, anchors, usage, terms and fix facts — not tombstoned, so the file may bring them back.
   */
  dropSessions?: readonly string[];
}

/**
 * The fields a session is summarised by (src/fields/): the words a person later uses for the session as a whole,
 * searched beside its messages. Their order is their number in the engines' tables: append only.
 */
export const SESSION_FIELDS = ['title', 'summary', 'digest', 'files', 'errors'] as const;
export type SessionField = (typeof SESSION_FIELDS)[number];
/**
 * The fields recall ranks sessions by unless configured otherwise: those that label the session — its title, the
 * files it touched, the errors it hit — rather than retell it. The summary and the digest are made and stored
 * but left out: they retell the session's own messages (a compaction summary narrates the conversation, its
 * subagents' work included; the digest quotes its first request, decisions and last answer), so ranking sessions by
 * them counts those words twice. Measured (docs/benchmarks.md, issue 34): the summary moved questions about a
 * subagent's work to its parent, whose summary retells it; the digest lowered pooled LongMemEval dev from 0.557 to
 * 0.504 recall_all@5 and LoCoMo dev turn R@5 from 0.708 to 0.700.
 */
export const DEFAULT_SESSION_FIELDS: readonly SessionField[] = ['title', 'files', 'errors'];

/** One session's fields as the index holds them: the texts (explain quotes them), and their terms counted. */
export interface SessionFieldDoc {
  sessionId: string;
  /** The builder's version (fields/field-doc.ts FIELDS_VERSION) the texts were made by. */
  version: number;
  texts: Record<SessionField, string>;
  /** Tokens in each field (BM25F's field lengths). */
  lengths: Record<SessionField, number>;
  /** Each (field, term) the fields hold, with how often; terms as the word index tokenizes them. */
  terms: readonly SessionFieldTerm[];
}

export interface SessionFieldTerm {
  field: SessionField;
  term: string;
  tf: number;
}

/** What BM25F needs of the whole corpus: how many sessions have fields, and each field's summed length. */
export interface SessionFieldStats {
  sessions: number;
  totalLengths: Record<SessionField, number>;
}

/** One term's occurrences in one field of one session, with that field's length there. */
export interface SessionFieldPosting extends SessionFieldTerm {
  sessionId: string;
  length: number;
}

/** A session's candidate keyword terms (what its projection ranks its keywords from). */
export interface SessionTerms {
  sessionId: string;
  terms: readonly string[];
}

/**
 * A transcript file (or a session's projection) that failed because of what it holds. It is skipped until it
 * changes — its fingerprint is the file's `size:mtimeMs`, or the session's content hash — so one bad file
 * costs one error, not one on every run.
 */
export interface FailureRecord {
  /** The transcript path, or `projection:<session id>`. */
  key: string;
  kind: 'file' | 'projection';
  /** The file to name in reports: the transcript, or the projection that could not be written. */
  path: string;
  fingerprint: string;
  reason: string;
  failedAtMs: number;
}

/** `moon sessions`: which sessions to list. Times are epoch ms; a session matches when it overlaps [since, until). */
/** Which sessions `moon forget` takes back: named ids, a whole project, or everything that ended before a time. */
export interface ForgetSelector {
  sessionIds?: string[];
  project?: string;
  beforeMs?: number;
}

/** What remains of a forgotten session: enough to refuse it when any machine indexes it again. */
export interface Tombstone {
  sessionId: string;
  project: string | null;
  reason: string;
  forgottenAtMs: number;
}

/** A session removed from the index, with the files outside it that the caller removes too. */
export interface ForgottenSession {
  id: string;
  project: string | null;
  archivePath: string | null;
  projectionPath: string | null;
}

export interface SessionListFilter {
  projects?: string[];
  /** Only these sessions. */
  ids?: readonly string[];
  sources?: SourceName[];
  sinceMs?: number;
  untilMs?: number;
  limit?: number;
}

/**
 * A session whose id starts with a given prefix (`findSessionsByPrefix`), with what tells it apart from the others
 * the prefix matches: when it started, its title, and whether it is a subagent of another session.
 */
export type SessionMatch = Pick<StoredSession, 'id' | 'source' | 'project' | 'title' | 'startMs' | 'parentSessionId'>;

/** Where a session ran: matched against a caller's project (search/scope.ts). */
export interface SessionPlace {
  id: string;
  cwd: string | null;
  project: string | null;
}

export interface SessionSummary extends StoredSession {
  /** User and assistant entries. */
  messages: number;
  /** Tool names used in the session with their call counts, most used first. */
  tools: { name: string; count: number }[];
  /** The start of the first thing the user asked, for sessions without a title. */
  firstPrompt: string | null;
}

export interface TimeWindowFilter {
  startMs: number;
  endMs: number;
}

/**
 * One time of day on every day of [startMs, endMs), for a zone whose UTC offset is `offsetMs` throughout: the
 * local time of day, (ts + offsetMs) mod 24 h, lies in [fromMs, toMs) — or, when fromMs > toMs, wraps past
 * midnight. "05:39 AEDT" on any day is one such filter; a DST zone needs one per offset period.
 */
export interface DailyFilter {
  startMs: number;
  endMs: number;
  offsetMs: number;
  fromMs: number;
  toMs: number;
}

/** Offsets from each session's own start: "2 hours into the session", "early in the session". */
export interface SessionRelativeFilter {
  fromMs?: number;
  toMs?: number;
  fromFraction?: number;
  toFraction?: number;
}

export interface SearchFilters {
  sessionIds?: string[];
  excludeSessionIds?: string[];
  projects?: string[];
  sources?: SourceName[];
  roles?: Role[];
  tools?: string[];
  sinceMs?: number;
  untilMs?: number;
  /** Union of absolute windows (UTC ms, end exclusive). */
  windows?: TimeWindowFilter[];
  /** Times of day on any day; with `windows`, one union: an entry inside either matches. */
  daily?: DailyFilter[];
  sessionRelative?: SessionRelativeFilter;
  /** Entries never to return (recall contamination). */
  excludeRowids?: number[];
  /** Only entries carrying an `@/` marker of one of these types (MarkerPort). */
  markerTypes?: string[];
  /** Only entries of these side-effect priorities (an entry without one never matches). */
  priorities?: string[];
}

/**
 * A lexical query in structured form; each store renders it in its own syntax (FTS5 MATCH, tsquery), so user
 * input never reaches a query language unescaped.
 */
export interface LexicalQuery {
  /** Terms of which at least one must match (OR); ranked by BM25. */
  any: string[];
  /** Terms that must all match. */
  all: string[];
  /** Terms that must not match. */
  none: string[];
  filters: SearchFilters;
  limit: number;
  /** Also match the neighbouring entries' text (document expansion). Default true; the bm25 baseline turns it off. */
  context?: boolean;
  /** Require every `any` term (AND) instead of at least one (OR); ranking is unchanged. */
  every?: boolean;
  /** Match each `any` term's last word as a prefix ("wrangl" finds "wrangler"), after the same stemming. */
  prefix?: boolean;
}

export interface Candidate {
  /** Store-local identity of the entry (stable while the entry exists). */
  rowid: number;
  entry: Entry;
  /** Higher is better; comparable only within one list. */
  score: number;
}

export interface VectorQuery {
  vector: Float32Array;
  filters: SearchFilters;
  /** Terms that must / must not appear, as in LexicalQuery. */
  all: string[];
  none: string[];
  limit: number;
}

export interface TimeSearch {
  filters: SearchFilters;
  all: string[];
  none: string[];
  /** Entries nearest this instant first. */
  centerMs: number | null;
  limit: number;
}

export interface EmbeddingModel {
  id: string;
  dims: number;
}

export interface PendingEmbedding {
  rowid: number;
  entry: Entry;
}

export interface StoreStats {
  sessions: number;
  entries: number;
  files: number;
  anchors: number;
  embeddings: number;
  embeddingModel: EmbeddingModel | null;
  bySource: Record<string, { sessions: number; entries: number }>;
  dbBytes: number;
  lastRun: RunRecord | null;
}

/** What one session holds beyond its entries and anchors, for copying it between engines. */
export interface SessionExtras {
  usage: UsageSnapshot[];
  terms: string[];
  /** Its entries' vectors, by record key (row ids differ between engines). */
  vectors: { key: string; vector: Float32Array }[];
  archived: { record: ArchiveRecord; ledgered: boolean }[];
}

export interface RunRecord {
  startedAtMs: number;
  finishedAtMs: number;
  command: string;
  files: number;
  filesChanged: number;
  entries: number;
  warnings: number;
  errors: number;
}


/** A commitFile inside Store.batch failed; the batch was rolled back as a whole. */
export class BatchAbortedError extends Error {
  constructor(
    readonly path: string,
    override readonly cause: unknown,
  ) {
    super(`batch aborted while committing ${path}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'BatchAbortedError';
  }
}

/** One section of an indexed document: a `doc` record (src/records/envelope.ts) with its place in the file. */
export interface DocSection extends RecordEnvelope {
  record_kind: 'doc';
  /** The file, relative to the namespace's root, with `/` separators. */
  path: string;
  /** Its order in the file, from 0. */
  section: number;
  /** The nearest heading above it (the file name when it has none). */
  heading: string;
  text: string;
  /** The whole file's content hash (sha256, hex) at indexing. */
  content_hash: string;
  /** The first line of the section in the file, from 1. */
  line: number;
}

export interface DocFile {
  path: string;
  content_hash: string;
  sections: number;
}

export interface DocQuery {
  namespace_id: string | null;
  /** Free text: its words are matched (stemmed), any of them. */
  text: string;
  limit: number;
  /** Sections whose expires_at_ms is at or before this are left out. */
  nowMs: number;
}

export interface DocHit {
  section: DocSection;
  /** Higher is better; comparable within one answer only. */
  score: number;
}

/** A PostgreSQL database as `moon doctor` reports it (src/store/postgres/health.ts). */
export interface PostgresHealth {
  /** vector and pg_trgm (required), rum (optional): the version installed in the database, and the server's. */
  extensions: { name: string; installed: string | null; available: string | null; required: boolean }[];
  /** Migrations the database has against those this build knows; null before moon created its schema there. */
  migrations: { applied: number; known: number } | null;
  /** moon's indexes: valid false for one a failed or unfinished concurrent build left behind. */
  indexes: { name: string; table: string; valid: boolean; bytes: number }[];
  /** moon's tables: rows (live, else the planner's estimate), whether they were ever analysed, size with indexes. */
  tables: { name: string; rows: number; analyzed: boolean; bytes: number }[];
  /**
   * The word lists' postings (store/postings/): null before the schema has them; else whether every entry has its
   * own (a migrated database fills them in the background of `moon index`), and how many entries do so far.
   */
  postings: { pending: boolean; entries: number; filled: number } | null;
}
