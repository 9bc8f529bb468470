import type { SharedReach } from '../records/sharing.js';
import type { LongTermMemory, MemoryProvenance, MemoryVersion, NewMemory, ReviewState } from '../records/long-term.js';
import type { ArchiveRecord, CompactionAnchor, Entry } from '../model.js';
import type { FactFold, FactFoldState, FixEvent, FixEventFilter } from '../records/fixes.js';
import type { DigestHit, RunDigest } from '../records/digests.js';
import type { MarkerQuery, MarkerSync, StoredMarker } from '../markers/types.js';
import type {
  Candidate,
  EmbeddingModel,
  FailureRecord,
  FileCommit,
  FileState,
  ForgetSelector,
  ForgottenSession,
  LexicalQuery,
  PendingEmbedding,
  RunRecord,
  SessionExtras,
  SessionFieldDoc,
  SessionFieldPosting,
  SessionFieldStats,
  SessionField,
  SessionListFilter,
  SessionMatch,
  SessionPlace,
  SessionSummary,
  SessionTerms,
  StoreStats,
  StoredSession,
  TimeSearch,
  Tombstone,
  VectorQuery,
} from './types.js';
import type { DocFile, DocHit, DocQuery, DocSection } from './types.js';

/**
 * The store ports: the only way ingest, search, browse and maintenance reach persisted data. Small interfaces,
 * one concern each, every method async, so an engine may sit in this process (SQLite) or across a network
 * (PostgreSQL). Later planes (long-term memory, run digests, the history index) add a port of their own
 * beside these rather than growing one interface. Ranking policy is not here: what gets indexed for an entry is
 * built by `index-document.ts` and the fused ranking by `search/`, the same code for every engine.
 */

/**
 * What a write transaction can do: read what indexing a file needs (seeing this transaction's own writes) and
 * commit whole files.
 */
export interface IngestTx {
  /** The machine this engine indexes for when several share it (PostgreSQL), or null (the embedded file). */
  readonly machine: string | null;
  getFile(path: string): Promise<FileState | null>;
  /** The record keys a session holds: whether another copy of its transcript adds anything. */
  listEntryKeys(sessionId: string): Promise<string[]>;
  getSession(id: string): Promise<StoredSession | null>;
  /** Whether the session was forgotten (a tombstone): its file is recorded as excluded, nothing indexed. */
  isForgotten(sessionId: string): Promise<boolean>;
  /** Everything one file contributes, applied whole; throws and leaves nothing behind on failure. */
  commitFile(change: FileCommit): Promise<void>;
}

export interface IngestPort {
  getFile(path: string): Promise<FileState | null>;
  listFiles(): Promise<FileState[]>;
  /**
   * Several files in one transaction (fewer, larger index flushes). If `work` throws, nothing it committed
   * stays; the caller may retry file by file. A second writer waits for the first.
   */
  transaction<T>(work: (tx: IngestTx) => Promise<T>): Promise<T>;
  getSession(id: string): Promise<StoredSession | null>;
  listSessions(): Promise<StoredSession[]>;
  listEntries(sessionId: string): Promise<Entry[]>;
  listAnchors(sessionId: string): Promise<CompactionAnchor[]>;
  markProjected(sessionId: string, projectionPath: string): Promise<void>;
  /**
   * Pass every stored archive and projection path of this machine's sessions through `rewrite` and store what
   * changed, in one transaction (converting a home's paths to home-relative ones). Returns how many rows changed.
   */
  rewriteSessionPaths(rewrite: (stored: string) => string): Promise<number>;
  /** Record sessions' candidate keyword terms (each replacing what it had), all in one transaction. */
  putSessionTerms(items: readonly SessionTerms[]): Promise<void>;
  /** How many sessions there are, and for each term how many sessions recorded it. */
  countSessionTerms(terms: readonly string[]): Promise<{ sessionCount: number; counts: Map<string, number> }>;
  /** SessionFieldPort.put: sessions' fields, written where their projections are. */
  putSessionFields(docs: readonly SessionFieldDoc[]): Promise<void>;
  /** SessionFieldPort.listStale: sessions whose fields are missing or older than `version`. */
  listStaleSessionFields(version: number): Promise<string[]>;
  /**
   * Hand every archived (session, hash) pair whose ledger line is not written yet to `append`, then mark them
   * written, under the write lock: of two processes, exactly one writes each line. Returns how many.
   */
  flushLedger(append: (record: ArchiveRecord) => void): Promise<number>;
  listFailures(): Promise<FailureRecord[]>;
  putFailure(failure: FailureRecord): Promise<void>;
  clearFailure(key: string): Promise<void>;
}

