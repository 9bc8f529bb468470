import { existsSync, statSync } from 'node:fs';
import { removeHomeFile } from '../archive/remove-in-home.js';
import { projectionPathFor } from '../archive/paths.js';
import { sep } from 'node:path';
import { describeError, isMoonError, toIoError } from '../errors.js';
import { type FatalError, type IndexReport, describeFatal, emptyReport } from './report.js';

export { type FatalError, type IndexReport, describeFatal, emptyReport };
import type { IngestPort, IngestTx, StoreEngine } from '../store/ports.js';
import { BatchAbortedError, type FailureRecord, type FileState } from '../store/types.js';
import { type FileOutcome, type IngestContext, makeOutcome } from './context.js';
import { sha256 } from '../text/hash.js';
import { discoverFiles } from './discover.js';
import { type IndexFileOptions, type PreparedFile, indexPreparedFile, prepareFile } from './index-file.js';
import { serializeError } from './errors-across.js';
import { type PendingProjections, type ProjectionRequest, type ProjectionResult, finishProjections, projectSessionsSafely, startProjections } from './project-safely.js';
import type { RankedTerm } from '../normalize/keywords.js';
import { reprojectLegacy } from './reproject.js';
import { fillSessionFields } from './fill-fields.js';
import { yieldToEventLoop } from './yield.js';
import { giveWayToForeground, shouldGiveWay } from '../runtime/foreground.js';

export interface IndexOptions {
  roots: string[];
  force?: boolean;
  /** Rewrite every projection as v2 (seed 000 §3.3), v1 ones included. */
  reproject?: boolean;
  onProgress?: (done: number, total: number, path: string) => void;
  /** Session id per file, overriding the content's (a rebuild names sessions as the ledger recorded them). */
  sessionIds?: ReadonlyMap<string, string>;
  /** The roots are the raw archive itself (a rebuild): files are recorded where they are, never copied. */
  fromArchive?: boolean;
  /** Asked between files and between a large file's pieces: true ends the run (a watcher's SIGTERM). */
  shouldStop?: () => boolean;
  /**
   * Aborted: the run ends as soon as it can (the same as `shouldStop`), and the ingest workers are terminated at
   * once (the file they held is read again by the next run). What is committed stays; a file cut off between
   * its pieces is rolled back with its group of files, so its offset and hash never run ahead of its rows.
   */
  signal?: AbortSignal;
}

/** Thrown inside a group's transaction when a stop comes between a file's pieces: the group is rolled back. */
class IndexStopped extends Error {
  constructor() {
    super('the index run was stopped');
  }
}

