import { statSync } from 'node:fs';
import { describeError, errnoOf, isEnvironmentError, isMoonError, toIoError } from '../errors.js';
import type { IngestTx } from '../store/ports.js';
import { prepareMergedDocuments, type PreparedDocument } from '../store/index-document.js';
import { BatchAbortedError, type FailureRecord, type FileState, type StoredSession } from '../store/types.js';
import { rawArchivePathFor } from '../archive/paths.js';
import { copyRawArchive, describeArchive } from './archive-raw.js';
import { type FileOutcome, type IngestContext, type NormalizedChunk, fingerprintOf, makeOutcome } from './context.js';
import { sha256 } from '../text/hash.js';
import { type ResumePoint, type TranscriptRead, readTranscript } from './read-transcript.js';
import { type SerializedError, reviveError, serializeError } from './errors-across.js';
import { type SourceName, mergeByKey } from '../model.js';
import { checkRegularFile, readRegularFile } from './read-file.js';
import { mergeCounts, renameSession } from './session-merge.js';
import { DUPLICATE, chooseSessionId, settleContest } from './session-choice.js';
import { readDocumentFile } from './read-document.js';
import { type DocumentChanges, compareDocument, readDocumentCarry } from './prepare-document.js';
import { commitDocument } from './commit-document.js';
import { inSessionOrder } from './project-session.js';
import { type RankedTerm, rankSessionTerms } from '../normalize/keywords.js';

export interface IndexFileOptions {
  /** Ignore what the index remembers and read the file from the start. */
  force?: boolean;
  /** The bytes to open when the name is not valid UTF-8 (`path` is then its escaped, shown form). */
  fsPath?: string | Buffer;
  /** An earlier run's failure on this path: skipped while the file keeps its size and mtime. */
  knownFailure?: FailureRecord | null;
  /** Take the session id from here, not from the content (a rebuild restores ids the raw archive is named by). */
  sessionId?: string;
  /**
   * Sessions whose `path` starts here were rebuilt from the raw archive: the first original transcript that
   * claims such an id takes the session over (re-read whole) instead of being indexed beside it as a copy.
   */
  adoptFrom?: string;
  /** The file is itself a raw archive copy (a rebuild reads archives/raw): record it, copy nothing. */
  selfArchived?: boolean;
}

/**
 * Errors that stop the whole run: a damaged index, a lock held past the timeout, a full disk. Going on would
 * fail every following file the same way, or record content failures that are not the files' fault.
 */
export function isFatalError(error: unknown): boolean {
  if (isMoonError(error)) return error.code === 'corrupt' || error.code === 'store' || error.code === 'io';
  return isEnvironmentError(error);
}

/**
 * Bring one transcript file into the index. Unchanged files are skipped by (path, size, mtime, hash); a file
 * that grew is read from its last committed byte offset when its committed prefix is byte-identical; anything
 * else is re-read from the start. Everything the file contributes is committed in one transaction together
 * with the new offset, so a crash (even SIGKILL) leaves either the old state or the new one.
 *
 * Two halves: `prepareFile` reads, hashes, parses and normalizes — pure work on the file, no store, so it can
 * run on a worker thread — and `commitPrepared` decides the session and commits, on the writer's thread.
 */
export async function indexFile(context: IngestContext, store: IngestTx, path: string, options: IndexFileOptions = {}): Promise<FileOutcome> {
  return indexPrepared(context, store, path, options, async () => {
    const previous = options.force ? null : await store.getFile(path);
    return { previous, prepared: prepareFile(context, path, previous, options) };
  });
}

/**
 * Commit a file prepared elsewhere (a worker) against `previous`, the file state it was prepared from. If the
 * store's state changed since (another process indexed the file meanwhile), it is prepared again here.
 */