/** Candidate lists for recall; every filter is applied before the top-k is taken. */
export interface SearchPort {
  searchLexical(query: LexicalQuery): Promise<Candidate[]>;
  /** Whether any entry matches the term in the word index (stemmed, whole words). */
  hasLexicalMatch(term: string): Promise<boolean>;
  /** Substring matches of `any` (3+ characters) over identifiers, paths, partial words and CJK. */
  searchTrigram(query: LexicalQuery): Promise<Candidate[]>;
  /** Entries inside the filters' time windows, nearest the center first (newest first without a center). */
  searchTime(query: TimeSearch): Promise<Candidate[]>;
  /** Earliest and latest entry times, or null for an empty index. */
  readTimeBounds(): Promise<{ startMs: number; endMs: number } | null>;
  getSession(id: string): Promise<StoredSession | null>;
}

export interface VectorPort {
  getModel(): Promise<EmbeddingModel | null>;
  /** Switch the vector model: vectors of any other model are dropped (they cannot be compared). */
  setModel(model: EmbeddingModel): Promise<void>;
  listPending(limit: number): Promise<PendingEmbedding[]>;
  put(items: { rowid: number; vector: Float32Array }[]): Promise<void>;
  count(): Promise<number>;
  /** Nearest entries by cosine distance (filters applied before the top-k). */
  search(query: VectorQuery): Promise<Candidate[]>;
}

/** What `moon sessions` and `moon show` read, and the agent interfaces (timeline, entries by id, scope). */
export interface BrowsePort {
  /** Sessions matching the filter, newest first: their own records, without the counts a summary reads. */
  listSessionRecords(filter: SessionListFilter): Promise<StoredSession[]>;
  /** The same sessions, each with its message count, tools and first prompt. */
  listSessionSummaries(filter: SessionListFilter): Promise<SessionSummary[]>;
  /**
   * Sessions whose id equals or starts with `prefix` (case-sensitive; no character is a wildcard), at most `limit`
   * of them: the exact match first, then by id. What the session-id resolver (browse/resolve-session-id.ts) asks.
   */
  findSessionsByPrefix(prefix: string, limit: number): Promise<SessionMatch[]>;
  getSession(id: string): Promise<StoredSession | null>;
  listEntries(sessionId: string): Promise<Entry[]>;
  /**
   * Entries whose own id (recall's `metadata.message_ids`) is one of `ids`, in `sessionId` when given, else in
   * any session (an id may occur in several: Codex line ids do). Ordered by session id, then session order; an
   * id that matches nothing is simply absent.
   */
  getEntriesByIds(ids: readonly string[], sessionId?: string): Promise<Entry[]>;
  /** Every session's id, working directory and project, by id: what a caller's project scope is matched against. */
  listSessionPlaces(): Promise<SessionPlace[]>;
}

export interface StatsPort {
  stats(): Promise<StoreStats>;
  recordRun(run: RunRecord): Promise<void>;
  /** The engine's own consistency check: [] when sound, else what it found (first problems only). */
  checkIntegrity(): Promise<string[]>;
}

/**
 * Taking things back. Forgetting removes a session's entries, index rows, vectors and anchors, marks its file
 * states excluded ('forgotten', no parse state), and leaves a tombstone in the engine, so no machine sharing it
 * indexes the session again.
 */
export interface ForgetPort {
  /** Ids of the sessions a selector names (a named id that does not exist is not returned). */
  findSessions(selector: ForgetSelector): Promise<string[]>;
  forget(sessionIds: readonly string[], reason: string, atMs: number): Promise<ForgottenSession[]>;
  listTombstones(): Promise<Tombstone[]>;
}

/**
 * Copying a whole index to another engine (`moon migrate`) without reading transcripts again: what a FileCommit
 * cannot carry, read from one engine and written to the other, and a record of what was copied so an
 * interrupted copy resumes where it stopped.
 */
export interface CopyPort {
  readSessionExtras(sessionId: string): Promise<SessionExtras>;
  /** Keyword terms, vectors (by record key) and archived pairs, after the session's entries are committed. */
  writeSessionExtras(sessionId: string, extras: Omit<SessionExtras, 'usage'>): Promise<void>;
  listRuns(): Promise<RunRecord[]>;
  /** Sessions copied here from `source` (an engine's location), with the content hash each had then. */
  listCopied(source: string): Promise<Map<string, string | null>>;
  markCopied(source: string, sessionId: string, contentHash: string | null): Promise<void>;
}

/**
 * Fix patterns (seed 003, plane B): the facts indexing found in each session — errors by signature, passing
 * commands, edits, claims, commits, reverts (src/records/fixes.ts). Patterns are derived from them when read
 * (src/fixes/patterns.ts), so facts of a session indexed later can verify or make stale those of an earlier one.
 */
