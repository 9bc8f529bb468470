import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { MoonError } from '../../errors.js';
import type { CompactionAnchor, Entry } from '../../model.js';
import { expandIdentifiers } from '../../text/identifiers.js';
import type {
  Candidate,
  FileCommit,
  FileState,
  LexicalQuery,
  RunRecord,
  SearchFilters,
  Store,
  StoreStats,
  StoredSession,
} from '../store.js';
import { renderFtsQuery } from './fts-query.js';
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
import { migrate } from './schema.js';

/** BM25 column weights: text, role, tool, target, keywords. */
const BM25_WEIGHTS = '1.0, 0.0, 2.0, 1.5, 0.6';

export function openSqliteStore(path: string, options: { readonly?: boolean } = {}): Store {
  if (options.readonly && !existsSync(path)) {
    throw new MoonError('not_found', `no index at ${path}`, { hint: 'run `moon index` first' });
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: options.readonly ?? false });
    db.pragma('busy_timeout = 10000');
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      migrate(db);
    }
  } catch (error) {
    throw new MoonError('store', `cannot open index ${path}: ${(error as Error).message}`, { cause: error });
  }
  return new SqliteStore(db, path);
}

class SqliteStore implements Store {
  private readonly statements;

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
  ) {
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
           archive_path, projection_path, content_hash, projection_stale)
         VALUES (@id, @source, @path, @project, @cwd, @branch, @parent_id, @start_ms, @end_ms, @filtered_count, @skipped,
           @archive_path, @projection_path, @content_hash, 1)
         ON CONFLICT(id) DO UPDATE SET source = excluded.source, path = excluded.path, project = excluded.project,
           cwd = excluded.cwd, branch = excluded.branch, parent_id = excluded.parent_id, start_ms = excluded.start_ms,
           end_ms = excluded.end_ms, filtered_count = excluded.filtered_count, skipped = excluded.skipped,
           archive_path = excluded.archive_path, content_hash = excluded.content_hash, projection_stale = 1`,
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
      findEntry: db.prepare<[string, string], EntryRow>('SELECT * FROM entries WHERE session_id = ? AND key = ?'),
      insertEntry: db.prepare(
        `INSERT INTO entries (session_id, key, id, seq, line, ts, role, text, tool_name, tool_target, priority, result,
           result_id, parent_id, sidechain)
         VALUES (@session_id, @key, @id, @seq, @line, @ts, @role, @text, @tool_name, @tool_target, @priority, @result,
           @result_id, @parent_id, @sidechain)`,
      ),
      updateEntry: db.prepare(
        `UPDATE entries SET text = @text, result = @result, result_id = @result_id, tool_target = @tool_target,
           priority = @priority WHERE rowid = @rowid`,
      ),
      insertFts: db.prepare(
        'INSERT INTO entries_fts (rowid, text, role, tool, target, keywords) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      listEntries: db.prepare<[string], EntryRow>('SELECT * FROM entries WHERE session_id = ? ORDER BY seq, rowid'),
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
    };
  }

  getFile(path: string): FileState | null {
    const row = this.statements.getFile.get(path);
    return row ? toFileState(row) : null;
  }

  listFiles(): FileState[] {
    return this.statements.listFiles.all().map(toFileState);
  }

  commitFile(change: FileCommit): void {
    this.db.transaction(() => {
      const session = change.session;
      if (session) {
        if (change.reset) this.deleteSessionContent(session.id);
        this.statements.putSession.run(sessionParams(session));
        for (const entry of change.entries) this.upsertEntry(entry);
        for (const patch of change.results) this.attachResult(session.id, patch.key, patch.result, patch.resultId);
        for (const anchor of change.anchors) this.statements.putAnchor.run(anchorParams(anchor));
        for (const usage of change.usage) this.statements.putUsage.run(usage);
        this.statements.countEntries.run(session.id, session.id);
      }
      this.statements.putFile.run(fileParams(change.file));
    })();
  }

  getSession(id: string): StoredSession | null {
    const row = this.statements.getSession.get(id);
    return row ? toSession(row) : null;
  }

  listSessions(): StoredSession[] {
    return this.statements.listSessions.all().map(toSession);
  }

  markProjected(sessionId: string, projectionPath: string): void {
    this.statements.markProjected.run(projectionPath, sessionId);
  }

  listEntries(sessionId: string): Entry[] {
    return this.statements.listEntries.all(sessionId).map(toEntry);
  }

  listAnchors(sessionId: string): CompactionAnchor[] {
    return this.statements.listAnchors.all(sessionId).map(toAnchor);
  }

  searchLexical(query: LexicalQuery): Candidate[] {
    const match = renderFtsQuery(query);
    if (match === null) return [];
    const { where, params } = renderFilters(query.filters);
    const sql = `
      SELECT e.*, bm25(entries_fts, ${BM25_WEIGHTS}) AS rank
      FROM entries_fts JOIN entries e ON e.rowid = entries_fts.rowid
      ${where.some((clause) => clause.includes('s.')) ? 'JOIN sessions s ON s.id = e.session_id' : ''}
      WHERE entries_fts MATCH ? ${where.map((clause) => `AND ${clause}`).join(' ')}
      ORDER BY rank, e.ts DESC, e.rowid
      LIMIT ?`;
    const rows = this.db.prepare<unknown[], EntryRow & { rank: number }>(sql).all(match, ...params, query.limit);
    return rows.map((row) => ({ entry: toEntry(row), score: -row.rank }));
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
      bySource,
      dbBytes: ['', '-wal', '-shm'].reduce((sum, suffix) => sum + fileSize(this.path + suffix), 0),
      lastRun: last
        ? {
            startedAtMs: Number(last.started_ms),
            finishedAtMs: Number(last.finished_ms),
            command: String(last.command),
            files: Number(last.files),
            filesChanged: Number(last.files_changed),
            entries: Number(last.entries),
            warnings: Number(last.warnings),
            errors: Number(last.errors),
          }
        : null,
    };
  }

  recordRun(run: RunRecord): void {
    this.statements.putRun.run(run);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private deleteSessionContent(sessionId: string): void {
    for (const { rowid } of this.statements.entryRowids.all(sessionId)) this.statements.deleteFts.run(rowid);
    this.statements.deleteEntries.run(sessionId);
    this.statements.deleteAnchors.run(sessionId);
    this.statements.deleteUsage.run(sessionId);
  }

  /** Entries sharing a key continue one logical message (streamed blocks): the later text is appended. */
  private upsertEntry(entry: Entry): void {
    const existing = this.statements.findEntry.get(entry.sessionId, entry.key);
    if (!existing) {
      const info = this.statements.insertEntry.run(entryParams(entry));
      this.indexEntry(Number(info.lastInsertRowid), entry);
      return;
    }
    const merged = toEntry(existing);
    merged.text = joinText(merged.text, entry.text);
    merged.result = entry.result ?? merged.result;
    merged.resultId = entry.resultId ?? merged.resultId;
    merged.toolTarget = merged.toolTarget ?? entry.toolTarget;
    merged.priority = merged.priority ?? entry.priority;
    this.replaceEntry(existing.rowid, merged);
  }

  private attachResult(sessionId: string, key: string, result: string, resultId: string | null): void {
    const existing = this.statements.findEntry.get(sessionId, key);
    if (!existing) return;
    const entry = toEntry(existing);
    entry.result = result;
    entry.resultId = resultId;
    this.replaceEntry(existing.rowid, entry);
  }

  private replaceEntry(rowid: number, entry: Entry): void {
    this.statements.updateEntry.run({
      rowid,
      text: entry.text,
      result: entry.result,
      result_id: entry.resultId,
      tool_target: entry.toolTarget,
      priority: entry.priority,
    });
    this.statements.deleteFts.run(rowid);
    this.indexEntry(rowid, entry);
  }

  private indexEntry(rowid: number, entry: Entry): void {
    const body = entry.result ? `${entry.text}\n${entry.result}` : entry.text;
    const keywords = expandIdentifiers(`${entry.toolTarget ?? ''} ${body}`);
    this.statements.insertFts.run(rowid, body, entry.role, entry.toolName, entry.toolTarget, keywords);
  }
}

function joinText(before: string, after: string): string {
  if (!before) return after;
  if (!after) return before;
  return `${before}\n\n${after}`;
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

function renderFilters(filters: SearchFilters): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const inList = (column: string, values: readonly unknown[] | undefined, negate = false): void => {
    if (!values || values.length === 0) return;
    where.push(`${column} ${negate ? 'NOT IN' : 'IN'} (${values.map(() => '?').join(', ')})`);
    params.push(...values);
  };
  inList('e.session_id', filters.sessionIds);
  inList('e.session_id', filters.excludeSessionIds, true);
  inList('e.role', filters.roles);
  if (filters.tools && filters.tools.length > 0) {
    where.push(`lower(e.tool_name) IN (${filters.tools.map(() => '?').join(', ')})`);
    params.push(...filters.tools.map((tool) => tool.toLowerCase()));
  }
  inList('s.source', filters.sources);
  if (filters.projects && filters.projects.length > 0) {
    where.push(
      `(${filters.projects.map(() => "(s.project LIKE ? ESCAPE '\\' OR s.cwd LIKE ? ESCAPE '\\')").join(' OR ')})`,
    );
    for (const project of filters.projects) {
      const pattern = `%${project.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
      params.push(pattern, pattern);
    }
  }
  if (filters.sinceMs !== undefined) {
    where.push('e.ts >= ?');
    params.push(filters.sinceMs);
  }
  if (filters.untilMs !== undefined) {
    where.push('e.ts < ?');
    params.push(filters.untilMs);
  }
  return { where, params };
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
