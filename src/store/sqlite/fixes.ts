import type Database from 'better-sqlite3';
import type { FactFold, FactFoldState, FixEvent, FixEventFilter } from '../../records/fixes.js';
import { isBusy } from './write-lock.js';
import { type FixEventRow, fixEventData, isSameFixEvents, toFixEvent } from '../fix-rows.js';

/** FixPort on SQLite. The caller holds the write transaction for putFixEvents. */
export function putFixEvents(db: Database.Database, sessionId: string, events: readonly FixEvent[]): void {
  const stored = db.prepare<[string], FixEventRow>('SELECT * FROM fix_events WHERE session_id = ? ORDER BY seq').all(sessionId).map(toFixEvent);
  if (isSameFixEvents(stored, events)) return;
  db.prepare('DELETE FROM fix_events WHERE session_id = ?').run(sessionId);
  const insert = db.prepare(
    `INSERT OR REPLACE INTO fix_events (session_id, seq, namespace, repo, ts, kind, signature, target, message_id, data)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const event of events) {
    insert.run(sessionId, event.seq, event.namespace, event.repo, event.ts, event.kind, event.signature, event.target, event.messageId, JSON.stringify(fixEventData(event)));
  }
}

/**
 * The last facts read per filter, per connection, with the stamp they were read at: `PRAGMA data_version` (moves
 * when another connection commits) and `total_changes()` (moves when this one writes). A long-lived process —
 * `moon mcp`, `moon serve`, the watcher — building a context pack after another reads no facts again until the
 * index changes.
 */
const FACT_CACHE = new WeakMap<Database.Database, Map<string, { stamp: string; events: FixEvent[] }>>();
const CACHED_FILTERS = 8;

function stampOf(db: Database.Database): string {
  const version = db.pragma('data_version', { simple: true }) as number;
  const changes = db.prepare('SELECT total_changes()').pluck().get() as number;
  return `${version}:${changes}`;
}

/** Facts of sessions still indexed (a forgotten session's facts are not evidence). */
export function listFixEvents(db: Database.Database, filter: FixEventFilter): FixEvent[] {
  const key = filter.namespaces === null ? '\u0000all' : JSON.stringify(filter.namespaces);
  const stamp = stampOf(db);
  let cache = FACT_CACHE.get(db);
  const hit = cache?.get(key);
  if (hit && hit.stamp === stamp) return [...hit.events];
  const events = readFixEvents(db, filter);
  if (!cache) FACT_CACHE.set(db, (cache = new Map()));
  if (cache.size >= CACHED_FILTERS) cache.clear();
  cache.set(key, { stamp, events });
  return [...events];
}

function readFixEvents(db: Database.Database, filter: FixEventFilter): FixEvent[] {
  const where = ['f.session_id IN (SELECT id FROM sessions)'];
  const params: string[] = [];
  if (filter.namespaces !== null) {
    if (filter.namespaces.length === 0) return [];
    where.push(`f.namespace IN (${filter.namespaces.map(() => '?').join(', ')})`);
    params.push(...filter.namespaces);
  }
  const rows = db.prepare<string[], FixEventRow>(`SELECT f.* FROM fix_events f WHERE ${where.join(' AND ')} ORDER BY coalesce(f.ts, 0), f.session_id, f.seq`).all(...params);
  return rows.map(toFixEvent);
}

export function listFixNamespaces(db: Database.Database): string[] {
  return db
    .prepare<[], { namespace: string }>('SELECT DISTINCT namespace FROM fix_events WHERE session_id IN (SELECT id FROM sessions) ORDER BY namespace')
    .all()
    .map((row) => row.namespace);
}

/** The namespace's facts version (schema triggers change it; '0' before it has any) and the fold kept for it by `build`. */
export function readFactFold(db: Database.Database, namespace: string, build: string): FactFoldState {
  const row = db
    .prepare<[{ namespace: string; build: string }], { version: string; body: string | null }>(
      `SELECT coalesce((SELECT version FROM fact_versions WHERE namespace = @namespace), '0') AS version,
              (SELECT f.body FROM fact_folds f WHERE f.namespace = @namespace AND f.build = @build
                 AND f.version = coalesce((SELECT version FROM fact_versions WHERE namespace = @namespace), '0')) AS body`,
    )
    .get({ namespace, build });
  return { version: row?.version ?? '0', body: row?.body ?? null };
}

/**
 * Keep a fold while its version is the namespace's: one statement, tried once without waiting (a reader — a hook
 * — never queues behind a writer to save what it can compute again). False when not kept: another writer holds
 * the index, the facts moved on, or the connection is read-only.
 */
export function putFactFold(db: Database.Database, namespace: string, fold: FactFold): boolean {
  const wait = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    const result = db
      .prepare(
        `INSERT INTO fact_folds (namespace, version, build, body)
         SELECT @namespace, @version, @build, @body WHERE coalesce((SELECT version FROM fact_versions WHERE namespace = @namespace), '0') = @version
         ON CONFLICT (namespace) DO UPDATE SET version = excluded.version, build = excluded.build, body = excluded.body`,
      )
      .run({ namespace, version: fold.version, build: fold.build, body: fold.body });
    return result.changes > 0;
  } catch (error) {
    if (isBusy(error) || (error as { code?: unknown }).code === 'SQLITE_READONLY') return false;
    throw error;
  } finally {
    db.pragma(`busy_timeout = ${wait}`);
  }
}