export interface FixPort {
  /** Replace everything one session contributed (idempotent: indexing a session again replaces its facts). */
  putSessionEvents(sessionId: string, events: readonly FixEvent[]): Promise<void>;
  /** Facts of the namespaces asked for (every namespace when null), of sessions still indexed, in order. */
  listEvents(filter: FixEventFilter): Promise<FixEvent[]>;
  /** Namespaces that have any facts, sorted. */
  listNamespaces(): Promise<string[]>;
  /**
   * The namespace's facts version, and the fold saved for it by `build` if any (a reader then skips listEvents and
   * the walk). Read the version before the facts a fold is made of.
   */
  readFold(namespace: string, build: string): Promise<FactFoldState>;
  /**
   * Keep a fold for the next reader: saved only while `fold.version` is still the namespace's version, and never
   * waiting for another writer (false when not saved). Removed with the facts it was made of, so a forgotten
   * session's text does not outlive it here.
   */
  putFold(namespace: string, fold: FactFold): Promise<boolean>;
}

/**
 * Run digests (plane B): one per session, replaced when the session's content hash changes. Every read takes
 * `nowMs`: a digest whose `expires_at_ms` is at or before it is not returned.
 */
export interface DigestPort {
  /**
   * Store a digest. `unchanged` when the session already has one of the same content hash and producer (the
   * call is idempotent), `inserted` for a new session, `replaced` when it had another.
   */
  put(digest: RunDigest): Promise<'inserted' | 'replaced' | 'unchanged'>;
  get(sessionId: string, nowMs: number): Promise<RunDigest | null>;
  /** Newest first (created_at_ms, then session id); `namespace` null: every namespace. */
  list(query: { namespace: string | null; limit: number; nowMs: number }): Promise<RunDigest[]>;
  /**
   * The engine's full-text search over every digest line (any word matches; best first). `namespace` null:
   * every namespace; otherwise nothing of another namespace is returned.
   */
  search(query: { text: string; namespace: string | null; limit: number; nowMs: number }): Promise<DigestHit[]>;
  /** Drop the digests of these sessions (forgetting them) and any past their expiry; returns how many. */
  remove(selector: { sessionIds?: readonly string[]; expiredAtMs?: number }): Promise<number>;
}

/**
 * `@/` semantic markers (seed 004 §2) as a dimension of the index: every entry's markers are derived from its
 * stored text by the engine in the transaction that writes the entry (markers/entry-markers.ts, with the patterns
 * the engine was opened with), replaced when the entry changes and removed with it (a re-read or forgotten
 * session). Recall filters on them (SearchFilters.markerTypes) inside the ranking query.
 */
export interface MarkerPort {
  /** Newest first; `words` narrows to markers whose text holds every word. */
  list(query: MarkerQuery): Promise<StoredMarker[]>;
  /** How many markers of each type the query's other criteria match (types and limit ignored), by type. */
  countByType(query: Omit<MarkerQuery, 'limit' | 'types'>): Promise<Record<string, number>>;
  /**
   * Derive every entry's markers again, in one transaction, when the stored ones were derived with other patterns
   * or rules (or before markers existed); nothing when they are current.
   */
  sync(): Promise<MarkerSync>;
}

/** Which long-term memories a list or search returns. Expired entries (expires_at ≤ nowMs) never are. */
export interface MemoryQuery {
  /** One namespace, or null for every namespace (`--all-namespaces`). */
  namespaceId: string | null;
  /**
   * Also the entries other namespaces share with this one (src/records/sharing.ts): `user`-scoped ones of every
   * namespace, `team`-scoped ones whose namespace starts with `teamPrefix`. Absent: the namespace's own entries only.
   */
  shared?: SharedReach;
  /** Review states to include (default: all three). */
  states?: readonly ReviewState[];
  nowMs: number;
  limit?: number;
}

/**
 * Long-term memory (plane C). Entries are stored whole; versions keep every replaced text. Duplicate merging is
 * policy (src/memory/dedupe.ts), applied by the caller before `add`; the port only stores.
 */
