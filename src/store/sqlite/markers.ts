import type Database from 'better-sqlite3';
import type { Entry } from '../../model.js';
import { fingerprintMarkerConfig } from '../../markers/entry-markers.js';
import { type MarkerConfig, requiredMarkerText } from '../../markers/extract.js';
import type { MarkerQuery, MarkerSync, StoredMarker } from '../../markers/types.js';
import { MARKER_COLUMNS, MARKER_META_KEY, MARKER_ORDER, type MarkerRow, buildMarkerRows, toStoredMarker } from '../marker-rows.js';
import { type EntryRow, toEntry } from './rows.js';

/**
 * The markers table on SQLite: rows written in the store's own write transaction (the file commit that changed
 * the entries), read by the MarkerPort. Statements are prepared on first use: an index opened before the
 * markers migration has no table yet.
 */
export class SqliteMarkers {
  private prepared: ReturnType<SqliteMarkers['prepare']> | null = null;
  private readonly fingerprint: string;

  constructor(
    private readonly db: Database.Database,
    private readonly config: MarkerConfig,
  ) {
    this.fingerprint = fingerprintMarkerConfig(config);
  }

  private prepare() {
    return {
      insert: this.db.prepare(`INSERT OR REPLACE INTO markers (${MARKER_COLUMNS.join(', ')}) VALUES (${MARKER_COLUMNS.map((column) => `@${column}`).join(', ')})`),
      deleteEntry: this.db.prepare<[number]>('DELETE FROM markers WHERE entry_rowid = ?'),
      deleteSession: this.db.prepare<[string]>('DELETE FROM markers WHERE session_id = ?'),
    };
  }

  private get statements(): ReturnType<SqliteMarkers['prepare']> {
    return (this.prepared ??= this.prepare());
  }

  /**
   * Replace the markers of the entries a commit changed (rowid → the merged entry). Rows the commit inserted
   * (`fresh`) had none. Runs inside the caller's write transaction.
   */
  replaceEntries(changed: ReadonlyMap<number, Entry>, fresh: ReadonlySet<number>, project: string | null): void {
    for (const [rowid, entry] of changed) {
      if (!fresh.has(rowid)) this.statements.deleteEntry.run(rowid);
      for (const row of buildMarkerRows(rowid, entry, project, this.config)) this.statements.insert.run(row);
    }
  }

  /** Inside the caller's write transaction: a session re-read from the start, or forgotten. */
  deleteSession(sessionId: string): void {
    this.statements.deleteSession.run(sessionId);
  }

  /** Every entry's markers derived again, in the caller's write transaction, when the stored ones are not current. */
  sync(): MarkerSync {
    const stored = this.db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(MARKER_META_KEY)?.value;
    if (stored === this.fingerprint) return { rederived: false, markers: this.count() };
    this.db.exec('DELETE FROM markers');
    if (this.config.patterns.length > 0) {
      const tag = requiredMarkerText(this.config);
      const page = this.db.prepare<unknown[], EntryRow & { project: string | null }>(
        `SELECT e.*, s.project AS project FROM entries e LEFT JOIN sessions s ON s.id = e.session_id
         WHERE e.rowid > ? ${tag === null ? '' : 'AND (instr(e.text, ?) > 0 OR instr(e.result, ?) > 0)'}
         ORDER BY e.rowid LIMIT 500`,
      );
      // A page at a time, .all() each: better-sqlite3 refuses writes while a read cursor is open.
      for (let after = 0; ; ) {
        const rows = page.all(after, ...(tag === null ? [] : [tag, tag]));
        if (rows.length === 0) break;
        for (const row of rows) {
          for (const marker of buildMarkerRows(row.rowid, toEntry(row), row.project, this.config)) this.statements.insert.run(marker);
        }
        after = rows[rows.length - 1]!.rowid;
      }
    }
    this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(MARKER_META_KEY, this.fingerprint);
    return { rederived: true, markers: this.count() };
  }

  /** Whether the stored markers were derived with this engine's patterns (no write needed). */
  isCurrent(): boolean {
    return this.db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(MARKER_META_KEY)?.value === this.fingerprint;
  }

  list(query: MarkerQuery): StoredMarker[] {
    const { where, params } = renderMarkerFilters(query, true);
    return this.db
      .prepare<unknown[], MarkerRow>(`SELECT * FROM markers ${where} ORDER BY ${MARKER_ORDER} LIMIT ?`)
      .all(...params, query.limit)
      .map(toStoredMarker);
  }

  countByType(query: Omit<MarkerQuery, 'limit' | 'types'>): Record<string, number> {
    const { where, params } = renderMarkerFilters(query, false);
    const rows = this.db.prepare<unknown[], { type: string; n: number }>(`SELECT type, count(*) AS n FROM markers ${where} GROUP BY type ORDER BY type`).all(...params);
    return Object.fromEntries(rows.map((row) => [row.type, row.n]));
  }

  private count(): number {
    return (this.db.prepare('SELECT count(*) FROM markers').pluck().get() as number) ?? 0;
  }
}

function renderMarkerFilters(query: Omit<MarkerQuery, 'limit'>, withTypes: boolean): { where: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (withTypes && query.types && query.types.length > 0) {
    where.push(`type IN (${query.types.map(() => '?').join(', ')})`);
    params.push(...query.types);
  }
  if (query.sessionIds) {
    where.push('session_id IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(query.sessionIds));
  }
  if (query.sinceMs !== undefined) {
    where.push('ts >= ?');
    params.push(query.sinceMs);
  }
  if (query.untilMs !== undefined) {
    where.push('ts < ?');
    params.push(query.untilMs);
  }
  for (const word of query.words ?? []) {
    where.push("lower(content) LIKE ? ESCAPE '\\'");
    params.push(`%${word.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`);
  }
  return { where: where.length > 0 ? `WHERE ${where.join(' AND ')}` : '', params };
}
