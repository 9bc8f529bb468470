import type { RankedTerm } from '../normalize/keywords.js';
import type { IngestTx } from '../store/ports.js';
import type { SessionWrite, StoredSession } from '../store/types.js';
import { copyDocumentArchive, describeArchive } from './archive-raw.js';
import { type FileOutcome, type IngestContext, makeOutcome } from './context.js';
import type { IndexFileOptions, PreparedFile } from './index-file.js';
import type { CarriedSession, DocumentCarry, PartCounts } from './prepare-document.js';
import { chooseSessionId, settleContest } from './session-choice.js';
import { mergeCounts, renameSession } from './session-merge.js';

/** What a whole-file document's commit did, session by session (FileOutcome.document). */
export interface DocumentOutcome {
  /** Sessions written, under their stored ids, with their keyword terms ranked at the parse. */
  written: { id: string; ranked: RankedTerm[] | null }[];
  /** Sessions whose content had not changed: not written. */
  unchanged: number;
  /** Sessions the document no longer holds, removed, with the projections to delete. */
  removed: { id: string; projectionPath: string | null }[];
  /** Changed sessions left out: held by another file, forgotten, or the current session. */
  skipped: number;
  parts: PartCounts;
}

type PreparedDocumentFile = Extract<PreparedFile, { kind: 'document' }>;

/**
 * Commit a document's changed sessions, and remove the ones it no longer holds, in one FileCommit: the sessions
 * whose hash is unchanged are not touched. Each changed session settles its id as a transcript does
 * (session-choice.ts: a copy held by another file is not indexed twice, a rebuilt session is taken over), then is
 * written whole (its tree may have lost prompts as well as gained them). The raw archive keeps one copy of the
 * document for all its sessions. The file state carries the new per-session and per-part hashes.
 */
export async function commitDocument(
  context: IngestContext,
  store: IngestTx,
  path: string,
  options: IndexFileOptions,
  prepared: PreparedDocumentFile,
): Promise<FileOutcome> {
  const { changes, buffer, contentHash, source } = prepared;
  const fileBase = { path, source, size: buffer.length, mtimeMs: prepared.mtimeMs, contentHash, indexedAtMs: context.now(), prefixHash: contentHash, offset: 0, line: 0 };
  const warnings = [...changes.warnings];
  // The sessions of one document share its project folder.
  const optedOut = context.optOut.checkCwd(changes.changed[0]?.normalized.chunk.session.cwd ?? null);
  if (optedOut) {
    await store.commitFile({ file: { ...fileBase, sessionId: null, carry: null, excluded: 'opted-out' }, session: null, reset: false, entries: [], results: [], anchors: [], usage: [] });
    return makeOutcome(path, 'excluded', { reason: optedOut, source, warnings });
  }
  const carried: CarriedSession[] = [...changes.unchanged];
  const writes: SessionWrite[] = [];
  const outcome: DocumentOutcome = { written: [], unchanged: changes.unchanged.length, removed: [], skipped: 0, parts: changes.parts };
  let archivePath: string | null = null;
  let adoptedFrom: string | null = null;
  let entries = 0;
  /** Sessions another file holds the same (a copy of the project): by that file. */
  const heldElsewhere = new Map<string, number>();
  for (const changed of changes.changed) {
    const { chunk } = changed.normalized;
    const id = chunk.session.id;
    if (context.excludeSessionIds.has(id)) {
      // Not carried: once it is no longer the current session, the next run writes it.
      outcome.skipped += 1;
      continue;
    }
    const carry: CarriedSession = { id, stored: null, hash: changed.hash, parts: changed.parts };
    carried.push(carry);
    if (await store.isForgotten(id)) {
      outcome.skipped += 1;
      continue;
    }
    const choice = await chooseSessionId(store, path, id, { adoptFrom: options.adoptFrom });
    let storedId = choice.sessionId;
    if (choice.contested) {
      const settled = await settleContest(store, choice.contested, chunk.entries.map((entry) => entry.key));
      if (settled === 'duplicate') {
        heldElsewhere.set(choice.contested.path, (heldElsewhere.get(choice.contested.path) ?? 0) + 1);
        outcome.skipped += 1;
        continue;
      }
      if (settled === 'different') storedId = choice.suffixed;
    }
    if (storedId !== id && (await store.isForgotten(storedId))) {
      outcome.skipped += 1;
      continue;
    }
    adoptedFrom ??= choice.adopted;
    carry.stored = storedId;
    archivePath ??= archiveDocument(context, options, source, path, buffer);
    const renamed = storedId === id ? chunk : renameSession(chunk, storedId);
    const prior = await store.getSession(storedId);
    const session: StoredSession = {
      ...renamed.session,
      entryCount: 0,
      filteredNoiseCount: changed.normalized.filtered,
      skipped: mergeCounts({}, renamed.skipped, changed.normalized.filteredByReason),
      archivePath,
      projectionPath: prior?.projectionPath ?? null,
      contentHash: changed.hash,
      projectionStale: true,
    };
    writes.push({
      session,
      reset: true,
      entries: renamed.entries,
      results: renamed.results,
      anchors: renamed.anchors,
      usage: renamed.usage,
      archived: describeArchive(context, archivePath, { source, sessionId: storedId, buffer, contentHash, filteredNoiseCount: changed.normalized.filtered }),
      ...(changed.documents ? { documents: changed.documents } : {}),
    });
    entries += renamed.entries.length;
    outcome.written.push({ id: storedId, ranked: changed.ranked ?? null });
  }
  for (const [holder, count] of heldElsewhere) {
    warnings.push(`${path}: ${count} conversation${count === 1 ? ' is' : 's are'} indexed from ${holder} already; not indexed twice`);
  }
  const drops: string[] = [];
  for (const gone of changes.removed) {
    if (gone.stored === null) continue;
    const session = await store.getSession(gone.stored);
    // Only a session this file wrote: one another file (or machine) took over stays.
    if (!session || session.path !== path || (session.machine ?? null) !== store.machine) continue;
    drops.push(gone.stored);
    outcome.removed.push({ id: gone.stored, projectionPath: session.projectionPath });
  }
  const carry: DocumentCarry = { v: 1, kind: 'document', sessions: carried };
  await store.commitFile({
    file: { ...fileBase, sessionId: null, carry, excluded: null },
    session: null,
    reset: false,
    entries: [],
    results: [],
    anchors: [],
    usage: [],
    sessions: writes,
    dropSessions: drops,
    forgetFile: adoptedFrom,
  });
  const status = writes.length > 0 || drops.length > 0 ? 'indexed' : 'unchanged';
  return makeOutcome(path, status, {
    sessionId: outcome.written[0]?.id ?? null,
    source,
    entries,
    filtered: changes.changed.reduce((sum, changed) => sum + changed.normalized.filtered, 0),
    warnings,
    bytes: status === 'indexed' ? buffer.length : 0,
    document: outcome,
  });
}

/** One raw copy of the document for all its sessions (a rebuild reads the copy where it is). */
function archiveDocument(context: IngestContext, options: IndexFileOptions, source: string, path: string, buffer: Buffer): string {
  return options.selfArchived ? path : copyDocumentArchive(context, source, path, buffer);
}
