import { resolveHomePathOrNull, toHomeRelative, toHomeRelativeOrNull } from '../archive/home-path.js';
import type { ArchiveRecord } from '../model.js';
import type { IngestTx, StoreEngine } from './ports.js';
import type { FileCommit, ForgottenSession, SessionWrite, StoredSession } from './types.js';

/**
 * An engine whose session paths are home-relative at rest: a session's raw archive and projection, and an
 * archived pair's `archive_path`, are stored relative to `home` when they lie inside it, and every session read
 * back has them resolved against `home` — the home in use, wherever it has been moved or copied to. Paths
 * outside the home stay absolute. The same for every engine: the engines store what they are given.
 */
export function withHomePaths(engine: StoreEngine, home: string): StoreEngine {
  const outward = <T extends StoredSession | ForgottenSession>(session: T): T => ({
    ...session,
    archivePath: resolveHomePathOrNull(home, session.archivePath),
    projectionPath: resolveHomePathOrNull(home, session.projectionPath),
  });
  const outwardOrNull = <T extends StoredSession>(session: T | null): T | null => (session ? outward(session) : null);
  const inward = (session: StoredSession): StoredSession => ({
    ...session,
    archivePath: toHomeRelativeOrNull(home, session.archivePath),
    projectionPath: toHomeRelativeOrNull(home, session.projectionPath),
  });
  const inwardRecord = (record: ArchiveRecord | null | undefined): ArchiveRecord | null | undefined =>
    record ? { ...record, archive_path: toHomeRelative(home, record.archive_path) } : record;
  const inwardWrite = <T extends Omit<SessionWrite, 'session'>>(write: T): T => ({ ...write, archived: inwardRecord(write.archived) });
  const inwardCommit = (change: FileCommit): FileCommit => ({
    ...inwardWrite(change),
    session: change.session ? inward(change.session) : null,
    ...(change.sessions ? { sessions: change.sessions.map((write) => ({ ...inwardWrite(write), session: inward(write.session) })) } : {}),
  });
  const { ingest, search, browse, forget, copy } = engine;
  return {
    ...engine,
    name: engine.name,
    location: engine.location,
    ingest: {
      ...ingest,
      transaction: (work) =>
        ingest.transaction((tx) => {
          const wrapped: IngestTx = {
            machine: tx.machine,
            getFile: (path) => tx.getFile(path),
            listEntryKeys: (id) => tx.listEntryKeys(id),
            getSession: async (id) => outwardOrNull(await tx.getSession(id)),
            isForgotten: (id) => tx.isForgotten(id),
            commitFile: (change) => tx.commitFile(inwardCommit(change)),
          };
          return work(wrapped);
        }),
      getSession: async (id) => outwardOrNull(await ingest.getSession(id)),
      listSessions: async () => (await ingest.listSessions()).map(outward),
      markProjected: (sessionId, projectionPath) => ingest.markProjected(sessionId, toHomeRelative(home, projectionPath)),
    },
    search: { ...search, getSession: async (id) => outwardOrNull(await search.getSession(id)) },
    browse: {
      ...browse,
      getSession: async (id) => outwardOrNull(await browse.getSession(id)),
      listSessionRecords: async (filter) => (await browse.listSessionRecords(filter)).map(outward),
      listSessionSummaries: async (filter) => (await browse.listSessionSummaries(filter)).map(outward),
    },
    forget: { ...forget, forget: async (ids, reason, atMs) => (await forget.forget(ids, reason, atMs)).map(outward) },
    copy: {
      ...copy,
      writeSessionExtras: (id, extras) =>
        copy.writeSessionExtras(id, { ...extras, archived: extras.archived.map((pair) => ({ ...pair, record: { ...pair.record, archive_path: toHomeRelative(home, pair.record.archive_path) } })) }),
    },
    close: () => engine.close(),
  };
}