export interface MemoryPort {
  add(memory: NewMemory): Promise<LongTermMemory>;
  /**
   * Add `memory`, or — when `pick` names one of its namespace's live draft or approved entries as the one it
   * duplicates — add its provenance to that entry instead. One step: a second writer of the namespace waits, so
   * two processes adding the same text make one entry. `created_at_ms` is the time of the step.
   */
  addOrMerge(memory: NewMemory, pick: (candidates: LongTermMemory[]) => LongTermMemory | null): Promise<{ memory: LongTermMemory; outcome: 'created' | 'merged' | 'unchanged' }>;
  /** The entry, or null when it does not exist or has expired. */
  get(id: string, nowMs: number): Promise<LongTermMemory | null>;
  /** Replace the text; the previous text becomes a version row. Null when there is no such live entry. */
  edit(id: string, text: string, atMs: number): Promise<LongTermMemory | null>;
  setState(id: string, state: ReviewState, atMs: number): Promise<LongTermMemory | null>;
  /** Add provenance (a merged duplicate's), unioned with what the entry has. */
  addProvenance(id: string, provenance: readonly MemoryProvenance[], atMs: number): Promise<LongTermMemory | null>;
  /** Newest first (updated time, then id). */
  list(query: MemoryQuery): Promise<LongTermMemory[]>;
  /** Entries holding every word of `text` (case-insensitive), newest first; deprecated ones included unless filtered. */
  search(text: string, query: MemoryQuery): Promise<LongTermMemory[]>;
  /** The replaced texts of an entry, oldest first. */
  versions(id: string): Promise<MemoryVersion[]>;
  /** Delete entries (and their versions) expired at `nowMs`; returns how many. */
  purgeExpired(nowMs: number): Promise<number>;
  /** Every entry (expired ones too) and every version: what `moon rebuild` carries into the new index. */
  dump(): Promise<MemoryDump>;
  /** Write a dump's rows; an id already present is left as it is. Returns how many entries were added. */
  restore(dump: MemoryDump): Promise<number>;
}

export interface MemoryDump {
  memories: LongTermMemory[];
  versions: MemoryVersion[];
}

/**
 * The documents plane (seed 003 §4.4): the repository's own markdown and text docs, as `doc` records cut into
 * sections, with full-text search. Rows are keyed by (namespace, path, section); a file is replaced whole, so
 * `moon docs index` can skip a file whose content hash it already holds.
 */
export interface DocPort {
  /** The files a namespace has indexed, with the content hash each was indexed at. */
  listDocFiles(namespaceId: string): Promise<DocFile[]>;
  /** Replace each named file's sections with the given ones (an empty list removes the file), in one transaction. */
  replaceDocFiles(namespaceId: string, files: readonly { path: string; sections: readonly DocSection[] }[]): Promise<void>;
  /** Every section of a namespace (null: of all), by namespace, path and section: what `moon rebuild` carries over. */
  readDocs(namespaceId: string | null): Promise<DocSection[]>;
  /** Sections matching any of the query's words, best first; a namespace of null searches every namespace. */
  searchDocs(query: DocQuery): Promise<DocHit[]>;
}

export type EngineName = 'sqlite' | 'postgres';

/** One opened store: its ports, and how to close it. The composition root picks the engine; nothing else does. */
/**
 * The fields a session is summarised by (src/fields/): written where its projection is, read by recall to rank
 * sessions beside their messages. Ranking is not here (fields/rank-sessions.ts): an engine hands back counts and
 * postings, the same on every engine, and the same code scores them.
 */
export interface SessionFieldPort {
  /** Replace each session's fields whole (a session that no longer exists is skipped). */
  put(docs: readonly SessionFieldDoc[]): Promise<void>;
  readStats(): Promise<SessionFieldStats>;
  /** For each term: how many (session, field) postings it has in `fields`, and in how many sessions. */
  countTerms(terms: readonly string[], fields: readonly SessionField[]): Promise<Map<string, { postings: number; sessions: number }>>;
  /** Every posting of these terms in `fields`, ordered by term, session, field. */
  listPostings(terms: readonly string[], fields: readonly SessionField[]): Promise<SessionFieldPosting[]>;
  /** The texts of these sessions' fields (explain quotes them); a session without fields is absent. */
  readTexts(sessionIds: readonly string[]): Promise<Map<string, Record<SessionField, string>>>;
  /** Ids of sessions whose fields are missing or were made by an older builder than `version`. */
  listStale(version: number): Promise<string[]>;
}

export interface StoreEngine {
  readonly name: EngineName;
  /** Where the data lives, for messages: a file path, or a URL without its password. */
  readonly location: string;
  readonly ingest: IngestPort;
  readonly search: SearchPort;
  readonly vectors: VectorPort;
  readonly browse: BrowsePort;
  readonly stats: StatsPort;
  readonly forget: ForgetPort;
  readonly copy: CopyPort;
  readonly fixes: FixPort;
  readonly digests: DigestPort;
  readonly memories: MemoryPort;
  readonly docs: DocPort;
  readonly markers: MarkerPort;
  readonly fields: SessionFieldPort;
  close(): Promise<void>;
}