export async function indexPreparedFile(
  context: IngestContext,
  store: IngestTx,
  path: string,
  options: IndexFileOptions,
  previous: FileState | null,
  prepared: PreparedFile,
): Promise<FileOutcome> {
  return indexPrepared(context, store, path, options, async () => {
    const current = options.force ? null : await store.getFile(path);
    if (sameFileState(current, previous)) return { previous, prepared };
    return { previous: current, prepared: prepareFile(context, path, current, options) };
  });
}

async function indexPrepared(
  context: IngestContext,
  store: IngestTx,
  path: string,
  options: IndexFileOptions,
  prepare: () => Promise<{ previous: FileState | null; prepared: PreparedFile }>,
): Promise<FileOutcome> {
  let fingerprint: string | null = null;
  try {
    const { previous, prepared } = await prepare();
    if (prepared.kind === 'failed') {
      fingerprint = prepared.fingerprint;
      throw reviveError(prepared.error);
    }
    fingerprint = prepared.fingerprint;
    return await commitPrepared(context, store, path, options, previous, prepared);
  } catch (error) {
    if (error instanceof BatchAbortedError) throw error;
    if (isFatalError(error)) throw isMoonError(error) ? error : toIoError(path, error);
    const reason = isMoonError(error) ? error.message : `${path}: ${describeError(error)}`;
    // An errno (EACCES, a file removed mid-run) may clear without the file changing: retried next run. A
    // complaint about the content (not a transcript, a parser failure) stays until the file changes.
    const remember = fingerprint !== null && errnoOf(error) === undefined;
    return makeOutcome(path, 'error', { reason, remember, fingerprint });
  }
}

/** A file's work before the store: the outcome when there is nothing to commit, else what was read. */
export type PreparedFile =
  | { kind: 'done'; fingerprint: string | null; outcome: FileOutcome }
  /** The same bytes under a new mtime: only the file state's mtime is committed. */
  | { kind: 'touched'; fingerprint: string; outcome: FileOutcome; mtimeMs: number }
  | {
      kind: 'read';
      fingerprint: string;
      mtimeMs: number;
      buffer: Buffer;
      contentHash: string;
      /** sha256 of the bytes up to the read's end offset. */
      endHash: string;
      resume: ResumePoint | null;
      transcript: PreparedTranscript;
    }
  /** A whole-file document (sources/source.ts DocumentSource): its sessions compared with the last read. */
  | { kind: 'document'; fingerprint: string; mtimeMs: number; buffer: Buffer; contentHash: string; source: SourceName; changes: DocumentChanges }
  | { kind: 'failed'; fingerprint: string | null; error: SerializedError };

/** A TranscriptRead that can cross a thread: the source by name, the raw records left behind. */
export interface PreparedTranscript {
  source: SourceName;
  endOffset: number;
  endLine: number;
  normalized: NormalizedChunk;
  warnings: string[];
  /** The entries' index documents, built here so the writer only inserts them (index-document.ts). */
  documents?: Map<string, PreparedDocument>;
  /**
   * The session's keyword terms, ranked here when the read starts at the file's beginning: a commit that writes
   * the session from it needs not read the session back for them (FileOutcome.ranked).
   */
  ranked?: RankedTerm[];
  /** The read stopped at a piece's end (PIECE_BYTES): the bytes after `endOffset` are the next piece's. */
  more?: boolean;
}

/**
 * A large transcript is read and committed in pieces of about this many bytes, each from the last one's end
 * (its resume point): no single step of indexing it holds the thread for long, so a stop is seen between
 * pieces, and a worker is handed one piece at a time.
 */
export const PIECE_BYTES = 4 * 1024 * 1024;

/** Where the piece read from `from` ends: just past the first newline at or after `from + PIECE_BYTES`, or the end. */
export function findPieceEnd(buffer: Buffer, from: number, pieceBytes = PIECE_BYTES): number {
  if (buffer.length - from <= pieceBytes) return buffer.length;
  const newline = buffer.indexOf(0x0a, from + pieceBytes);
  return newline === -1 ? buffer.length : newline + 1;
}

