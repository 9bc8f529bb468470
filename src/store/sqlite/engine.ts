import type { IngestTx, StoreEngine } from '../ports.js';
import { createSqliteDigests } from './digests.js';
import { putFactFold, readFactFold } from './fixes.js';
import { sqliteMemoryPort } from './memories.js';
import { createSqliteSessionFields } from './session-fields.js';
import { type OpenStoreOptions, openSqliteStore } from './sqlite-store.js';

/**
 * The embedded engine: the ports over one SQLite file. better-sqlite3 is synchronous and fast, so each method
 * does its work at once and hands back a settled promise; the seam costs a microtask per call, not per row
 * (a file's rows are committed in one call). An async transaction holds the connection from BEGIN IMMEDIATE to
 * COMMIT; transactions of one engine are queued, never interleaved.
 */
export function openSqliteEngine(path: string, options: OpenStoreOptions = {}): StoreEngine {
  const store = openSqliteStore(path, options);
  let queue: Promise<unknown> = Promise.resolve();
  const run = async <T>(work: () => T): Promise<T> => work();
  // Field writes, as digest writes, wait for the engine's queued transactions.
  const fields = createSqliteSessionFields(store.planeAccess().db, store.planeAccess().lock, <T>(work: () => T): Promise<T> => {
    const next = queue.then(work);
    queue = next.catch(() => undefined);
    return next;
  });

  return {
    name: 'sqlite',
    location: path,
    ingest: {
      getFile: (file) => run(() => store.getFile(file)),
      listFiles: () => run(() => store.listFiles()),
      transaction: <T>(work: (tx: IngestTx) => Promise<T>) => {
        const next = queue.then(async () => {
          store.beginBatch();
          // A file whose commit failed may have left rows (no savepoint per file inside a batch: FTS5 would
          // flush at each one). Whatever \`work\` does after that, the transaction is rolled back.
          let failed: unknown = null;
          try {
            const result = await work({
              machine: null,
              getFile: (file) => run(() => store.getFile(file)),
              listEntryKeys: (id) => run(() => store.listEntries(id).map((entry) => entry.key)),
              getSession: (id) => run(() => store.getSession(id)),
              isForgotten: (id) => run(() => store.isForgotten(id)),
              commitFile: async (change) => {
                try {
                  store.commitFile(change);
                } catch (error) {
                  failed ??= error;
                  throw error;
                }
              },
            });
            if (failed !== null) throw failed;
            store.endBatch('commit');
            return result;
          } catch (error) {
            store.endBatch('rollback');
            throw error;
          }
        });
        queue = next.catch(() => undefined);
        return next;
      },
      getSession: (id) => run(() => store.getSession(id)),
      listSessions: () => run(() => store.listSessions()),
      listEntries: (sessionId) => run(() => store.listEntries(sessionId)),
      listAnchors: (sessionId) => run(() => store.listAnchors(sessionId)),
      markProjected: (sessionId, projectionPath) => run(() => store.markProjected(sessionId, projectionPath)),
      rewriteSessionPaths: (rewrite) => run(() => store.rewriteSessionPaths(rewrite)),
      putSessionTerms: (items) => run(() => store.putSessionTerms(items)),
      countSessionTerms: (terms) => run(() => store.countSessionTerms(terms)),
      putSessionFields: (docs) => fields.put(docs),
      listStaleSessionFields: (version) => fields.listStale(version),
      flushLedger: (append) => run(() => store.flushLedger(append)),
      listFailures: () => run(() => store.listFailures()),
      putFailure: (failure) => run(() => store.putFailure(failure)),
      clearFailure: (key) => run(() => store.clearFailure(key)),
    },
    search: {
      searchLexical: (query) => run(() => store.searchLexical(query)),
      hasLexicalMatch: (term) => run(() => store.hasLexicalMatch(term)),
      searchTrigram: (query) => run(() => store.searchTrigram(query)),
      searchTime: (query) => run(() => store.searchTime(query)),
      readTimeBounds: () => run(() => store.readTimeBounds()),
      getSession: (id) => run(() => store.getSession(id)),
    },
    vectors: {
      getModel: () => run(() => store.getEmbeddingModel()),
      setModel: (model) => run(() => store.setEmbeddingModel(model)),
      listPending: (limit) => run(() => store.listPendingEmbeddings(limit)),
      put: (items) => run(() => store.putEmbeddings(items)),
      count: () => run(() => store.countEmbeddings()),
      search: (query) => run(() => store.searchVector(query)),
    },
    browse: {
      listSessionRecords: (filter) => run(() => store.listSessionRecords(filter)),
      listSessionSummaries: (filter) => run(() => store.listSessionSummaries(filter)),
      findSessionsByPrefix: (prefix, limit) => run(() => store.findSessionsByPrefix(prefix, limit)),
      getSession: (id) => run(() => store.getSession(id)),
      listEntries: (sessionId) => run(() => store.listEntries(sessionId)),
      getEntriesByIds: (ids, sessionId) => run(() => store.getEntriesByIds(ids, sessionId)),
      listSessionPlaces: () => run(() => store.listSessionPlaces()),
    },
    stats: {
      stats: () => run(() => store.stats()),
      recordRun: (record) => run(() => store.recordRun(record)),
      checkIntegrity: () => run(() => store.checkIntegrity()),
    },
    forget: {
      findSessions: (selector) => run(() => store.findForgettable(selector)),
      forget: (ids, reason, atMs) => run(() => store.forgetSessions(ids, reason, atMs)),
      listTombstones: () => run(() => store.listTombstones()),
    },
    copy: {
      readSessionExtras: (id) => run(() => store.readSessionExtras(id)),
      writeSessionExtras: (id, extras) => run(() => store.writeSessionExtras(id, extras)),
      listRuns: () => run(() => store.listRuns()),
      listCopied: (source) => run(() => store.listCopied(source)),
      markCopied: (source, id, hash) => run(() => store.markCopied(source, id, hash)),
    },
    fixes: {
      putSessionEvents: (sessionId, events) => run(() => store.putFixEvents(sessionId, events)),
      listEvents: (filter) => run(() => store.listFixEvents(filter)),
      listNamespaces: () => run(() => store.listFixNamespaces()),
      readFold: (namespace, build) => run(() => readFactFold(store.planeAccess().db, namespace, build)),
      putFold: (namespace, fold) => run(() => putFactFold(store.planeAccess().db, namespace, fold)),
    },
    // Digest writes wait for an ingest transaction of this engine to finish: never inside its BEGIN … COMMIT.
    digests: createSqliteDigests(store.planeAccess().db, store.planeAccess().lock, <T>(work: () => T): Promise<T> => {
      const next = queue.then(work);
      queue = next.catch(() => undefined);
      return next;
    }),
    memories: sqliteMemoryPort(() => store.planeAccess()),
    markers: {
      list: (query) => run(() => store.listMarkers(query)),
      countByType: (query) => run(() => store.countMarkersByType(query)),
      // A write: after the engine's queued transactions, never inside one's BEGIN … COMMIT.
      sync: () => {
        const next = queue.then(() => store.syncMarkers());
        queue = next.catch(() => undefined);
        return next;
      },
    },
    fields,
    docs: {
      listDocFiles: (namespaceId) => run(() => store.listDocFiles(namespaceId)),
      replaceDocFiles: (namespaceId, files) => run(() => store.replaceDocFiles(namespaceId, files)),
      searchDocs: (query) => run(() => store.searchDocs(query)),
      readDocs: (namespaceId) => run(() => store.readDocs(namespaceId)),
    },
    close: () => run(() => store.close()),
  };
}
