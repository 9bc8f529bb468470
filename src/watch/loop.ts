import type { FSWatcher } from 'chokidar';
import { describeError } from '../errors.js';
import { isSourceFileName } from '../sources/index.js';
import { type CycleDeps, runCycle } from './cycle.js';
import { acquireDaemonLock, clearStopRequest, readStopRequest, recordStopRequest } from './daemon-lock.js';
import type { CycleSummary, WatchState } from './state.js';
import { readWatchState, watchStatePath, writeWatchState } from './state.js';

/**
 * `moon watch`: cycles until stopped. File events (chokidar) wake a cycle within `debounce_ms` of the last
 * write, for just the files that changed; a poll every `poll_interval_secs` re-reads every root (events can be
 * missed: network folders, editors that replace files). SIGTERM or SIGINT (what `moon stop` sends) aborts the
 * cycle — in the middle of a large file: between its pieces, its ingest workers terminated — records that the
 * daemon is stopping (`moon status`), releases the daemon lock and returns. Usage that crosses the compaction
 * ratio runs a cycle at once.
 */
export interface WatchLoopDeps extends Omit<CycleDeps, 'shouldStop' | 'signal'> {
  roots: string[];
  pollMs: number;
  debounceMs: number;
  /** Whether a changed transcript's context usage calls for a cycle now (compaction is near). */
  checkUsage?: (path: string, state: WatchState) => boolean;
  /** For tests and `moon stop`: resolves when the loop should end (besides signals). */
  stopSignal?: AbortSignal;
  /**
   * A process of its own (`moon watch`): once a stop is asked for, the process exits after this many ms even if
   * the cycle has not come back (a model call under way, a long synchronous step). Safe as a crash is safe: what
   * is not committed is rolled back and read again at the next start. Unset in-process (tests, libraries).
   */
  exitDeadlineMs?: number;
}

const READY_TIMEOUT_MS = 10_000;

export async function runWatchLoop(deps: WatchLoopDeps): Promise<{ cycles: number }> {
  const lock = acquireDaemonLock(deps.paths, deps.nowMs());
  // A stop request left by a daemon that died before it could finish is no request to this one.
  clearStopRequest(deps.paths);
  const statePath = watchStatePath(deps.paths.home);
  const state = readWatchState(statePath);
  const abort = new AbortController();
  let stopping = false;
  let wake: (() => void) | null = null;
  const changed = new Set<string>();
  let fullPass = true;
  let urgent = false;
  let debounceTimer: NodeJS.Timeout | null = null;

  const wakeUp = (): void => {
    const resolve = wake;
    wake = null;
    resolve?.();
  };
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    deps.log('info', 'stopping', { signal });
    try {
      // `moon stop` wrote its own before it signalled; a bare `kill` or an abort is recorded here.
      if (!readStopRequest(deps.paths, process.pid)) recordStopRequest(deps.paths, { pid: process.pid, requested_at_epoch_secs: Math.floor(deps.nowMs() / 1000), by: signal });
    } catch (error) {
      deps.log('warn', 'stop request not recorded', { reason: describeError(error) });
    }
    abort.abort();
    wakeUp();
    if (deps.exitDeadlineMs !== undefined) armExitDeadline(deps.exitDeadlineMs);
  };
  let exitTimer: NodeJS.Timeout | null = null;
  const armExitDeadline = (ms: number): void => {
    exitTimer = setTimeout(() => {
      deps.log('warn', 'the cycle did not end in time: exiting', { after_ms: ms });
      try {
        writeWatchState(statePath, state);
      } catch {
        // The state is advisory (when the last cycle ran); the index and ledger are what must hold.
      }
      lock.release();
      clearStopRequest(deps.paths);
      process.exit(0);
    }, ms).unref();
  };
  const onTerm = (): void => stop('SIGTERM');
  const onInt = (): void => stop('SIGINT');
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
  deps.stopSignal?.addEventListener('abort', () => stop('abort'));

  const onFile = (path: string): void => {
    if (!isSourceFileName(path)) return;
    changed.add(path);
    if (!urgent && deps.checkUsage?.(path, state)) {
      urgent = true;
      deps.log('info', 'context usage past the compaction ratio: capturing now', { path });
      wakeUp();
      return;
    }
    if (debounceTimer) clearTimeout(debounceTimer);
    debounceTimer = setTimeout(wakeUp, deps.debounceMs);
  };

  let watcher: FSWatcher | null = null;
  try {
    const { watch } = await import('chokidar');
    watcher = watch(deps.roots, {
      ignoreInitial: true,
      persistent: true,
      // The files discovery lists (the registry's file names) only; folders are walked so new ones are seen.
      ignored: (path, stats) => Boolean(stats?.isFile() && !isSourceFileName(path)),
    });
    watcher.on('add', onFile).on('change', onFile).on('error', (error) => deps.log('warn', 'file watch error', { reason: describeError(error) }));
    // Until its first scan is done a write may go unseen: wait for it (bounded — a huge tree must not hold the start).
    const ready = watcher;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, READY_TIMEOUT_MS);
      ready.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  } catch (error) {
    deps.log('warn', 'file events unavailable: polling only', { reason: describeError(error) });
  }
  const poll = setInterval(() => {
    fullPass = true;
    wakeUp();
  }, deps.pollMs);

  deps.log('info', 'watching', { roots: deps.roots.join(', '), poll_secs: deps.pollMs / 1000, pid: process.pid });
  let trigger: CycleSummary['trigger'] = 'start';
  try {
    while (!stopping) {
      const files = fullPass ? undefined : [...changed];
      changed.clear();
      fullPass = false;
      urgent = false;
      if (files === undefined || files.length > 0) {
        try {
          const summary = await runCycle({ ...deps, shouldStop: () => stopping, signal: abort.signal }, state, trigger, files);
          writeWatchState(statePath, state);
          if (summary.files_indexed > 0 || summary.l1.written > 0 || summary.syns || summary.errors.length > 0) {
            deps.log('info', 'cycle done', { trigger, indexed: summary.files_indexed, l1: summary.l1.written, syns: summary.syns?.outcome, errors: summary.errors.length });
          }
        } catch (error) {
          deps.log('error', 'cycle failed', { reason: describeError(error) });
        }
      }
      if (stopping) break;
      if (changed.size === 0 && !fullPass) await new Promise<void>((resolve) => (wake = resolve));
      trigger = fullPass ? 'poll' : urgent ? 'usage' : 'files';
    }
  } finally {
    if (exitTimer) clearTimeout(exitTimer);
    clearInterval(poll);
    if (debounceTimer) clearTimeout(debounceTimer);
    process.off('SIGTERM', onTerm);
    process.off('SIGINT', onInt);
    await watcher?.close();
    writeWatchState(statePath, state);
    lock.release();
    clearStopRequest(deps.paths);
    deps.log('info', 'stopped', { cycles: state.cycles });
  }
  return { cycles: state.cycles };
}

/** `moon watch --once`: one cycle over every root, no daemon lock (the L1 lock still guards the L1 queue). */
export async function runWatchOnce(deps: Omit<CycleDeps, 'shouldStop'>): Promise<CycleSummary> {
  const statePath = watchStatePath(deps.paths.home);
  const state = readWatchState(statePath);
  const summary = await runCycle({ ...deps, shouldStop: () => false }, state, 'once');
  writeWatchState(statePath, state);
  return summary;
}
