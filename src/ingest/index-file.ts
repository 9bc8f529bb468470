import { readFileSync, statSync } from 'node:fs';
import { describeError, isMoonError } from '../errors.js';
import { BatchAbortedError, type Store, type StoredSession } from '../store/store.js';
import { copyRawArchive } from './archive-raw.js';
import { type FileOutcome, type IngestContext, makeOutcome } from './context.js';
import { sha256 } from './hash.js';
import { type ResumePoint, readTranscript } from './read-transcript.js';
import { mergeCounts, renameSession } from './session-merge.js';

export interface IndexFileOptions {
  /** Ignore what the index remembers and read the file from the start. */
  force?: boolean;
}

/**
 * Bring one transcript file into the index. Unchanged files are skipped by (path, size, mtime, hash); a file
 * that grew is read from its last committed byte offset when its committed prefix is byte-identical; anything
 * else is re-read from the start. Everything the file contributes is committed in one transaction together
 * with the new offset, so a crash (even SIGKILL) leaves either the old state or the new one.
 */
export function indexFile(context: IngestContext, store: Store, path: string, options: IndexFileOptions = {}): FileOutcome {
  try {
    return indexFileOrThrow(context, store, path, options);
  } catch (error) {
    if (error instanceof BatchAbortedError) throw error;
    const reason = isMoonError(error) ? error.message : `${path}: ${describeError(error)}`;
    return makeOutcome(path, 'error', { reason });
  }
}

function indexFileOrThrow(context: IngestContext, store: Store, path: string, options: IndexFileOptions): FileOutcome {
  const stat = statSync(path);
  const previous = options.force ? null : store.getFile(path);
  if (previous && previous.size === stat.size && previous.mtimeMs === stat.mtimeMs) {
    const status = previous.excluded ? 'excluded' : 'unchanged';
    return makeOutcome(path, status, { sessionId: previous.sessionId, source: previous.source, reason: previous.excluded });
  }
  const buffer = readFileSync(path);
  // A transcript is created before its first record is written: nothing to index yet, and not an error. It is
  // not remembered either, so the run that finds content in it indexes it.
  if (isBlank(buffer)) return makeOutcome(path, 'empty', { reason: 'nothing to index yet (empty file)' });
  const contentHash = sha256(buffer);
  if (previous && previous.contentHash === contentHash) {
    store.commitFile({ file: { ...previous, mtimeMs: stat.mtimeMs }, session: null, reset: false, entries: [], results: [], anchors: [], usage: [] });
    return makeOutcome(path, 'unchanged', { sessionId: previous.sessionId, source: previous.source });
  }
  if (previous?.excluded && previous.offset === 0) {
    // excluded whole (a fork): its first record decides, and it cannot change by appending
    if (previous.size <= buffer.length && sha256(buffer.subarray(0, previous.size)) === previous.prefixHash) {
      return makeOutcome(path, 'excluded', { reason: previous.excluded, sessionId: previous.sessionId });
    }
  }
  const resume = findResumePoint(previous, buffer);
  const { source, read, normalized, warnings } = readTranscript(context, path, buffer, resume);
  const chunk = normalized.chunk;
  const fileBase = {
    path,
    source: source.name,
    size: buffer.length,
    mtimeMs: stat.mtimeMs,
    contentHash,
    indexedAtMs: context.now(),
  };
  if (chunk.fork) {
    store.commitFile({
      file: { ...fileBase, sessionId: chunk.session.id, prefixHash: sha256(buffer), offset: 0, line: 0, carry: null, excluded: 'fork' },
      session: null,
      reset: false,
      entries: [],
      results: [],
      anchors: [],
      usage: [],
    });
    return makeOutcome(path, 'excluded', { reason: 'fork session (first record is a queue-operation)', sessionId: chunk.session.id, source: source.name, warnings });
  }
  // Another file already owns this id (a copied or resumed transcript): keep both, apart.
  const owner = store.getSession(chunk.session.id);
  const sessionId = owner && owner.path !== path ? `${chunk.session.id}~${sha256(path).slice(0, 8)}` : chunk.session.id;
  if (context.excludeSessionIds.has(chunk.session.id) || context.excludeSessionIds.has(sessionId)) {
    // Not recorded: once it is no longer the current session, the next run indexes it.
    return makeOutcome(path, 'excluded', { reason: 'current session', sessionId, source: source.name, warnings });
  }
  const renamed = sessionId === chunk.session.id ? chunk : renameSession(chunk, sessionId);
  const reset = resume === null;
  const prior = reset ? null : store.getSession(sessionId);
  const filteredNoiseCount = (prior?.filteredNoiseCount ?? 0) + normalized.filtered;
  const { archivePath, record: archived } = copyRawArchive(context, {
    source: source.name,
    sessionId,
    buffer,
    contentHash,
    filteredNoiseCount,
  });
  const session: StoredSession = {
    ...renamed.session,
    startMs: minDefined(prior?.startMs, renamed.session.startMs),
    endMs: maxDefined(prior?.endMs, renamed.session.endMs),
    entryCount: 0,
    filteredNoiseCount,
    skipped: mergeCounts(prior?.skipped ?? {}, renamed.skipped, normalized.filteredByReason),
    archivePath,
    projectionPath: prior?.projectionPath ?? null,
    contentHash,
    projectionStale: true,
  };
  store.commitFile({
    file: {
      ...fileBase,
      sessionId,
      prefixHash: sha256(buffer.subarray(0, read.endOffset)),
      offset: read.endOffset,
      line: read.endLine,
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
  });
  return makeOutcome(path, 'indexed', {
    sessionId,
    source: source.name,
    entries: renamed.entries.length,
    filtered: normalized.filtered,
    warnings,
    resumed: !reset,
    bytes: buffer.length - (resume?.offset ?? 0),
  });
}

function isBlank(buffer: Buffer): boolean {
  for (const byte of buffer) {
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return false;
  }
  return true;
}

function findResumePoint(previous: ReturnType<Store['getFile']>, buffer: Buffer): ResumePoint | null {
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