export async function runIndex(
  context: IngestContext,
  engine: Pick<StoreEngine, 'ingest' | 'stats'> & Partial<Pick<StoreEngine, 'fixes' | 'markers' | 'digests'>>,
  options: IndexOptions,
): Promise<IndexReport> {
  const startedAtMs = context.now();
  const report = emptyReport();
  // Markers are written with each file's commit; entries indexed before markers existed, or under other
  // patterns (`markers` in moon.toml), are read again first. A failure is a warning: recall is unaffected.
  if (engine.markers) {
    try {
      await engine.markers.sync();
    } catch (error) {
      report.warnings.push(`markers not re-derived: ${(error as Error).message}`);
    }
  }
  // Fix patterns' facts, from the sessions this run committed only (seed 003 part 3), after each group's commit:
  // a run stopped half-way has recorded them for what it committed. Derived data: a failure here is a warning,
  // and the next run that touches the session records them again.
  const fixes = engine.fixes;
  const recordFixes = fixes
    ? async (sessions: string[]): Promise<void> => {
        try {
          const { indexSessionFixes } = await import('../fixes/index-fixes.js');
          await indexSessionFixes({ ingest: engine.ingest, fixes }, sessions);
        } catch (error) {
          report.warnings.push(`fix patterns not updated: ${(error as Error).message}`);
        }
      }
    : null;
  // A stop terminates the workers at once: a worker deep in a large file's parse is not waited for.
  const terminateWorkers = (): void => void context.workers?.close();
  options.signal?.addEventListener('abort', terminateWorkers, { once: true });
  try {
    await indexAll(context, engine.ingest, options, report, recordFixes);
  } catch (error) {
    // What fails once a stop is asked for (a job of the terminated workers) is the stop's doing: the next run goes on.
    if (isStopRequested(options)) report.stopped = true;
    else report.fatal = describeFatal(error);
  } finally {
    options.signal?.removeEventListener('abort', terminateWorkers);
  }
  // A conversation its history no longer holds is gone from the index: its run digest goes with it.
  if (engine.digests && report.removedSessions.length > 0) {
    try {
      await engine.digests.remove({ sessionIds: report.removedSessions });
    } catch (error) {
      report.warnings.push(`run digests of removed sessions not removed: ${(error as Error).message}`);
    }
  }
  report.durationMs = context.now() - startedAtMs;
  if (report.fatal === null) {
    await engine.stats.recordRun({
      startedAtMs,
      finishedAtMs: context.now(),
      command: 'index',
      files: report.files,
      filesChanged: report.indexed,
      entries: report.entries,
      warnings: report.warnings.length,
      errors: report.failed + report.projectionsFailed,
    });
  }
  return report;
}

function isStopRequested(options: IndexOptions): boolean {
  return options.signal?.aborted === true || options.shouldStop?.() === true;
}

