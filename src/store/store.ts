/**
 * The synchronous store the SQLite engine is built on (better-sqlite3 is synchronous). Nothing outside
 * src/store/ uses it: stages reach data through the async ports in ports.ts.
 */
import type { ArchiveRecord, CompactionAnchor, Entry, Role, Session, SourceName, UsageSnapshot } from '../model.js';
import type { ResultPatch } from '../model.js';
import type { FixEvent, FixEventFilter } from '../records/fixes.js';
import type { DocFile, DocHit, DocQuery, DocSection } from './types.js';
import type {
  Candidate, EmbeddingModel, FailureRecord, FileCommit, FileState, LexicalQuery, PendingEmbedding, RunRecord,
  SessionExtras, SessionListFilter, SessionMatch, SessionPlace, SessionSummary, SessionTerms, ForgetSelector, ForgottenSession, Tombstone, StoreStats, StoredSession, TimeSearch, VectorQuery,
} from './types.js';

export * from './types.js';

export interface Store {
  getFile(path: string): FileState | null;
  listFiles(): FileState[];
  commitFile(change: FileCommit): void;
  /**
   * Run several commitFile calls in one transaction (fewer, larger index flushes). Files stay whole: if one
   * fails, commitFile throws BatchAbortedError and the whole batch rolls back; the caller retries file by file.
   */
  batch<T>(work: () => T): T;
  /** The same as batch, for async work: BEGIN IMMEDIATE now, COMMIT or ROLLBACK at endBatch. */
  beginBatch(): void;
  endBatch(outcome: 'commit' | 'rollback'): void;
  getSession(id: string): StoredSession | null;
  listSessions(): StoredSession[];
  /** Sessions matching the filter, newest first: their own records only. */
  listSessionRecords(filter: SessionListFilter): StoredSession[];
  /** Sessions matching the filter, newest first, each with the tools it used. */
  listSessionSummaries(filter: SessionListFilter): SessionSummary[];
  /** Sessions whose id equals or starts with `prefix` (case-sensitive), at most `limit`, the exact one first. */
  findSessionsByPrefix(prefix: string, limit: number): SessionMatch[];
  /**
   * Hand every archived pair whose ledger line is not written yet to `append`, then mark them written, all
   * under the write lock: of two processes, exactly one writes each line. Returns how many were handed over.
   */
  flushLedger(append: (record: ArchiveRecord) => void): number;
  markProjected(sessionId: string, projectionPath: string): void;
  /** IngestPort.rewriteSessionPaths: every session's archive and projection path through `rewrite`, in one transaction. */
  rewriteSessionPaths(rewrite: (stored: string) => string): number;
  listEntries(sessionId: string): Entry[];
  /** Entries by their own ids, in one session or any (BrowsePort.getEntriesByIds). */
  getEntriesByIds(ids: readonly string[], sessionId?: string): Entry[];
  /** Every session's id, cwd and project. */
  listSessionPlaces(): SessionPlace[];
  /** FixPort: replace one session's fix facts; read them by namespace. */
  putFixEvents(sessionId: string, events: readonly FixEvent[]): void;
  listFixEvents(filter: FixEventFilter): FixEvent[];
  listFixNamespaces(): string[];
  listAnchors(sessionId: string): CompactionAnchor[];
  searchLexical(query: LexicalQuery): Candidate[];
  /** Whether any entry matches the term in the word index (porter-stemmed, whole words). */
  hasLexicalMatch(term: string): boolean;
  /** Substring matches of `any` (3+ characters) over identifiers, paths, partial words and CJK. */
  searchTrigram(query: LexicalQuery): Candidate[];
  /** Nearest entries by cosine distance to the vector (exact, filters applied before the top-k). */
  searchVector(query: VectorQuery): Candidate[];
  /** Entries inside the filters' time windows, nearest the center first (newest first without a center). */
  searchTime(query: TimeSearch): Candidate[];
  /** Record a session's candidate keyword terms (replacing what it had). */
  putSessionTerms(items: readonly SessionTerms[]): void;
  /** How many sessions there are, and for each term how many sessions recorded it. */
  countSessionTerms(terms: readonly string[]): { sessionCount: number; counts: Map<string, number> };
  /** Earliest and latest entry times, or null for an empty index. */
  readTimeBounds(): { startMs: number; endMs: number } | null;
  getEmbeddingModel(): EmbeddingModel | null;
  /** Switch the vector model: vectors of any other model are dropped (they cannot be compared). */
  setEmbeddingModel(model: EmbeddingModel): void;
  listPendingEmbeddings(limit: number): PendingEmbedding[];
  putEmbeddings(items: { rowid: number; vector: Float32Array }[]): void;
  countEmbeddings(): number;
  stats(): StoreStats;
  recordRun(run: RunRecord): void;
  listFailures(): FailureRecord[];
  putFailure(failure: FailureRecord): void;
  clearFailure(key: string): void;
  findForgettable(selector: ForgetSelector): string[];
  forgetSessions(sessionIds: readonly string[], reason: string, atMs: number): ForgottenSession[];
  listTombstones(): Tombstone[];
  isForgotten(sessionId: string): boolean;
  readSessionExtras(sessionId: string): SessionExtras;
  writeSessionExtras(sessionId: string, extras: Omit<SessionExtras, 'usage'>): void;
  listRuns(): RunRecord[];
  listCopied(source: string): Map<string, string | null>;
  markCopied(source: string, sessionId: string, contentHash: string | null): void;
  /** SQLite's own consistency check of the file: [] when sound, else what it found (first problems only). */
  checkIntegrity(): string[];
  /** Finish work a migration left for code (e.g. refill a rebuilt FTS table); called once after opening. */
  finishPendingRebuild?(): void;
  listDocFiles(namespaceId: string): DocFile[];
  replaceDocFiles(namespaceId: string, files: readonly { path: string; sections: readonly DocSection[] }[]): void;
  searchDocs(query: DocQuery): DocHit[];
  readDocs(namespaceId: string | null): DocSection[];
  close(): void;
}