/** Read, hash, parse and normalize one file against its last known state. Touches no store; never throws. */
export function prepareFile(context: IngestContext, path: string, previous: FileState | null, options: IndexFileOptions): PreparedFile {
  let fingerprint: string | null = null;
  try {
    const fsPath = options.fsPath ?? path;
    const stat = statSync(fsPath);
    fingerprint = fingerprintOf(stat);
    const known = options.force ? null : options.knownFailure;
    if (known && known.fingerprint === fingerprint) {
      return { kind: 'done', fingerprint, outcome: makeOutcome(path, 'failed-before', { reason: known.reason, failedAtMs: known.failedAtMs, fingerprint }) };
    }
    checkRegularFile(stat, path);
    const excludedPath = context.optOut.checkPath(path);
    if (excludedPath) return { kind: 'done', fingerprint, outcome: makeOutcome(path, 'excluded', { reason: excludedPath }) };
    if (previous && previous.size === stat.size && previous.mtimeMs === stat.mtimeMs) {
      const status = previous.excluded ? 'excluded' : 'unchanged';
      return { kind: 'done', fingerprint, outcome: makeOutcome(path, status, { sessionId: previous.sessionId, source: previous.source, reason: previous.excluded }) };
    }
    const { buffer } = readRegularFile(fsPath, path);
    // A transcript is created before its first record is written: nothing to index yet, and not an error. It is
    // not remembered either, so the run that finds content in it indexes it.
    if (isBlank(buffer)) return { kind: 'done', fingerprint, outcome: makeOutcome(path, 'empty', { reason: 'nothing to index yet (empty file)' }) };
    const contentHash = sha256(buffer);
    if (previous && previous.contentHash === contentHash) {
      return { kind: 'touched', fingerprint, mtimeMs: stat.mtimeMs, outcome: makeOutcome(path, 'unchanged', { sessionId: previous.sessionId, source: previous.source }) };
    }
    if (previous?.excluded && previous.excluded !== DUPLICATE && previous.offset === 0) {
      // excluded whole (a fork): its first record decides, and it cannot change by appending
      if (previous.size <= buffer.length && sha256(buffer.subarray(0, previous.size)) === previous.prefixHash) {
        return { kind: 'done', fingerprint, outcome: makeOutcome(path, 'excluded', { reason: previous.excluded, sessionId: previous.sessionId }) };
      }
    }
    const resume = findResumePoint(previous, buffer);
    // A document is read whole every time it changes (it is rewritten, never appended to); JSON lines go on below.
    const document = resume === null ? readDocumentFile(path, buffer) : null;
    if (document) {
      const changes = compareDocument(context, path, document, readDocumentCarry(previous?.carry));
      return { kind: 'document', fingerprint, mtimeMs: stat.mtimeMs, buffer, contentHash, source: document.source.name, changes };
    }
    const pieceEnd = findPieceEnd(buffer, resume?.offset ?? 0);
    const more = pieceEnd < buffer.length;
    const transcript = toPrepared(readTranscript(context, path, more ? buffer.subarray(0, pieceEnd) : buffer, resume));
    if (more) transcript.more = true;
    const { chunk } = transcript.normalized;
    // Entries merged by key once, for the index documents and (a read from the start of the whole file) the keyword ranking.
    const ranks = resume === null && !chunk.fork && !more;
    const merged = context.prepareDocuments || ranks ? mergeByKey(chunk.entries, chunk.results) : null;
    if (merged && context.prepareDocuments) transcript.documents = prepareMergedDocuments(merged);
    if (merged && ranks) transcript.ranked = rankSessionTerms(inSessionOrder(merged));
    const endHash = transcript.endOffset === buffer.length ? contentHash : sha256(buffer.subarray(0, transcript.endOffset));
    return { kind: 'read', fingerprint, mtimeMs: stat.mtimeMs, buffer, contentHash, endHash, resume, transcript };
  } catch (error) {
    return { kind: 'failed', fingerprint, error: serializeError(error) };
  }
}

