import type Database from 'better-sqlite3';
import { type RunDigest, digestSearchText } from '../../records/digests.js';
import type { DigestPort } from '../ports.js';
import { type WriteLockOptions, runWriteTransaction } from './write-lock.js';

interface DigestRow {
  rowid: number;
  session_id: string;
  content_hash: string;
  produced_by: string;
  record: string;
}

/** The query's words, each a quoted FTS5 string (quotes doubled), any of them matching: no input is FTS5 syntax. */
export function digestMatchExpression(text: string): string | null {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) return null;
  return [...new Set(words.map((word) => word.toLowerCase()))].map((word) => `"${word.replace(/"/g, '""')}"`).join(' OR ');
}

/** DigestPort over the run_digests table and its FTS5 index, on the store's connection, writes under its lock. */
export function createSqliteDigests(
  db: Database.Database,
  lock: WriteLockOptions,
  /** Runs a write after the engine's queued transactions (default: at once). */
  exclusive: <T>(work: () => T) => Promise<T> = async (work) => work(),
): DigestPort {
  const live = '(d.expires_at_ms IS NULL OR d.expires_at_ms > @now)';
  // Prepared on first use: an index opened read-only before this plane's migration has no run_digests table.
  let prepared: ReturnType<typeof prepare> | null = null;
  const statements = (): ReturnType<typeof prepare> => (prepared ??= prepare());
  const prepare = () => ({ select: {
    one: db.prepare<[string], DigestRow>('SELECT rowid, session_id, content_hash, produced_by, record FROM run_digests WHERE session_id = ?'),
    get: db.prepare(`SELECT d.record FROM run_digests d WHERE d.session_id = @session AND ${live}`),
    listAll: db.prepare(`SELECT d.record FROM run_digests d WHERE ${live} ORDER BY d.created_at_ms DESC, d.session_id LIMIT @limit`),
    listIn: db.prepare(
      `SELECT d.record FROM run_digests d WHERE d.namespace_id = @namespace AND ${live} ORDER BY d.created_at_ms DESC, d.session_id LIMIT @limit`,
    ),
    searchAll: db.prepare(
      `SELECT d.record, -bm25(run_digests_fts) AS score FROM run_digests_fts f JOIN run_digests d ON d.rowid = f.rowid
       WHERE run_digests_fts MATCH @match AND ${live} ORDER BY bm25(run_digests_fts), d.session_id LIMIT @limit`,
    ),
    searchIn: db.prepare(
      `SELECT d.record, -bm25(run_digests_fts) AS score FROM run_digests_fts f JOIN run_digests d ON d.rowid = f.rowid
       WHERE run_digests_fts MATCH @match AND d.namespace_id = @namespace AND ${live} ORDER BY bm25(run_digests_fts), d.session_id LIMIT @limit`,
    ),
  },
  write: {
    insert: db.prepare(
      `INSERT INTO run_digests (session_id, content_hash, namespace_id, repo, security_scope, trust_class, produced_by, created_at_ms, expires_at_ms, record)
       VALUES (@session_id, @content_hash, @namespace_id, @repo, @security_scope, @trust_class, @produced_by, @created_at_ms, @expires_at_ms, @record)`,
    ),
    update: db.prepare(
      `UPDATE run_digests SET content_hash = @content_hash, namespace_id = @namespace_id, repo = @repo, security_scope = @security_scope,
         trust_class = @trust_class, produced_by = @produced_by, created_at_ms = @created_at_ms, expires_at_ms = @expires_at_ms, record = @record
       WHERE session_id = @session_id`,
    ),
    insertFts: db.prepare('INSERT INTO run_digests_fts (rowid, body) VALUES (?, ?)'),
    deleteFts: db.prepare('DELETE FROM run_digests_fts WHERE rowid = ?'),
    deleteRow: db.prepare('DELETE FROM run_digests WHERE rowid = ?'),
    expired: db.prepare<[number], { rowid: number }>('SELECT rowid FROM run_digests WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= ?'),
  } });
  const parse = (rows: { record: string }[]): RunDigest[] => rows.map((row) => JSON.parse(row.record) as RunDigest);
  const run = async <T>(work: () => T): Promise<T> => work();

  return {
    put: (digest) =>
      exclusive(() =>
        runWriteTransaction(
          db,
          () => {
            const { select, write } = statements();
            const existing = select.one.get(digest.session_id);
            if (existing && existing.content_hash === digest.content_hash && existing.produced_by === digest.produced_by) return 'unchanged' as const;
            const params = {
              session_id: digest.session_id,
              content_hash: digest.content_hash,
              namespace_id: digest.namespace_id,
              repo: digest.repo,
              security_scope: digest.security_scope,
              trust_class: digest.trust_class,
              produced_by: digest.produced_by,
              created_at_ms: digest.created_at_ms,
              expires_at_ms: digest.expires_at_ms,
              record: JSON.stringify(digest),
            };
            let rowid: number;
            if (existing) {
              write.update.run(params);
              write.deleteFts.run(existing.rowid);
              rowid = existing.rowid;
            } else {
              rowid = Number(write.insert.run(params).lastInsertRowid);
            }
            write.insertFts.run(rowid, digestSearchText(digest));
            return existing ? ('replaced' as const) : ('inserted' as const);
          },
          lock,
        ),
      ),
    get: (sessionId, nowMs) =>
      run(() => {
        const { select } = statements();
        const row = select.get.get({ session: sessionId, now: nowMs }) as { record: string } | undefined;
        return row ? (JSON.parse(row.record) as RunDigest) : null;
      }),
    list: ({ namespace, limit, nowMs }) =>
      run(() => {
        const { select } = statements();
        const params = { namespace, limit: Math.max(0, Math.trunc(limit)), now: nowMs };
        return parse((namespace === null ? select.listAll.all(params) : select.listIn.all(params)) as { record: string }[]);
      }),
    search: ({ text, namespace, limit, nowMs }) =>
      run(() => {
        const match = digestMatchExpression(text);
        if (!match) return [];
        const { select } = statements();
        const params = { match, namespace, limit: Math.max(0, Math.trunc(limit)), now: nowMs };
        const rows = (namespace === null ? select.searchAll.all(params) : select.searchIn.all(params)) as { record: string; score: number }[];
        return rows.map((row) => ({ digest: JSON.parse(row.record) as RunDigest, score: row.score }));
      }),
    remove: ({ sessionIds = [], expiredAtMs }) =>
      exclusive(() =>
        runWriteTransaction(
          db,
          () => {
            const { select, write } = statements();
            const rowids = new Set<number>();
            for (const id of sessionIds) {
              const row = select.one.get(id);
              if (row) rowids.add(row.rowid);
            }
            if (expiredAtMs !== undefined) for (const row of write.expired.all(expiredAtMs)) rowids.add(row.rowid);
            for (const rowid of rowids) {
              write.deleteFts.run(rowid);
              write.deleteRow.run(rowid);
            }
            return rowids.size;
          },
          lock,
        ),
      ),
  };
}
