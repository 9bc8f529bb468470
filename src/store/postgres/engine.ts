import type { ArchiveRecord } from '../../model.js';
import type { IngestTx, StoreEngine } from '../ports.js';
import { BatchAbortedError, type FileCommit, type FileState, type StoredSession } from '../types.js';
import { browseEntries, browseEntriesByIds, browseSession, browseSessionPlaces } from './read.js';
import { findSessionsByPrefix, listSessionRecords, listSessionSummaries } from './browse.js';
import { createPostgresDigests } from './digests.js';
import { createPostgresSessionFields } from './session-fields.js';
import { type PgClient, type PgPool, type PgPoolClient, createPool, redactUrl, toPgError } from './client.js';
import { applyFileCommit } from './commit.js';
import { listCopied, listRuns, markCopied, readSessionExtras, writeSessionExtras } from './copy.js';
import { listFixEvents, listFixNamespaces, putFactFold, putFixEvents, readFactFold } from './fixes.js';
import { listDocFiles, readDocs, replaceDocFiles, searchDocs } from './docs.js';
import { findForgettable, forgetSessions, isForgotten, listTombstones } from './forget.js';
import { postgresMemoryPort } from './memories.js';
import { countMarkersByType, listMarkers, syncMarkers } from './markers.js';
import { DEFAULT_MARKER_CONFIG, type MarkerConfig } from '../../markers/extract.js';
import { fingerprintMarkerConfig } from '../../markers/entry-markers.js';
import { POSTGRES_MIGRATIONS, appliedCount, migratePostgres } from './schema.js';
import { MoonError } from '../../errors.js';
import { discardPostings, flushPostings } from './postings.js';
import { fillPostings } from './fill-postings.js';
import { hasLexicalMatch, searchLexical, searchTime, searchTrigram, searchVector } from './search.js';
import { checkIntegrity, listFailures, putFailure, readStats, recordRun } from './stats.js';
import { countVectors, getModel, listPending, putVectors, setModel } from './vectors.js';
import { type AnchorRow, type FileRow, type SessionRow, toAnchor, toFileState, toSession } from './rows.js';

export interface PostgresEngineOptions {
  /**
   * Which machine (MOON_HOME) this process indexes for. File states, failures, archived pairs and ledger lines
   * are per machine — two laptops may both have `~/.claude/projects/x.jsonl` — while sessions and entries are
   * shared by everyone writing to the database.
   */
  machine?: string;
  /** How long a writer waits in total for another process's ingest transaction (default 5 minutes). */
  lockTimeoutMs?: number;
  /** Told once when this process starts waiting for another writer. */
  onWait?: (message: string) => void;
  /** The `@/` marker patterns every committed entry is read with (default: seed 004's nine types). */
  markers?: MarkerConfig;
}

/** pg_advisory_xact_lock key of ingest transactions: the database's counterpart of SQLite's file write lock. */
const INGEST_LOCK = 0x6d6f6f6e02;
const DEFAULT_LOCK_TIMEOUT_MS = 5 * 60 * 1000;

/**
 * The shared engine: the ports over one PostgreSQL database (pgvector and pg_trgm), for a team whose machines all
 * write to and recall from one memory. Writers take a transaction-level advisory lock, so two `moon index` runs —
 * on one machine or many — commit one after the other, each seeing what the other committed; entries are keyed
 * by (session, record key), so the same transcript indexed on two machines is stored once.
 */
