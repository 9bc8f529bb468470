import { describeError, isMoonError } from '../errors.js';

/** A failure that stopped the run: the report up to that point is still printed, with this in it. */
export interface FatalError {
  code: string;
  message: string;
  hint: string | null;
  exitCode: number;
}

export interface IndexReport {
  files: number;
  indexed: number;
  unchanged: number;
  excluded: number;
  /** Files with no record yet (nothing to index; not an error). */
  empty: number;
  /** Files that failed in this run. */
  failed: number;
  /** Files skipped because they failed before and have not changed since (listed in `knownFailures`). */
  failedBefore: number;
  resumed: number;
  entries: number;
  filtered: number;
  bytes: number;
  projections: number;
  /** Projections that could not be written (after one retry); named in `errors`. */
  projectionsFailed: number;
  sessions: string[];
  warnings: string[];
  errors: { path: string; reason: string }[];
  knownFailures: { path: string; reason: string; failedAtMs: number }[];
  excludedFiles: { path: string; reason: string }[];
  /**
   * Whole-file documents (Puffin histories), session by session: written (changed or new), unchanged (not
   * re-indexed), removed (gone from their document); and their parts (prompts) added, modified and removed.
   */
  documents: { sessionsWritten: number; sessionsUnchanged: number; sessionsRemoved: number; partsAdded: number; partsModified: number; partsRemoved: number };
  /** Sessions this run removed because their document no longer holds them (their run digests go too). */
  removedSessions: string[];
  durationMs: number;
  /** Of durationMs, the time background work waited for the agent's hooks to finish (runtime/foreground.ts). */
  gaveWayMs: number;
  fatal: FatalError | null;
  /** The run was asked to stop (a watcher's stop) and ended before its work was done; the next run goes on. */
  stopped?: boolean;
}

export function emptyReport(): IndexReport {
  return {
    files: 0,
    indexed: 0,
    unchanged: 0,
    excluded: 0,
    empty: 0,
    failed: 0,
    failedBefore: 0,
    resumed: 0,
    entries: 0,
    filtered: 0,
    bytes: 0,
    projections: 0,
    projectionsFailed: 0,
    sessions: [],
    warnings: [],
    errors: [],
    knownFailures: [],
    excludedFiles: [],
    documents: { sessionsWritten: 0, sessionsUnchanged: 0, sessionsRemoved: 0, partsAdded: 0, partsModified: 0, partsRemoved: 0 },
    removedSessions: [],
    durationMs: 0,
    gaveWayMs: 0,
    fatal: null,
  };
}

export function describeFatal(error: unknown): FatalError {
  if (isMoonError(error)) return { code: error.code, message: error.message, hint: error.hint ?? null, exitCode: error.exitCode };
  return { code: 'internal', message: describeError(error), hint: null, exitCode: 1 };
}

/**
 * Index every transcript under the roots. One bad file loses only itself: its error is reported and
 * remembered, and the file is skipped until it changes. A fatal error (damaged index, full disk, lock timeout)
 * ends the run early, but the report of what was done is returned with the error in `fatal`.
 */