async function indexAll(
  context: IngestContext,
  store: IngestPort,
  options: IndexOptions,
  report: IndexReport,
  recordFixes: ((sessions: string[]) => Promise<void>) | null,
): Promise<void> {
  const stopRequested = (): boolean => isStopRequested(options);
  const discovery = discoverFiles(options.roots, [context.paths.home]);
  report.files = discovery.files.length;
  for (const warning of discovery.warnings) report.warnings.push(warning);
  const failures = new Map((await store.listFailures()).map((failure) => [failure.key, failure]));
  await forgetVanished(store, failures, new Set(discovery.files));
  const touched = new Set<string>();
  const adoptFrom = `${context.paths.raw}${sep}`;
  let done = 0;
  // Ledger lines of pairs an earlier run committed but did not get to write (it crashed in between).
  await flushLedger(context, store);
  const optionsFor = (path: string): IndexFileOptions => ({
    force: options.force ?? false,
    fsPath: discovery.fsPaths.get(path),
    knownFailure: failures.get(fileFailureKey(path)) ?? null,
    sessionId: options.sessionIds?.get(path),
    adoptFrom,
    selfArchived: options.fromArchive ?? false,
  });
  const groups = groupFiles(discovery.files, discovery.fsPaths);
  // With workers, the next few files are read and parsed while this one commits.
  const ahead = context.workers ? new Prefetcher(context, store, discovery.files, optionsFor) : null;
  // A group's projections render (on the workers) while the next group commits; they are finished after it.
  let rendering: PendingProjections | null = null;
  const queue = [...groups];
  for (let group = queue.shift(); group !== undefined; group = queue.shift()) {
    if (stopRequested()) break;
    // A macrotask turn between groups: with the synchronous SQLite engine every await above resolves at once, and a
    // process that also answers requests (a watcher beside an MCP or HTTP server) must get the event loop back.
    await yieldToEventLoop();
    // Between groups no write is held: a hook the agent waits on (one that writes too) goes first.
    report.gaveWayMs += await giveWayToForeground(context.paths.home);
    const prepared = ahead;
    let outcomes: FileOutcome[];
    try {
      const indexed = await indexGroup(context, store, group, optionsFor, prepared, stopRequested);
      outcomes = indexed.outcomes;
      // Cut short for a hook: the rest of the group is the next group.
      if (indexed.rest.length > 0) queue.unshift(indexed.rest);
    } catch (error) {
      if (!(error instanceof IndexStopped)) throw error;
      break;
    }
    await flushLedger(context, store);
    // Stopping: the renders under way (on workers being terminated) are left; their sessions stay stale for the next run.
    if (rendering && !stopRequested()) tallyProjections(report, await finishProjections(context, store, rendering, stopRequested));
    rendering = null;
    // The sessions to project, in order, each with its terms when ranked at the parse.
    const ranked = new Map<string, RankedTerm[] | null>();
    for (const outcome of outcomes) {
      tally(report, outcome);
      await rememberOutcome(context, store, failures, outcome);
      // Projections are written after their batch commits; a crash in between leaves them stale, and the
      // next run (below) finishes them. With workers, a group's projections render side by side.
      // A document's sessions each count as a session written (its removed ones lose their projection).
      const written = outcome.document ? outcome.document.written : outcome.sessionId ? [{ id: outcome.sessionId, ranked: outcome.ranked ?? null }] : [];
      if (outcome.status === 'indexed') {
        for (const session of written) {
          touched.add(session.id);
          // Two files of one group that wrote the same session: its terms are ranked from the store.
          ranked.set(session.id, ranked.has(session.id) ? null : session.ranked);
        }
      }
      for (const gone of outcome.document?.removed ?? []) removeProjection(context.paths.home, gone.projectionPath ?? projectionPathFor(context.paths, gone.id));
      done += 1;
      options.onProgress?.(done, discovery.files.length, outcome.path);
    }
    if (ranked.size > 0) await recordFixes?.([...ranked.keys()]);
    if (ranked.size > 0 && !stopRequested()) rendering = await startProjections(context, store, projectionRequests(failures, [...ranked.keys()], options.force ?? false, ranked));
  }
  report.sessions = [...touched].sort();
  if (stopRequested()) {
    report.stopped = true;
    return;
  }
  if (rendering) tallyProjections(report, await finishProjections(context, store, rendering, stopRequested));
  // A crash between a commit and its projection leaves the session stale; finish that work now.
  for (const session of await store.listSessions()) {
    if (stopRequested()) {
      report.stopped = true;
      return;
    }
    if ((session.projectionStale && !touched.has(session.id)) || options.reproject) {
      await project(context, store, failures, session.id, report, options.force ?? false, stopRequested);
    }
  }
  await fillSessionFields(store, stopRequested);
  if (options.reproject) {
    const legacy = reprojectLegacy(context);
    report.projections += legacy.rewritten;
    for (const warning of legacy.warnings) report.warnings.push(warning);
  }
}

async function project(
  context: IngestContext,
  store: IngestPort,
  failures: Map<string, FailureRecord>,
  sessionId: string,
  report: IndexReport,
  force: boolean,
  stopRequested: () => boolean,
): Promise<void> {
  tallyProjections(report, await projectSessionsSafely(context, store, projectionRequests(failures, [sessionId], force), stopRequested));
}

function projectionRequests(
  failures: Map<string, FailureRecord>,
  sessionIds: readonly string[],
  force: boolean,
  ranked?: ReadonlyMap<string, RankedTerm[] | null>,
): ProjectionRequest[] {
  return sessionIds.map((sessionId) => ({
    sessionId,
    known: force ? null : (failures.get(`projection:${sessionId}`) ?? null),
    ranked: ranked?.get(sessionId) ?? null,
  }));
}

function tallyProjections(report: IndexReport, results: readonly ProjectionResult[]): void {
  for (const result of results) {
    if (result.status === 'written') report.projections += 1;
    else if (result.status === 'failed-before') {
      report.knownFailures.push({ path: result.path, reason: result.reason, failedAtMs: result.failedAtMs });
    } else if (result.status === 'failed') {
      report.projectionsFailed += 1;
      report.errors.push({ path: result.path, reason: result.reason });
    }
  }
}

