import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { MoonError } from '../../errors.js';
import { type ArchiveRecord, type CompactionAnchor, type Entry, mergeEntryInto, mergeResultInto } from '../../model.js';
import type { ResultPatch } from '../../model.js';
import { COLUMN_WEIGHTS, CONTEXT_RADIUS, type PreparedDocument, buildIndexDocument, buildTrigramDocument } from '../index-document.js';
import * as sqliteVec from 'sqlite-vec';
import { BatchAbortedError } from '../store.js';
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
  SessionListFilter,
  SessionMatch,
  SessionPlace,
  SessionWrite,
  SessionSummary,
  SessionTerms,
  Store,
  StoreStats,
  StoredSession,
  TimeSearch,
  Tombstone,
  VectorQuery,
} from '../store.js';
import { type RenderedFilters, andClauses, joinSessions, renderFilters } from './filters.js';
import { renderFtsTerms } from './fts-query.js';
import { searchSubstrings, searchWords } from './search.js';
import {
  type AnchorRow,
  type EntryRow,
  type FileRow,
  type SessionRow,
  entryParams,
  fileParams,
  sessionParams,
  toAnchor,
  toEntry,
  toFileState,
  toSession,
} from './rows.js';
import { deleteFailureRow, listFailureRows, putFailureRow, quickCheck } from './failures.js';
import { guardStore, toStoreError } from './guard.js';
import { findForgettableSessions, hasTombstone, listTombstoneRows, putTombstone } from './forget.js';
import { migrate } from './schema.js';
import { listFixEvents, listFixNamespaces, putFixEvents } from './fixes.js';
import type { FixEvent, FixEventFilter } from '../../records/fixes.js';
import { listDocFiles, readDocs, replaceDocFiles, searchDocs } from './docs.js';
import { DEFAULT_MARKER_CONFIG, type MarkerConfig } from '../../markers/extract.js';
import { SqliteMarkers } from './markers.js';
import { POSTINGS_PENDING, SqlitePostings, hasAllPostings } from './postings.js';
import { buildHead, buildOwnPostings } from '../postings/entry-postings.js';
import { localNumbering } from '../postings/term-numbering.js';
import type { DocFile, DocHit, DocQuery, DocSection } from '../types.js';
import type { MarkerQuery, MarkerSync, StoredMarker } from '../../markers/types.js';
import { runFromColumns } from '../row-mapping.js';
import { listCopied, listRuns, markCopied, readSessionExtras, writeSessionExtras } from './copy.js';
import { listSessionRecords, listSessionSummaries } from './session-list.js';
import { type WriteLockOptions, beginWrite, endWrite, retryWhileLocked, runWriteTransaction } from './write-lock.js';

export interface OpenStoreOptions {
  readonly?: boolean;
  /** How long a writer waits in total for another process's write transaction (default 5 minutes). */
  lockTimeoutMs?: number;
  /** The lock timeout bounds the waits of all this store's writes together, not each one's (a hook's capture). */
  lockTimeoutInAll?: boolean;
  /** Told once when this process starts waiting for another writer. */
  onWait?: (message: string) => void;
  /** The `@/` marker patterns every committed entry is read with (default: seed 004's nine types). */
  markers?: MarkerConfig;
}

const DEFAULT_LOCK_TIMEOUT_MS = 5 * 60 * 1000;
/** One attempt's wait inside SQLite; the write-lock loop retries attempts up to the lock timeout. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * The connection, its write lock and its write transaction, for the planes that keep tables of their own in this
 * file (digests, memories): their statements run on this store's file under the same lock.
 */
export interface PlaneHandle {
  db: Database.Database;
  lock: WriteLockOptions;
  /** Run `work` in a write transaction (or inside the one already open). */
  write<T>(work: () => T): T;
}

export interface PlaneAccess {
  planeAccess(): PlaneHandle;
}

/** How much of the index file is read through a memory map. */
const MMAP_BYTES = 2 ** 31;

export function openSqliteStore(path: string, options: OpenStoreOptions = {}): Store & PlaneAccess & MarkerAccess {
  if (options.readonly && !existsSync(path)) {
    throw new MoonError('not_found', `no index at ${path}`, { hint: 'run `moon index` first' });
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const created = !existsSync(path);
  const timeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const lock: WriteLockOptions = { path, timeoutMs, onWait: options.onWait, ...(options.lockTimeoutInAll ? { shared: { waitedMs: 0 } } : {}) };
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: options.readonly ?? false });
    // The index holds conversation text (redacted, but still private): owner-only, like the archives.
    if (created) chmodSync(path, 0o600);
    // Several attempts fit in the lock timeout, so the "waiting for" notice comes before the final error.
    db.pragma(`busy_timeout = ${Math.max(50, Math.min(BUSY_TIMEOUT_MS, Math.floor(lock.timeoutMs / 4)))}`);
    // Pages are read through a memory map rather than one read() each into SQLite's cache: a hook is a new process
    // whose cache is empty, and its first query reads thousands of pages the system already holds (about half the
    // time of a project-scoped recall in a new process; docs/benchmarks.md). SQLite caps it at its compiled limit.
    db.pragma(`mmap_size = ${MMAP_BYTES}`);
    if (!options.readonly) {
      const opened = db;
      retryWhileLocked(opened, () => opened.pragma('journal_mode = WAL'), lock);
      db.pragma('synchronous = NORMAL');
      migrate(db, lock);
    }
  } catch (error) {
    if (error instanceof MoonError) throw error;
    const mapped = toStoreError(path, error);
    if (mapped instanceof MoonError) throw mapped;
    throw new MoonError('store', `cannot open index ${path}: ${(error as Error).message}`, { cause: error });
  }
  const store = guardStore(new SqliteStore(db, path, lock, options.markers ?? DEFAULT_MARKER_CONFIG), path);
  if (!options.readonly) store.finishPendingRebuild?.();
  return store;
}