export async function openPostgresEngine(url: string, options: PostgresEngineOptions = {}): Promise<StoreEngine> {
  const location = redactUrl(url);
  const machine = options.machine ?? 'default';
  const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const markers = options.markers ?? DEFAULT_MARKER_CONFIG;
  const pool = await createPool(url);
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw toPgError(location, error);
    }
  };
  let applied: number;
  try {
    applied = await withClient(pool, async (client) => {
      await migratePostgres(client);
      return appliedCount(client);
    });
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw toPgError(location, error);
  }
  // A database a newer moon migrated is read here but not written: this build would leave out what the newer
  // one keeps beside each entry (as a moon from before postings would leave out the postings).
  const newerSchema =
    applied > POSTGRES_MIGRATIONS
      ? new MoonError('store', `${location} was migrated by a newer moon (${applied} migrations; this one knows ${POSTGRES_MIGRATIONS}): it is not written from here`, {
          hint: 'upgrade moon on this machine to the version the other machines run; recall still reads the database',
        })
      : null;
  const db: PgClient = { query: (sql, params) => guard(() => pool.query(sql, params)) };
  /** A transaction on one client; the advisory lock when `lock` is set. */
  const inTransaction = <T>(lock: boolean, work: (client: PgClient) => Promise<T>): Promise<T> => {
    if (lock && newerSchema !== null) return Promise.reject(newerSchema);
    return guard(() =>
      withClient(pool, async (client) => {
        await client.query('BEGIN');
        try {
          if (lock) await takeIngestLock(client, location, lockTimeoutMs, options.onWait);
          const result = await work(client);
          // The lexeme counts this transaction's writes changed, added up once (schema.ts, migration 6), and its
          // entries' postings (postings.ts). Only locked transactions write entries.
          if (lock) {
            await client.query('SELECT moon.fold_lexemes()');
            await flushPostings(client);
          }
          await client.query('COMMIT');
          return result;
        } catch (error) {
          discardPostings(client);
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }),
    );
  };
  const getSession = async (client: PgClient, id: string): Promise<StoredSession | null> => {
    const row = (await client.query<SessionRow>('SELECT * FROM moon.sessions WHERE id = $1', [id])).rows[0];
    return row ? toSession(row) : null;
  };
  const getFile = async (client: PgClient, path: string): Promise<FileState | null> => {
    const row = (await client.query<FileRow>('SELECT * FROM moon.files WHERE machine = $1 AND path = $2', [machine, path])).rows[0];
    return row ? toFileState(row) : null;
  };

  let filling: Promise<void> | null = null;
  const fields = createPostgresSessionFields(db, (work) => inTransaction(false, work));
  return {
    name: 'postgres',
    location,
    ingest: {
      getFile: (path) => getFile(db, path),
      listFiles: async () =>
        (await db.query<FileRow>('SELECT * FROM moon.files WHERE machine = $1 ORDER BY path', [machine])).rows.map(toFileState),
      transaction: async <T>(work: (tx: IngestTx) => Promise<T>) => {
        // An index from before postings gets them first (fill-postings.ts), and so do entries a moon from before
        // postings wrote here meanwhile: checked before every write (one small read), one fill at a time. A fill
        // that failed (a lost connection) is tried again by the next write rather than failing every one.
        await (filling ??= fillPostings(db, (fill) => inTransaction(true, fill)).finally(() => {
          filling = null;
        }));
        return inTransaction(true, (client) =>
          work({
            machine,
            getFile: (path) => getFile(client, path),
            listEntryKeys: async (id) =>
              (await client.query<{ key: string }>('SELECT key FROM moon.entries WHERE session_id = $1', [id])).rows.map((row) => row.key),
            getSession: (id) => getSession(client, id),
            isForgotten: (id) => isForgotten(client, id),
            commitFile: async (change: FileCommit) => {
              await client.query('SAVEPOINT moon_file');
              try {
                await applyFileCommit(client, machine, change, markers);
                await client.query('RELEASE SAVEPOINT moon_file');
              } catch (error) {
                const mapped = toPgError(location, error);
                // A lost connection ends the run (the next one completes the file); a file's own bad data
                // aborts the batch, which is then redone file by file.
                if (mapped !== error) throw mapped;
                throw new BatchAbortedError(change.file.path, error);
              }
            },
          }),
        );
      },
      getSession: (id) => getSession(db, id),
      // The sessions this machine indexed: the ones whose projections and raw archives live in its MOON_HOME.
      listSessions: async () =>
        (await db.query<SessionRow>('SELECT * FROM moon.sessions WHERE machine = $1 ORDER BY start_ms, id', [machine])).rows.map(toSession),
      listEntries: (sessionId) => browseEntries(db, sessionId),
      listAnchors: async (sessionId) =>
        (await db.query<AnchorRow>('SELECT * FROM moon.anchors WHERE session_id = $1 ORDER BY line, id', [sessionId])).rows.map(toAnchor),
      markProjected: async (sessionId, projectionPath) => {
        await db.query('UPDATE moon.sessions SET projection_path = $1, projection_stale = false WHERE id = $2', [projectionPath, sessionId]);
      },
      // Only this machine's sessions: another machine's paths name files in its own MOON_HOME.
      rewriteSessionPaths: (rewrite) =>
        inTransaction(false, async (client) => {
          const rows = (
            await client.query<{ id: string; archive_path: string | null; projection_path: string | null }>(
              'SELECT id, archive_path, projection_path FROM moon.sessions WHERE machine = $1 AND (archive_path IS NOT NULL OR projection_path IS NOT NULL) FOR UPDATE',
              [machine],
            )
          ).rows;
          let changed = 0;
          for (const row of rows) {
            const archivePath = row.archive_path === null ? null : rewrite(row.archive_path);
            const projectionPath = row.projection_path === null ? null : rewrite(row.projection_path);
            if (archivePath === row.archive_path && projectionPath === row.projection_path) continue;
            await client.query('UPDATE moon.sessions SET archive_path = $1, projection_path = $2 WHERE id = $3', [archivePath, projectionPath, row.id]);
            changed += 1;
          }
          return changed;
        }),
      putSessionTerms: async (items) => {
        if (items.length === 0) return;
        await inTransaction(false, async (client) => {
          const sessionIds = items.map((item) => item.sessionId);
          await client.query('DELETE FROM moon.session_terms WHERE session_id = ANY ($1::text[])', [sessionIds]);
          // One row per (term, session): parallel arrays unnested together.
          const terms = items.flatMap((item) => item.terms);
          const owners = items.flatMap((item) => item.terms.map(() => item.sessionId));
          if (terms.length === 0) return;
          await client.query(
            `INSERT INTO moon.session_terms (term, session_id, namespace)
             SELECT DISTINCT t.term, t.session_id, coalesce(s.project, '')
             FROM unnest($1::text[], $2::text[]) AS t (term, session_id) LEFT JOIN moon.sessions s ON s.id = t.session_id
             ON CONFLICT DO NOTHING`,
            [terms, owners],
          );
        });
      },
      putSessionFields: (docs) => fields.put(docs),
      listStaleSessionFields: (version) => fields.listStale(version),
      countSessionTerms: async (terms) => {
        const distinct = [...new Set(terms)];
        const rows = await db.query<{ term: string; n: number }>(
          'SELECT term, count(*) AS n FROM moon.session_terms WHERE term = ANY ($1::text[]) GROUP BY term',
          [distinct],
        );
        const found = new Map(rows.rows.map((row) => [row.term, Number(row.n)]));
        const counts = new Map(distinct.map((term) => [term, found.get(term) ?? 0]));
        const sessionCount = Number((await db.query<{ n: number }>('SELECT count(*) AS n FROM moon.sessions')).rows[0]?.n ?? 0);
        return { sessionCount, counts };
      },
      flushLedger: (append) =>
        inTransaction(false, async (client) => {
          // FOR UPDATE: a second process of this machine waits, then finds the rows written and skips them.
          const pending = await client.query<{ session_id: string; content_hash: string; record: ArchiveRecord }>(
            'SELECT session_id, content_hash, record FROM moon.archived WHERE machine = $1 AND NOT ledgered ORDER BY seq FOR UPDATE',
            [machine],
          );
          for (const row of pending.rows) {
            append(row.record);
            await client.query('UPDATE moon.archived SET ledgered = true WHERE machine = $1 AND session_id = $2 AND content_hash = $3', [
              machine,
              row.session_id,
              row.content_hash,
            ]);
          }
          return pending.rows.length;
        }),
      listFailures: () => listFailures(db, machine),
      putFailure: (failure) => putFailure(db, machine, failure),
      clearFailure: async (key) => {
        await db.query('DELETE FROM moon.failures WHERE machine = $1 AND key = $2', [machine, key]);
      },
    },
    search: {
      searchLexical: (query) => searchLexical(db, query),
      hasLexicalMatch: (term) => hasLexicalMatch(db, term),
      searchTrigram: (query) => searchTrigram(db, query),
      searchTime: (query) => searchTime(db, query),
      readTimeBounds: async () => {
        const row = (await db.query<{ lo: number | null; hi: number | null }>('SELECT min(ts) AS lo, max(ts) AS hi FROM moon.entries')).rows[0];
        return row && row.lo !== null && row.hi !== null ? { startMs: Number(row.lo), endMs: Number(row.hi) } : null;
      },
      getSession: (id) => getSession(db, id),
    },
    vectors: {
      getModel: () => getModel(db),
      setModel: (model) => inTransaction(true, (client) => setModel(client, model)),
      listPending: (limit) => listPending(db, limit),
      put: (items) => putVectors(db, items),
      count: () => countVectors(db),
      search: (query) => searchVector(db, query),
    },
    browse: {
      listSessionRecords: (filter) => listSessionRecords(db, filter),
      listSessionSummaries: (filter) => listSessionSummaries(db, filter),
      findSessionsByPrefix: (prefix, limit) => findSessionsByPrefix(db, prefix, limit),
      getSession: (id) => browseSession(db, id),
      listEntries: (sessionId) => browseEntries(db, sessionId),
      getEntriesByIds: (ids, sessionId) => browseEntriesByIds(db, ids, sessionId),
      listSessionPlaces: () => browseSessionPlaces(db),
    },
    stats: {
      stats: async () => readStats(db, await getModel(db)),
      recordRun: (run) => recordRun(db, machine, run),
      checkIntegrity: () => checkIntegrity(db),
    },
    forget: {
      findSessions: (selector) => findForgettable(db, selector),
      forget: (ids, reason, atMs) => inTransaction(true, (client) => forgetSessions(client, ids, reason, atMs)),
      listTombstones: () => listTombstones(db),
    },
    copy: {
      readSessionExtras: (id) => readSessionExtras(db, machine, id),
      writeSessionExtras: (id, extras) => inTransaction(false, (client) => writeSessionExtras(client, machine, id, extras)),
      listRuns: () => listRuns(db, machine),
      listCopied: (source) => listCopied(db, source),
      markCopied: (source, id, hash) => markCopied(db, source, id, hash),
    },
    fixes: {
      putSessionEvents: (sessionId, events) => inTransaction(false, (client) => putFixEvents(client, sessionId, events)),
      listEvents: (filter) => listFixEvents(db, filter),
      listNamespaces: () => listFixNamespaces(db),
      readFold: (namespace, build) => readFactFold(db, namespace, build),
      putFold: (namespace, fold) => inTransaction(false, (client) => putFactFold(client, namespace, fold)),
    },
    digests: createPostgresDigests(db),
    fields,
    memories: postgresMemoryPort(db, (work) => inTransaction(false, work)),
    markers: {
      list: (query) => listMarkers(db, query),
      countByType: (query) => countMarkersByType(db, query),
      // Under the ingest lock: no file commit writes markers with other patterns meanwhile.
      sync: () => syncMarkers(db, markers, fingerprintMarkerConfig(markers), (work) => inTransaction(true, work)),
    },
    docs: {
      listDocFiles: (namespaceId) => listDocFiles(db, namespaceId),
      replaceDocFiles: (namespaceId, files) => inTransaction(false, (client) => replaceDocFiles(client, namespaceId, files)),
      searchDocs: (query) => searchDocs(db, query),
      readDocs: (namespaceId) => readDocs(db, namespaceId),
    },
    close: () => pool.end(),
  };
}

async function withClient<T>(pool: PgPool, work: (client: PgPoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A connection dropped while the client is checked out is reported by the query in flight; the event that
  // node-postgres also emits must not crash the process.
  let dropped = false;
  const onError = (): void => {
    dropped = true;
  };
  client.on('error', onError);
  let broken = false;
  try {
    return await work(client);
  } catch (error) {
    broken = dropped || toPgError('', error) !== error;
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

/**
 * The ingest lock, held to the end of the transaction. Tried first without waiting, so a writer that must wait
 * says so once; then waited for up to the lock timeout, after which the server raises lock_not_available.
 */
async function takeIngestLock(client: PgClient, location: string, timeoutMs: number, onWait?: (message: string) => void): Promise<void> {
  const tried = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [INGEST_LOCK]);
  if (tried.rows[0]?.ok) return;
  onWait?.(`waiting for another moon process writing ${location}`);
  await client.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.trunc(timeoutMs))}`);
  await client.query('SELECT pg_advisory_xact_lock($1)', [INGEST_LOCK]);
  await client.query('SET LOCAL lock_timeout = 0');
}