/** Remember a content failure until its file changes; forget one once its file is fine again. */
async function rememberOutcome(
  context: IngestContext,
  store: IngestPort,
  failures: Map<string, FailureRecord>,
  outcome: FileOutcome,
): Promise<void> {
  if (outcome.status === 'failed-before') return;
  if (outcome.status === 'error') {
    if (!outcome.remember || outcome.fingerprint === null) return;
    const failure: FailureRecord = {
      key: fileFailureKey(outcome.path),
      kind: 'file',
      // A path can hold a secret (Claude Code names project folders after the cwd): the index keeps it redacted.
      path: context.redact(outcome.path),
      fingerprint: outcome.fingerprint,
      reason: context.redact(outcome.reason ?? 'failed'),
      failedAtMs: context.now(),
    };
    await store.putFailure(failure);
    failures.set(failure.key, failure);
    return;
  }
  const key = fileFailureKey(outcome.path);
  if (failures.has(key)) {
    await store.clearFailure(key);
    failures.delete(key);
  }
}

/** A failed file that no longer exists is no longer a failure to list (a found file exists, whatever its name). */
async function forgetVanished(store: IngestPort, failures: Map<string, FailureRecord>, found: ReadonlySet<string>): Promise<void> {
  const foundKeys = new Set([...found].map(fileFailureKey));
  for (const failure of [...failures.values()]) {
    // A redacted path cannot be looked up; its record goes when the file is found fine again.
    if (failure.kind === 'file' && !foundKeys.has(failure.key) && !failure.path.includes('[REDACTED:') && !existsSync(failure.path)) {
      await store.clearFailure(failure.key);
      failures.delete(failure.key);
    }
  }
}

/** Files per batch transaction, and the input bytes after which a batch closes early. */
const BATCH_FILES = 64;
const BATCH_BYTES = 32 * 1024 * 1024;