/** The markers table's reads and its sync, on the store's connection (errors mapped like every store call). */
export interface MarkerAccess {
  listMarkers(query: MarkerQuery): StoredMarker[];
  countMarkersByType(query: Omit<MarkerQuery, 'limit' | 'types'>): Record<string, number>;
  syncMarkers(): MarkerSync;
}

class SqliteStore implements Store, PlaneAccess, MarkerAccess {
  private readonly statements;
  private batching = false;
  private readonly markers: SqliteMarkers;
  private readonly postings: SqlitePostings;

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
    private readonly lock: WriteLockOptions,
    markerConfig: MarkerConfig,
  ) {
    this.markers = new SqliteMarkers(db, markerConfig);
    this.postings = new SqlitePostings(db);
    this.statements = {
      getFile: db.prepare<[string], FileRow>('SELECT * FROM files WHERE path = ?'),
      listFiles: db.prepare<[], FileRow>('SELECT * FROM files ORDER BY path'),
      putFile: db.prepare(
        `INSERT INTO files (path, session_id, source, size, mtime_ms, prefix_hash, content_hash, offset, line, carry, excluded, indexed_ms)
         VALUES (@path, @session_id, @source, @size, @mtime_ms, @prefix_hash, @content_hash, @offset, @line, @carry, @excluded, @indexed_ms)
         ON CONFLICT(path) DO UPDATE SET session_id = excluded.session_id, source = excluded.source, size = excluded.size,
           mtime_ms = excluded.mtime_ms, prefix_hash = excluded.prefix_hash, content_hash = excluded.content_hash,
           offset = excluded.offset, line = excluded.line, carry = excluded.carry, excluded = excluded.excluded,
           indexed_ms = excluded.indexed_ms`,
      ),
      getSession: db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE id = ?'),
      listSessions: db.prepare<[], SessionRow>('SELECT * FROM sessions ORDER BY start_ms, id'),
      putSession: db.prepare(
        `INSERT INTO sessions (id, source, path, project, cwd, branch, parent_id, start_ms, end_ms, filtered_count, skipped,
           archive_path, projection_path, content_hash, projection_stale, title, agent_type, agent_description)
         VALUES (@id, @source, @path, @project, @cwd, @branch, @parent_id, @start_ms, @end_ms, @filtered_count, @skipped,
           @archive_path, @projection_path, @content_hash, 1, @title, @agent_type, @agent_description)
         ON CONFLICT(id) DO UPDATE SET source = excluded.source, path = excluded.path, project = excluded.project,
           cwd = excluded.cwd, branch = excluded.branch, parent_id = excluded.parent_id, start_ms = excluded.start_ms,
           end_ms = excluded.end_ms, filtered_count = excluded.filtered_count, skipped = excluded.skipped,
           archive_path = excluded.archive_path, content_hash = excluded.content_hash, projection_stale = 1,
           title = coalesce(excluded.title, sessions.title), agent_type = coalesce(excluded.agent_type, sessions.agent_type),
           agent_description = coalesce(excluded.agent_description, sessions.agent_description)`,
      ),
      countEntries: db.prepare<[string, string]>(
        'UPDATE sessions SET entry_count = (SELECT count(*) FROM entries WHERE session_id = ?) WHERE id = ?',
      ),
      markProjected: db.prepare<[string, string]>(
        'UPDATE sessions SET projection_path = ?, projection_stale = 0 WHERE id = ?',
      ),
      entryRowids: db.prepare<[string], { rowid: number }>('SELECT rowid FROM entries WHERE session_id = ?'),
      deleteEntries: db.prepare<[string]>('DELETE FROM entries WHERE session_id = ?'),
      deleteAnchors: db.prepare<[string]>('DELETE FROM anchors WHERE session_id = ?'),
      deleteUsage: db.prepare<[string]>('DELETE FROM usage WHERE session_id = ?'),
      deleteFts: db.prepare<[number]>('DELETE FROM entries_fts WHERE rowid = ?'),
      deleteTrigram: db.prepare<[number]>('DELETE FROM entries_tri WHERE rowid = ?'),
      deleteEmbedding: db.prepare<[number]>('DELETE FROM embeddings WHERE rowid = ?'),
      insertTrigram: db.prepare<[number, string]>('INSERT INTO entries_tri (rowid, body) VALUES (?, ?)'),
      anyMatch: db.prepare<[string], { rowid: number }>('SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? LIMIT 1'),
      getMeta: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
      putMeta: db.prepare<[string, string]>(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      ),
      putEmbedding: db.prepare<[number, Buffer]>('INSERT OR REPLACE INTO embeddings (rowid, vector) VALUES (?, ?)'),
      pendingEmbeddings: db.prepare<[number], EntryRow>(
        `SELECT e.* FROM entries e LEFT JOIN embeddings v ON v.rowid = e.rowid
         WHERE v.rowid IS NULL ORDER BY e.rowid LIMIT ?`,
      ),
      findEntry: db.prepare<[string, string], EntryRow>('SELECT * FROM entries WHERE session_id = ? AND key = ?'),
      insertEntry: db.prepare(
        `INSERT INTO entries (session_id, key, id, seq, line, ts, role, text, tool_name, tool_target, priority, result,
           result_id, parent_id, sidechain, kind, exit_code, duration_ms, status)
         VALUES (@session_id, @key, @id, @seq, @line, @ts, @role, @text, @tool_name, @tool_target, @priority, @result,
           @result_id, @parent_id, @sidechain, @kind, @exit_code, @duration_ms, @status)`,
      ),
      updateEntry: db.prepare(
        `UPDATE entries SET text = @text, result = @result, result_id = @result_id, tool_target = @tool_target,
           priority = @priority, kind = @kind, exit_code = @exit_code, duration_ms = @duration_ms, status = @status
         WHERE rowid = @rowid`,
      ),
      insertFts: db.prepare(
        'INSERT INTO entries_fts (rowid, text, role, tool, target, keywords, context) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      listEntries: db.prepare<[string], EntryRow>('SELECT * FROM entries WHERE session_id = ? ORDER BY seq, rowid'),
      hasEntries: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM entries WHERE session_id = ? LIMIT 1'),
      putAnchor: db.prepare(
        `INSERT OR REPLACE INTO anchors (session_id, id, ts, line, note, origin_id)
         VALUES (@session_id, @id, @ts, @line, @note, @origin_id)`,
      ),
      listAnchors: db.prepare<[string], AnchorRow>('SELECT * FROM anchors WHERE session_id = ? ORDER BY line, id'),
      putUsage: db.prepare(
        `INSERT INTO usage (session_id, captured_s, used_tokens, max_tokens, usage_ratio, provider)
         VALUES (@session_id, @captured_at_epoch_secs, @used_tokens, @max_tokens, @usage_ratio, @provider)`,
      ),
      putRun: db.prepare(
        `INSERT INTO runs (started_ms, finished_ms, command, files, files_changed, entries, warnings, errors)
         VALUES (@startedAtMs, @finishedAtMs, @command, @files, @filesChanged, @entries, @warnings, @errors)`,
      ),
      lastRun: db.prepare<[], Record<string, number | string>>('SELECT * FROM runs ORDER BY rowid DESC LIMIT 1'),
      putArchived: db.prepare<[string, string, string]>(
        'INSERT OR IGNORE INTO archived (session_id, content_hash, record) VALUES (?, ?, ?)',
      ),
      pendingLedger: db.prepare<[], { session_id: string; content_hash: string; record: string }>(
        'SELECT session_id, content_hash, record FROM archived WHERE ledgered = 0 ORDER BY rowid',
      ),
      markLedgered: db.prepare<[string, string]>('UPDATE archived SET ledgered = 1 WHERE session_id = ? AND content_hash = ?'),
    };
  }

  /** Every write goes through here: begun IMMEDIATE, so a second writer waits instead of failing. */
  private write<T>(work: () => T): T {
    return runWriteTransaction(
      this.db,
      () => {
        try {
          const result = work();
          this.postings.flush();
          return result;
        } catch (error) {
          this.postings.discard();
          throw error;
        }
      },
      this.lock,
    );
  }

  /** Markers derived again when the stored ones were derived with other patterns (MarkerPort.sync). */
  syncMarkers(): MarkerSync {
    if (this.markers.isCurrent()) return this.markers.sync();
    return this.write(() => this.markers.sync());
  }

  listMarkers(query: MarkerQuery): StoredMarker[] {
    return this.markers.list(query);
  }

  countMarkersByType(query: Omit<MarkerQuery, 'limit' | 'types'>): Record<string, number> {
    return this.markers.countByType(query);
  }

  planeAccess(): PlaneHandle {
    return { db: this.db, lock: this.lock, write: (work) => (this.db.inTransaction ? work() : this.write(work)) };
  }

  /**
   * A migration that changed the FTS columns leaves this flag: rebuild every FTS row once, in one transaction.
   * Then entries indexed before postings existed get theirs (fillPostings).
   */
  finishPendingRebuild(): void {
    this.fillPostings();
    if (!this.statements.getMeta.get('rebuild_fts')) return;
    this.write(() => {
      // another process may have finished the rebuild while this one waited for the lock
      if (!this.statements.getMeta.get('rebuild_fts')) return;
      for (const session of this.listSessions()) {
        const rowids = new Set(this.statements.entryRowids.all(session.id).map((row) => row.rowid));
        this.refreshIndex(session.id, rowids, { ftsOnly: true });
      }
      this.db.prepare("DELETE FROM meta WHERE key = 'rebuild_fts'").run();
    });
  }

  /**
   * Entries indexed before postings existed (schema migration 17) get theirs, a few sessions per transaction:
   * interrupted, it resumes where it stopped (an entry with terms is done), and another writer may run beside it.
   * Until every entry has them, word lists are ranked by FTS5 alone.
   */
  fillPostings(sessionsPerTransaction = 50): void {
    if (hasAllPostings(this.db)) return;
    const pending = this.db.prepare<[string, number], { id: string }>(
      `SELECT s.id FROM sessions s WHERE s.id > ? AND EXISTS (
         SELECT 1 FROM entries e WHERE e.session_id = s.id AND NOT EXISTS (SELECT 1 FROM entry_terms t WHERE t.rowid = e.rowid))
       ORDER BY s.id LIMIT ?`,
    );
    const missingIn = this.db.prepare<[string], { rowid: number }>(
      'SELECT e.rowid FROM entries e WHERE e.session_id = ? AND NOT EXISTS (SELECT 1 FROM entry_terms t WHERE t.rowid = e.rowid)',
    );
    let after = '';
    for (;;) {
      const done = this.write(() => {
        const sessions = pending.all(after, sessionsPerTransaction);
        for (const { id } of sessions) {
          const missing = missingIn.all(id);
          this.refreshIndex(id, new Set(missing.map((row) => row.rowid)), { postingsOnly: true, exact: true });
          after = id;
        }
        if (sessions.length < sessionsPerTransaction) this.db.prepare('DELETE FROM meta WHERE key = ?').run(POSTINGS_PENDING);
        return sessions.length < sessionsPerTransaction;
      });
      if (done) return;
    }
  }

  getFile(path: string): FileState | null {
    const row = this.statements.getFile.get(path);
    return row ? toFileState(row) : null;
  }

  listFiles(): FileState[] {
    return this.statements.listFiles.all().map(toFileState);
  }

  beginBatch(): void {
    beginWrite(this.db, this.lock);
    this.batching = true;
  }

  endBatch(outcome: 'commit' | 'rollback'): void {
    if (outcome === 'commit') this.postings.flush();
    else this.postings.discard();
    this.batching = false;
    endWrite(this.db, outcome);
  }

  batch<T>(work: () => T): T {
    return this.write(() => {
      this.batching = true;
      try {
        return work();
      } finally {
        this.batching = false;
      }
    });
  }

  commitFile(change: FileCommit): void {
    if (!this.batching) return this.write(() => this.applyFile(change));
    // No savepoint inside a batch: FTS5 flushes its pending terms at every savepoint, which is what batching
    // avoids. A failure mid-file must therefore abort the whole batch, never commit half a file.
    try {
      this.applyFile(change);
    } catch (error) {
      throw new BatchAbortedError(change.file.path, error);
    }
  }

  private applyFile(change: FileCommit): void {
    if (change.session) this.applySession({ ...change, session: change.session });
    for (const write of change.sessions ?? []) {
      this.applySession(write);
      if (write.archived) this.putArchived(write.archived);
    }
    for (const id of change.dropSessions ?? []) this.dropSession(id);
    if (change.forgetFile) this.db.prepare('DELETE FROM files WHERE path = ?').run(change.forgetFile);
    this.statements.putFile.run(fileParams(change.file));
    if (change.archived) this.putArchived(change.archived);
  }

  private applySession(write: SessionWrite): void {
    const session = write.session;
    if (write.reset) this.deleteSessionContent(session.id);
    // A session with no rows before this commit is indexed from memory, its rows never read back.
    const wasEmpty = write.reset || this.statements.hasEntries.get(session.id) === undefined;
    this.statements.putSession.run(sessionParams(session));
    // Changed rows with their merged entries; rows inserted by this commit have no index rows yet.
    const changed = new Map<number, Entry>();
    const fresh = new Set<number>();
    // In a session that was empty, only keys this commit inserted can exist: no lookup for the others.
    const insertedKeys = wasEmpty ? new Set<string>() : null;
    for (const entry of write.entries) {
      const { rowid, inserted, merged } = this.upsertEntry(entry, insertedKeys);
      changed.set(rowid, merged);
      if (inserted) fresh.add(rowid);
    }
    for (const patch of write.results) {
      const attached = this.attachResult(session.id, patch);
      if (attached !== null) changed.set(attached.rowid, attached.entry);
    }
    this.refreshIndex(session.id, changed, { fresh, documents: write.documents, ...(wasEmpty ? { rows: changed } : {}) });
    this.markers.replaceEntries(changed, fresh, session.project);
    for (const anchor of write.anchors) this.statements.putAnchor.run(anchorParams(anchor));
    for (const usage of write.usage) this.statements.putUsage.run(usage);
    this.statements.countEntries.run(session.id, session.id);
  }

  private putArchived(archived: ArchiveRecord): void {
    this.statements.putArchived.run(archived.session_id, archived.content_hash, JSON.stringify(archived));
  }

  /** A session its file no longer holds: everything it had goes (its archived pairs stay, as the ledger keeps them). */
  private dropSession(id: string): void {
    this.deleteSessionContent(id);
    this.db.prepare('DELETE FROM fix_events WHERE session_id = ?').run(id);
    this.db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
  }

  flushLedger(append: (record: ArchiveRecord) => void): number {
    // Cheap check first: most runs have nothing pending and need not take the write lock.
    if (this.statements.pendingLedger.all().length === 0) return 0;
    return this.write(() => {
      const pending = this.statements.pendingLedger.all();
      for (const row of pending) {
        append(JSON.parse(row.record) as ArchiveRecord);
        this.statements.markLedgered.run(row.session_id, row.content_hash);
      }
      return pending.length;
    });
  }

  getSession(id: string): StoredSession | null {
    const row = this.statements.getSession.get(id);
    return row ? toSession(row) : null;
  }

  listSessions(): StoredSession[] {
    return this.statements.listSessions.all().map(toSession);
  }

  listSessionRecords(filter: SessionListFilter): StoredSession[] {
    return listSessionRecords(this.db, filter);
  }

  listSessionSummaries(filter: SessionListFilter): SessionSummary[] {
    return listSessionSummaries(this.db, filter);
  }

  findSessionsByPrefix(prefix: string, limit: number): SessionMatch[] {
    // substr, not LIKE: SQLite's LIKE ignores the case of ASCII letters, and ids are matched as written.
    return this.db
      .prepare<[{ prefix: string; limit: number }], { id: string; source: SessionMatch['source']; project: string | null; title: string | null; start_ms: number | null; parent_id: string | null }>(
        `SELECT id, source, project, title, start_ms, parent_id FROM sessions WHERE substr(id, 1, length(@prefix)) = @prefix
         ORDER BY id = @prefix DESC, id LIMIT @limit`,
      )
      .all({ prefix, limit })
      .map((row) => ({ id: row.id, source: row.source, project: row.project, title: row.title, startMs: row.start_ms, parentSessionId: row.parent_id }));
  }

  markProjected(sessionId: string, projectionPath: string): void {
    this.write(() => this.statements.markProjected.run(projectionPath, sessionId));
  }

  rewriteSessionPaths(rewrite: (stored: string) => string): number {
    return this.write(() => {
      const rows = this.db
        .prepare<[], { id: string; archive_path: string | null; projection_path: string | null }>(
          'SELECT id, archive_path, projection_path FROM sessions WHERE archive_path IS NOT NULL OR projection_path IS NOT NULL',
        )
        .all();
      const update = this.db.prepare<[string | null, string | null, string]>('UPDATE sessions SET archive_path = ?, projection_path = ? WHERE id = ?');
      let changed = 0;
      for (const row of rows) {
        const archivePath = row.archive_path === null ? null : rewrite(row.archive_path);
        const projectionPath = row.projection_path === null ? null : rewrite(row.projection_path);
        if (archivePath === row.archive_path && projectionPath === row.projection_path) continue;
        update.run(archivePath, projectionPath, row.id);
        changed += 1;
      }
      return changed;
    });
  }

  listEntries(sessionId: string): Entry[] {
    return this.statements.listEntries.all(sessionId).map(toEntry);
  }

  getEntriesByIds(ids: readonly string[], sessionId?: string): Entry[] {
    if (ids.length === 0) return [];
    const wanted = JSON.stringify([...new Set(ids)]);
    const rows =
      sessionId === undefined
        ? this.db
            .prepare<[string], EntryRow>('SELECT * FROM entries WHERE id IN (SELECT value FROM json_each(?)) ORDER BY session_id, seq, rowid')
            .all(wanted)
        : this.db
            .prepare<[string, string], EntryRow>('SELECT * FROM entries WHERE session_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY seq, rowid')
            .all(sessionId, wanted);
    return rows.map(toEntry);
  }

  putFixEvents(sessionId: string, events: readonly FixEvent[]): void {
    this.write(() => putFixEvents(this.db, sessionId, events));
  }

  listFixEvents(filter: FixEventFilter): FixEvent[] {
    return listFixEvents(this.db, filter);
  }

  listFixNamespaces(): string[] {
    return listFixNamespaces(this.db);
  }

  listSessionPlaces(): SessionPlace[] {
    return this.db.prepare<[], SessionPlace>('SELECT id, cwd, project FROM sessions ORDER BY id').all();
  }

  listAnchors(sessionId: string): CompactionAnchor[] {
    return this.statements.listAnchors.all(sessionId).map(toAnchor);
  }

  searchLexical(query: LexicalQuery): Candidate[] {
    return searchWords(this.db, query, this.statements.getMeta.get(POSTINGS_PENDING) === undefined ? this.postings : null);
  }

  private vectorFunctions = false;

  /**
   * sqlite-vec's functions (`vec_distance_cosine`), loaded on the connection the first time a vector query runs:
   * nothing else uses them, and loading the extension cost every short-lived process (a hook) ~10 ms.
   */
  private loadVectorFunctions(): void {
    if (this.vectorFunctions) return;
    sqliteVec.load(this.db);
    this.vectorFunctions = true;
  }

  hasLexicalMatch(term: string): boolean {
    const match = renderFtsTerms([term], 'OR');
    if (match === null) return false;
    return this.statements.anyMatch.get(match) !== undefined;
  }

  searchTrigram(query: LexicalQuery): Candidate[] {
    return searchSubstrings(this.db, query);
  }

  searchVector(query: VectorQuery): Candidate[] {
    this.loadVectorFunctions();
    const filters = renderFilters(query.filters, query);
    return this.rank(
      `SELECT e.*, vec_distance_cosine(v.vector, ?) AS rank
       FROM embeddings v JOIN entries e ON e.rowid = v.rowid ${joinSessions(filters)}
       WHERE 1 ${andClauses(filters)}
       ORDER BY rank, e.ts DESC, e.rowid LIMIT ?`,
      [toBlob(query.vector), ...filters.params, query.limit],
      (distance) => 1 - distance,
    );
  }

  searchTime(query: TimeSearch): Candidate[] {
    const filters = renderFilters(query.filters, query);
    const center = query.centerMs;
    return this.rank(
      `SELECT e.*, ${center === null ? '0' : 'abs(e.ts - ?)'} AS rank
       FROM entries e ${joinSessions(filters)}
       WHERE e.ts IS NOT NULL ${andClauses(filters)}
       ORDER BY rank, e.ts ${center === null ? 'DESC' : ''}, e.rowid LIMIT ?`,
      [...(center === null ? [] : [center]), ...filters.params, query.limit],
      (distance) => -distance,
    );
  }

  putSessionTerms(items: readonly SessionTerms[]): void {
    if (items.length === 0) return;
    this.write(() => {
      const remove = this.db.prepare('DELETE FROM session_terms WHERE session_id = ?');
      const insert = this.db.prepare('INSERT OR IGNORE INTO session_terms (term, session_id) VALUES (?, ?)');
      for (const { sessionId, terms } of items) {
        remove.run(sessionId);
        for (const term of terms) insert.run(term, sessionId);
      }
    });
  }

  countSessionTerms(terms: readonly string[]): { sessionCount: number; counts: Map<string, number> } {
    const count = this.db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM session_terms WHERE term = ?');
    const counts = new Map<string, number>();
    for (const term of new Set(terms)) counts.set(term, count.get(term)?.n ?? 0);
    const sessionCount = (this.db.prepare('SELECT count(*) FROM sessions').pluck().get() as number) ?? 0;
    return { sessionCount, counts };
  }

  readTimeBounds(): { startMs: number; endMs: number } | null {
    const row = this.db.prepare<[], { start: number | null; end: number | null }>('SELECT min(ts) AS start, max(ts) AS end FROM entries').get();
    return row && row.start !== null && row.end !== null ? { startMs: row.start, endMs: row.end } : null;
  }

  getEmbeddingModel(): EmbeddingModel | null {
    const row = this.statements.getMeta.get('embedding_model');
    return row ? (JSON.parse(row.value) as EmbeddingModel) : null;
  }

  setEmbeddingModel(model: EmbeddingModel): void {
    const current = this.getEmbeddingModel();
    if (current && current.id === model.id && current.dims === model.dims) return;
    this.write(() => {
      this.db.exec('DELETE FROM embeddings');
      this.statements.putMeta.run('embedding_model', JSON.stringify(model));
    });
  }

  listPendingEmbeddings(limit: number): PendingEmbedding[] {
    return this.statements.pendingEmbeddings.all(limit).map((row) => ({ rowid: row.rowid, entry: toEntry(row) }));
  }

  putEmbeddings(items: { rowid: number; vector: Float32Array }[]): void {
    this.write(() => {
      for (const item of items) this.statements.putEmbedding.run(item.rowid, toBlob(item.vector));
    });
  }

  countEmbeddings(): number {
    return (this.db.prepare('SELECT count(*) FROM embeddings').pluck().get() as number) ?? 0;
  }

  private rank(sql: string, params: unknown[], toScore: (rank: number) => number): Candidate[] {
    const rows = this.db.prepare<unknown[], EntryRow & { rank: number }>(sql).all(...params);
    return rows.map((row) => ({ rowid: row.rowid, entry: toEntry(row), score: toScore(row.rank) }));
  }

  stats(): StoreStats {
    const one = (sql: string): number => (this.db.prepare(sql).pluck().get() as number | null) ?? 0;
    const bySource: StoreStats['bySource'] = {};
    const rows = this.db
      .prepare<[], { source: string; sessions: number; entries: number }>(
        'SELECT source, count(*) AS sessions, coalesce(sum(entry_count), 0) AS entries FROM sessions GROUP BY source ORDER BY source',
      )
      .all();
    for (const row of rows) bySource[row.source] = { sessions: row.sessions, entries: row.entries };
    const last = this.statements.lastRun.get();
    return {
      sessions: one('SELECT count(*) FROM sessions'),
      entries: one('SELECT count(*) FROM entries'),
      files: one('SELECT count(*) FROM files'),
      anchors: one('SELECT count(*) FROM anchors'),
      embeddings: one('SELECT count(*) FROM embeddings'),
      embeddingModel: this.getEmbeddingModel(),
      bySource,
      dbBytes: ['', '-wal', '-shm'].reduce((sum, suffix) => sum + fileSize(this.path + suffix), 0),
      lastRun: last ? runFromColumns(last) : null,
    };
  }

  recordRun(run: RunRecord): void {
    this.write(() => this.statements.putRun.run(run));
  }

  listFailures(): FailureRecord[] {
    return listFailureRows(this.db);
  }

  putFailure(failure: FailureRecord): void {
    this.write(() => putFailureRow(this.db, failure));
  }

  clearFailure(key: string): void {
    this.write(() => deleteFailureRow(this.db, key));
  }

  checkIntegrity(): string[] {
    return quickCheck(this.db);
  }

  readSessionExtras(sessionId: string): SessionExtras {
    return readSessionExtras(this.db, sessionId);
  }

  writeSessionExtras(sessionId: string, extras: Omit<SessionExtras, 'usage'>): void {
    this.write(() => writeSessionExtras(this.db, sessionId, extras));
  }

  listRuns(): RunRecord[] {
    return listRuns(this.db);
  }

  listCopied(source: string): Map<string, string | null> {
    return listCopied(this.db, source);
  }

  markCopied(source: string, sessionId: string, contentHash: string | null): void {
    this.write(() => markCopied(this.db, source, sessionId, contentHash));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  listDocFiles(namespaceId: string): DocFile[] {
    return listDocFiles(this.db, namespaceId);
  }

  replaceDocFiles(namespaceId: string, files: readonly { path: string; sections: readonly DocSection[] }[]): void {
    replaceDocFiles(this.db, this.lock, namespaceId, files);
  }

  searchDocs(query: DocQuery): DocHit[] {
    return searchDocs(this.db, query);
  }

  readDocs(namespaceId: string | null): DocSection[] {
    return readDocs(this.db, namespaceId);
  }

  findForgettable(selector: ForgetSelector): string[] {
    return findForgettableSessions(this.db, selector);
  }

  forgetSessions(sessionIds: readonly string[], reason: string, atMs: number): ForgottenSession[] {
    return this.write(() => {
      const forgotten: ForgottenSession[] = [];
      for (const id of new Set(sessionIds)) {
        const session = this.getSession(id);
        // A tombstone even for a session this index never had: a ledger's tombstones are replayed into a
        // rebuilt or new index, and another machine may index the session later.
        putTombstone(this.db, { sessionId: id, project: session?.project ?? null, reason, forgottenAtMs: atMs });
        if (!session) continue;
        this.deleteSessionContent(id);
        this.db.prepare('DELETE FROM archived WHERE session_id = ?').run(id);
        // Its fix facts quote its error output: they go with it.
        this.db.prepare('DELETE FROM fix_events WHERE session_id = ?').run(id);
        this.db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
        // The file states stay, marked excluded: an unchanged transcript is not even read again.
        this.db.prepare("UPDATE files SET excluded = 'forgotten', offset = 0, carry = NULL WHERE session_id = ?").run(id);
        forgotten.push({ id, project: session.project, archivePath: session.archivePath, projectionPath: session.projectionPath });
      }
      return forgotten;
    });
  }

  listTombstones(): Tombstone[] {
    return listTombstoneRows(this.db);
  }

  isForgotten(sessionId: string): boolean {
    return hasTombstone(this.db, sessionId);
  }

  private deleteSessionContent(sessionId: string): void {
    for (const { rowid } of this.statements.entryRowids.all(sessionId)) this.unindexEntry(rowid);
    this.statements.deleteEntries.run(sessionId);
    this.markers.deleteSession(sessionId);
    this.statements.deleteAnchors.run(sessionId);
    this.statements.deleteUsage.run(sessionId);
    this.db.prepare('DELETE FROM session_terms WHERE session_id = ?').run(sessionId);
  }

  /** Entries sharing a key continue one logical message (streamed blocks): the later text is appended. */
  private upsertEntry(entry: Entry, insertedKeys: Set<string> | null): { rowid: number; inserted: boolean; merged: Entry } {
    const known = insertedKeys === null || insertedKeys.has(entry.key);
    const existing = known ? this.statements.findEntry.get(entry.sessionId, entry.key) : undefined;
    if (!existing) {
      insertedKeys?.add(entry.key);
      return { rowid: Number(this.statements.insertEntry.run(entryParams(entry)).lastInsertRowid), inserted: true, merged: entry };
    }
    const merged = toEntry(existing);
    mergeEntryInto(merged, entry);
    this.updateEntry(existing.rowid, merged);
    return { rowid: existing.rowid, inserted: false, merged };
  }

  private attachResult(sessionId: string, patch: ResultPatch): { rowid: number; entry: Entry } | null {
    const existing = this.statements.findEntry.get(sessionId, patch.key);
    if (!existing) return null;
    const entry = toEntry(existing);
    mergeResultInto(entry, patch);
    this.updateEntry(existing.rowid, entry);
    return { rowid: existing.rowid, entry };
  }

  private updateEntry(rowid: number, entry: Entry): void {
    this.statements.updateEntry.run({
      rowid,
      text: entry.text,
      result: entry.result,
      result_id: entry.resultId,
      tool_target: entry.toolTarget,
      priority: entry.priority,
      kind: entry.kind,
      exit_code: entry.exitCode,
      duration_ms: entry.durationMs,
      status: entry.status,
    });
  }

  /** Drop an entry's index rows; its vector goes too (the text changed, so it is re-embedded). */
  private unindexEntry(rowid: number): void {
    this.statements.deleteFts.run(rowid);
    this.postings.remove(rowid);
    this.statements.deleteTrigram.run(rowid);
    this.statements.deleteEmbedding.run(rowid);
  }

  /**
   * Rebuild the index rows of changed entries and of their neighbours. Each FTS row carries a `context` column
   * with the text of the two entries before and after it: in a conversation the words of an answer are often in
   * the question before it ("what did you research?" → "adoption agencies"). On the LoCoMo dev split this
   * document expansion lifts turn-level Recall@5 of plain BM25 by about 10 points (docs/benchmarks.md).
   */
  private refreshIndex(
    sessionId: string,
    changed: { has(rowid: number): boolean; readonly size: number },
    options: {
      ftsOnly?: boolean;
      /** Only the rows' postings (the migration's backfill: their FTS rows are in place). */
      postingsOnly?: boolean;
      /** The changed rows alone, not their neighbours (whose text did not change). */
      exact?: boolean;
      fresh?: ReadonlySet<number>;
      documents?: ReadonlyMap<string, PreparedDocument> | undefined;
      /** All of the session's rows, when this commit holds them all (the session had none before): not read back. */
      rows?: ReadonlyMap<number, Entry>;
    } = {},
  ): void {
    const fresh = options.fresh ?? new Set<number>();
    if (changed.size === 0) return;
    // In the order listEntries reads them.
    const rows = options.rows
      ? [...options.rows].map(([rowid, entry]) => ({ rowid, entry })).sort((a, b) => a.entry.seq - b.entry.seq || a.rowid - b.rowid)
      : this.statements.listEntries.all(sessionId).map((row) => ({ rowid: row.rowid, entry: toEntry(row) }));
    const touched = new Set<number>();
    rows.forEach((row, index) => {
      if (!changed.has(row.rowid)) return;
      if (options.exact) {
        touched.add(row.rowid);
        return;
      }
      for (let offset = -CONTEXT_RADIUS; offset <= CONTEXT_RADIUS; offset += 1) {
        const neighbour = rows[index + offset];
        if (neighbour) touched.add(neighbour.rowid);
      }
    });
    // Each row's head (the part of its text its neighbours' context quotes), numbered once for all its neighbours.
    const heads = new Map<number, { numbering: string; head: Uint32Array }>();
    const headOf = (row: { rowid: number; entry: Entry }) => {
      let found = heads.get(row.rowid);
      if (!found) {
        const prepared = fresh.has(row.rowid) ? options.documents?.get(row.entry.key)?.postings : undefined;
        found = prepared ?? { numbering: localNumbering.id, head: buildHead(row.entry.text) };
        heads.set(row.rowid, found);
      }
      return found;
    };
    rows.forEach((row, index) => {
      if (!touched.has(row.rowid)) return;
      const { entry } = row;
      const before: string[] = [];
      const after: string[] = [];
      for (let offset = 1; offset <= CONTEXT_RADIUS; offset += 1) {
        const previous = rows[index - offset];
        const next = rows[index + offset];
        if (previous) before.push(previous.entry.text);
        if (next) after.push(next.entry.text);
      }
      // A row this commit inserted has only this commit's data: the document prepared with it fits.
      const prepared = fresh.has(row.rowid) ? options.documents?.get(entry.key) : undefined;
      const document = buildIndexDocument(prepared ?? entry, { before, after });
      const own = prepared?.postings ?? buildOwnPostings(document, entry);
      const around: { numbering: string; head: Uint32Array }[] = [];
      for (let offset = 1; offset <= CONTEXT_RADIUS; offset += 1) {
        for (const neighbour of [rows[index - offset], rows[index + offset]]) if (neighbour) around.push(headOf(neighbour));
      }
      if (options.postingsOnly) {
        this.postings.add(row.rowid, own, around, false);
        return;
      }
      if (!fresh.has(row.rowid)) this.statements.deleteFts.run(row.rowid);
      this.statements.insertFts.run(row.rowid, document.text, entry.role, entry.toolName, document.target, document.keywords, document.context);
      this.postings.add(row.rowid, own, around, fresh.has(row.rowid));
      if (changed.has(row.rowid) && !options.ftsOnly) {
        if (!fresh.has(row.rowid)) {
          this.statements.deleteTrigram.run(row.rowid);
          this.statements.deleteEmbedding.run(row.rowid);
        }
        this.statements.insertTrigram.run(row.rowid, prepared?.trigram ?? buildTrigramDocument(entry));
      }
    });
  }
}

function anchorParams(anchor: CompactionAnchor): Record<string, unknown> {
  return {
    session_id: anchor.sessionId,
    id: anchor.id,
    ts: anchor.ts,
    line: anchor.line,
    note: anchor.note,
    origin_id: anchor.originId,
  };
}

function toBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