function toPrepared(read: TranscriptRead): PreparedTranscript {
  return { source: read.source.name, endOffset: read.read.endOffset, endLine: read.read.endLine, normalized: read.normalized, warnings: read.warnings };
}

function sameFileState(a: FileState | null, b: FileState | null): boolean {
  if (a === null || b === null) return a === b;
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.offset === b.offset && a.prefixHash === b.prefixHash && a.contentHash === b.contentHash && a.excluded === b.excluded;
}

async function commitPrepared(
  context: IngestContext,
  store: IngestTx,
  path: string,
  options: IndexFileOptions,
  previous: FileState | null,
  prepared: Exclude<PreparedFile, { kind: 'failed' }>,
): Promise<FileOutcome> {
  if (prepared.kind === 'done') return prepared.outcome;
  if (prepared.kind === 'document') return commitDocument(context, store, path, options, prepared);
  if (prepared.kind === 'touched') {
    await store.commitFile({ file: { ...previous!, mtimeMs: prepared.mtimeMs }, session: null, reset: false, entries: [], results: [], anchors: [], usage: [] });
    return prepared.outcome;
  }
  const { buffer, contentHash } = prepared;
  let { resume } = prepared;
  let { source, endOffset, endLine, normalized, warnings, documents, ranked, more } = prepared.transcript;
  let endHash = prepared.endHash;
  let chunk = normalized.chunk;
  const fileBase = {
    path,
    source,
    size: buffer.length,
    mtimeMs: prepared.mtimeMs,
    contentHash,
    indexedAtMs: context.now(),
  };
  const excludeWhole = async (excluded: string, sessionId: string): Promise<void> => {
    await store.commitFile({
      file: { ...fileBase, sessionId, prefixHash: contentHash, offset: 0, line: 0, carry: null, excluded },
      session: null,
      reset: false,
      entries: [],
      results: [],
      anchors: [],
      usage: [],
    });
  };
  if (chunk.fork) {
    await excludeWhole('fork', chunk.session.id);
    return makeOutcome(path, 'excluded', { reason: 'fork session (first record is a queue-operation)', sessionId: chunk.session.id, source, warnings });
  }
  const choice = await chooseSessionId(store, path, options.sessionId ?? chunk.session.id, options);
  let { sessionId } = choice;
  const { adopted } = choice;
  if (choice.contested) {
    // Another file holds this id: compare whole contents, so a resumed read does not look like a different one.
    if (resume !== null) {
      resume = null;
      ({ source, endOffset, endLine, normalized, warnings } = toPrepared(readTranscript(context, path, buffer, null)));
      documents = undefined;
      ranked = undefined;
      more = false;
      endHash = endOffset === buffer.length ? contentHash : sha256(buffer.subarray(0, endOffset));
      chunk = normalized.chunk;
    }
    const outcome = await settleContest(store, choice.contested, chunk.entries.map((entry) => entry.key));
    if (outcome === 'duplicate') {
      await excludeWhole(DUPLICATE, choice.contested.id);
      return makeOutcome(path, 'excluded', {
        reason: `the same transcript is indexed from ${choice.contested.path}`,
        sessionId: choice.contested.id,
        source,
        warnings,
      });
    }
    // 'take-over': the same id, re-read whole (resume is null), replacing what the holder's file gave.
    if (outcome === 'different') sessionId = choice.suffixed;
  }
  const optedOut = context.optOut.checkCwd(chunk.session.cwd);
  if (optedOut) {
    // Recorded like a fork: an unchanged transcript is not read again (after removing an opt-out, `--force`).
    await excludeWhole('opted-out', sessionId);
    return makeOutcome(path, 'excluded', { reason: optedOut, sessionId, source, warnings });
  }
  if ((await store.isForgotten(chunk.session.id)) || (await store.isForgotten(sessionId))) {
    // `moon forget` left a tombstone: this machine (or another one sharing the index) must not bring it back.
    await excludeWhole('forgotten', sessionId);
    return makeOutcome(path, 'excluded', { reason: 'forgotten (moon forget)', sessionId, source, warnings });
  }
  if (context.excludeSessionIds.has(chunk.session.id) || context.excludeSessionIds.has(sessionId)) {
    // Not recorded: once it is no longer the current session, the next run indexes it.
    return makeOutcome(path, 'excluded', { reason: 'current session', sessionId, source, warnings });
  }
  const renamed = sessionId === chunk.session.id ? chunk : renameSession(chunk, sessionId);
  const reset = resume === null || adopted !== null;
  const prior = reset ? null : await store.getSession(sessionId);
  const filteredNoiseCount = (prior?.filteredNoiseCount ?? 0) + normalized.filtered;
  const archiveInput = { source, sessionId, buffer, contentHash, filteredNoiseCount };
  // A piece before the last is committed in the same transaction as the rest (run-index.ts): the raw copy and its
  // ledger pair are the last piece's, of the whole content.
  const { archivePath, record: archived } = options.selfArchived
    ? { archivePath: path, record: describeArchive(context, path, archiveInput) }
    : more
      ? { archivePath: rawArchivePathFor(context.paths, source, sessionId), record: undefined }
      : copyRawArchive(context, archiveInput);
  const session: StoredSession = {
    ...renamed.session,
    startMs: minDefined(prior?.startMs, renamed.session.startMs),
    endMs: maxDefined(prior?.endMs, renamed.session.endMs),
    entryCount: 0,
    filteredNoiseCount,
    skipped: mergeCounts(prior?.skipped ?? {}, renamed.skipped, normalized.filteredByReason),
    archivePath,
    projectionPath: prior?.projectionPath ?? null,
    contentHash: more ? endHash : contentHash,
    projectionStale: true,
  };
  await store.commitFile({
    file: {
      ...fileBase,
      // A piece's file state describes the bytes committed, never the whole file: were it ever committed alone,
      // the next run would read on from its end instead of taking the file as unchanged.
      ...(more ? { size: endOffset, contentHash: endHash } : {}),
      sessionId,
      prefixHash: endHash,
      offset: endOffset,
      line: endLine,
      carry: renamed.carry,
      excluded: null,
    },
    session,
    reset,
    entries: renamed.entries,
    results: renamed.results,
    anchors: renamed.anchors,
    usage: renamed.usage,
    archived,
    forgetFile: adopted,
    ...(documents ? { documents } : {}),
  });
  return makeOutcome(path, 'indexed', {
    sessionId,
    source,
    entries: renamed.entries.length,
    filtered: normalized.filtered,
    warnings,
    resumed: !reset,
    bytes: (more ? endOffset : buffer.length) - (resume?.offset ?? 0),
    ...(more ? { more } : {}),
    // Terms ranked at the parse describe the session only when this commit wrote all of it.
    ...(reset && ranked ? { ranked } : {}),
  });
}

function isBlank(buffer: Buffer): boolean {
  for (const byte of buffer) {
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return false;
  }
  return true;
}

function findResumePoint(previous: FileState | null, buffer: Buffer): ResumePoint | null {
  if (!previous || previous.excluded || !previous.source || previous.offset === 0) return null;
  if (previous.offset > buffer.length) return null;
  if (sha256(buffer.subarray(0, previous.offset)) !== previous.prefixHash) return null;
  return { offset: previous.offset, line: previous.line, carry: previous.carry, source: previous.source };
}

function minDefined(a: number | null | undefined, b: number | null): number | null {
  if (a === null || a === undefined) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

function maxDefined(a: number | null | undefined, b: number | null): number | null {
  if (a === null || a === undefined) return b;
  if (b === null) return a;
  return Math.max(a, b);
}