function groupFiles(files: string[], fsPaths: ReadonlyMap<string, Buffer>): string[][] {
  const groups: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const path of files) {
    const size = fileSizeOf(fsPaths.get(path) ?? path);
    if (current.length > 0 && (current.length >= BATCH_FILES || bytes + size > BATCH_BYTES)) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(path);
    bytes += size;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** Files handed to the workers ahead of their commit: each file's state as the store had it, and its read. */
interface Prepared {
  previous: FileState | null;
  prepared: Promise<PreparedFile>;
}

/**
 * Keeps the workers a few files ahead of the writer — enough to keep them busy, few enough that the reads
 * waiting for their commit stay small (a whole batch ahead held hundreds of megabytes).
 */
class Prefetcher {
  private readonly started = new Map<string, Prepared>();
  private next = 0;
  private readonly window: number;

  constructor(
    private readonly context: IngestContext,
    private readonly store: IngestPort,
    private readonly files: readonly string[],
    private readonly optionsFor: (path: string) => IndexFileOptions,
  ) {
    this.window = 2 * (context.workers?.size ?? 1) + 2;
  }

  /** The file's prepared read, starting it and the next few if not yet started. */
  async take(path: string): Promise<Prepared | null> {
    const at = this.files.indexOf(path, Math.max(0, this.next - this.window - 1));
    if (at === -1) return null;
    while (this.next <= Math.min(at + this.window, this.files.length - 1)) await this.start(this.files[this.next++]!);
    const found = this.started.get(path) ?? null;
    this.started.delete(path);
    return found;
  }

  private async start(path: string): Promise<void> {
    const workers = this.context.workers;
    if (!workers || this.started.has(path)) return;
    const { adoptFrom: _adoptFrom, sessionId: _sessionId, ...options } = this.optionsFor(path);
    const previous = options.force ? null : await this.store.getFile(path);
    const prepared = workers.prepare(path, previous, options).catch(
      // A worker that died on this file fails this file alone.
      (error: unknown): PreparedFile => ({ kind: 'failed', fingerprint: null, error: serializeError(error) }),
    );
    this.started.set(path, { previous, prepared });
  }
}

/**
 * One transaction for the group; if a commit fails inside it, the group rolls back and is redone file by file,
 * each in its own transaction, so a file whose commit fails loses only itself. Background work commits early when
 * a hook starts (foreground.ts): `rest` is the group's files not begun, for the caller to index next.
 */
async function indexGroup(
  context: IngestContext,
  store: IngestPort,
  paths: string[],
  optionsFor: (path: string) => IndexFileOptions,
  prepared: Prefetcher | null,
  stopRequested: () => boolean,
): Promise<{ outcomes: FileOutcome[]; rest: string[] }> {
  // Each prepared read is used once and let go (a batch holds up to BATCH_BYTES of input): a file retried
  // alone after its batch failed is read again.
  const taken = new Set<string>();
  // Read, then a turn of the event loop, then commit: a stop is seen before the commit. null: stopped before this
  // piece committed anything.
  const indexHere = async (tx: IngestTx, path: string, options: IndexFileOptions): Promise<FileOutcome | null> => {
    const previous = options.force ? null : await tx.getFile(path);
    const read = prepareFile(context, path, previous, options);
    await yieldToEventLoop();
    if (stopRequested()) return null;
    return indexPreparedFile(context, tx, path, options, previous, read);
  };
  const indexFirstPiece = async (tx: IngestTx, path: string): Promise<FileOutcome | null> => {
    const ready = taken.has(path) ? null : ((await prepared?.take(path)) ?? null);
    taken.add(path);
    if (!ready) return indexHere(tx, path, optionsFor(path));
    const read = await ready.prepared;
    if (stopRequested()) return null;
    return indexPreparedFile(context, tx, path, optionsFor(path), ready.previous, read);
  };
  /** The next piece of a large file, read on a worker when the run has them, from the state the last piece left. */
  const indexNextPiece = async (tx: IngestTx, path: string): Promise<FileOutcome | null> => {
    // Read on from the last piece: never from the start again (`--force` was the first piece's), never skipped.
    const options: IndexFileOptions = { ...optionsFor(path), force: false, knownFailure: null };
    if (!context.workers) return indexHere(tx, path, options);
    const previous = await tx.getFile(path);
    const { adoptFrom: _adoptFrom, sessionId: _sessionId, ...workerOptions } = options;
    const read = await context.workers
      .prepare(path, previous, workerOptions)
      .catch((error: unknown): PreparedFile => ({ kind: 'failed', fingerprint: null, error: serializeError(error) }));
    if (stopRequested()) return null;
    return indexPreparedFile(context, tx, path, options, previous, read);
  };
  // Piece after piece, in this transaction. null: stopped before the file's first commit.
  const indexOne = async (tx: IngestTx, path: string): Promise<FileOutcome | null> => {
    let outcome = await indexFirstPiece(tx, path);
    while (outcome?.more && outcome.status === 'indexed') {
      await yieldToEventLoop();
      const next = stopRequested() ? null : await indexNextPiece(tx, path);
      // Cut off between pieces: the group is rolled back, this file's first pieces with it.
      if (next === null) throw new IndexStopped();
      outcome = joinPieces(outcome, next);
    }
    return outcome;
  };
  try {
    return await store.transaction(async (tx) => {
      const outcomes: FileOutcome[] = [];
      for (const [index, path] of paths.entries()) {
        // The files done so far are committed; the rest wait for the next run.
        if (stopRequested()) break;
        const outcome = await indexOne(tx, path);
        if (outcome === null) break;
        // A failure seen after a stop may be the stop's (a terminated worker), not the file's: not reported or
        // remembered, the file is read again next run (a failed file commits no rows).
        if (outcome.status === 'error' && stopRequested()) break;
        outcomes.push(outcome);
        // Between files, not only between groups: a group of 64 files is seconds of synchronous work.
        await yieldToEventLoop();
        // A hook started: commit what is done, so the write is free and the caller gives way before the rest.
        if (index < paths.length - 1 && shouldGiveWay(context.paths.home)) return { outcomes, rest: paths.slice(index + 1) };
      }
      return { outcomes, rest: [] };
    });
  } catch (error) {
    if (!(error instanceof BatchAbortedError)) throw error;
  }
  const outcomes: FileOutcome[] = [];
  for (const path of paths) {
    if (stopRequested()) break;
    try {
      const outcome = await store.transaction((tx) => indexOne(tx, path));
      if (outcome === null) break;
      outcomes.push(outcome);
    } catch (error) {
      if (!(error instanceof BatchAbortedError)) throw error;
      outcomes.push(makeOutcome(path, 'error', { reason: `${path}: ${describeError(error.cause)}` }));
    }
  }
  return { outcomes, rest: [] };
}

/** One file's outcome from its pieces': what they wrote together, and whether the last left more. */
function joinPieces(first: FileOutcome, next: FileOutcome): FileOutcome {
  if (next.status !== 'indexed') return { ...next, warnings: [...first.warnings, ...next.warnings] };
  const joined: FileOutcome = {
    ...next,
    entries: first.entries + next.entries,
    filtered: first.filtered + next.filtered,
    bytes: first.bytes + next.bytes,
    warnings: [...first.warnings, ...next.warnings],
    resumed: first.resumed,
  };
  if (!next.more) delete joined.more;
  return joined;
}

/**
 * Ledger lines go out only after the commit that recorded their pairs, and only for pairs no process wrote
 * before: a pair already in the ledger (written by `moon snapshot`, or before the index tracked pairs) is
 * marked without a second line.
 */
async function flushLedger(context: IngestContext, store: IngestPort): Promise<void> {
  await store.flushLedger((record) => {
    context.ledger.append(record);
  });
}

function fileSizeOf(path: string | Buffer): number {
  try {
    const stat = statSync(path);
    return stat.isFile() ? stat.size : 0;
  } catch {
    return 0;
  }
}

/** A removed session's projection: it describes a conversation its document no longer holds. */
function removeProjection(home: string, path: string): void {
  try {
    // Only inside this home: a path an index recorded elsewhere is left alone.
    removeHomeFile(home, path);
  } catch (error) {
    throw toIoError(path, error);
  }
}

function tally(report: IndexReport, outcome: FileOutcome): void {
  for (const warning of outcome.warnings) report.warnings.push(warning);
  const document = outcome.document;
  if (document) {
    const counts = report.documents;
    counts.sessionsWritten += document.written.length;
    counts.sessionsUnchanged += document.unchanged;
    counts.sessionsRemoved += document.removed.length;
    for (const gone of document.removed) report.removedSessions.push(gone.id);
    counts.partsAdded += document.parts.added;
    counts.partsModified += document.parts.modified;
    counts.partsRemoved += document.parts.removed;
  }
  switch (outcome.status) {
    case 'indexed':
      report.indexed += 1;
      report.entries += outcome.entries;
      report.filtered += outcome.filtered;
      report.bytes += outcome.bytes;
      if (outcome.resumed) report.resumed += 1;
      break;
    case 'unchanged':
      report.unchanged += 1;
      break;
    case 'empty':
      report.empty += 1;
      break;
    case 'excluded':
      report.excluded += 1;
      report.excludedFiles.push({ path: outcome.path, reason: outcome.reason ?? 'excluded' });
      break;
    case 'error':
      report.failed += 1;
      report.errors.push({ path: outcome.path, reason: outcome.reason ?? 'failed' });
      break;
    case 'failed-before':
      report.failedBefore += 1;
      report.knownFailures.push({ path: outcome.path, reason: outcome.reason ?? 'failed', failedAtMs: outcome.failedAtMs ?? 0 });
      break;
  }
}

/** A failed file is remembered by a hash of its path, so the index never holds a path's secret. */
export function fileFailureKey(path: string): string {
  return `file:${sha256(path)}`;
}
