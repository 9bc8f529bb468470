import { readdirSync } from 'node:fs';
import type { MoonPaths } from '../archive/paths.js';
import type { MoonConfig } from '../config.js';
import { MoonError } from '../errors.js';
import { dailyFilePath } from '../distill/daily-file.js';
import { l1StatePath, readL1State } from '../distill/l1-state.js';
import { type NormResult, listPendingProjections, resolveChunking, runManualNorm } from '../distill/run-norm.js';
import { type SynsResult, runSyns } from '../distill/run-syns.js';
import type { Provider } from '../llm/provider.js';
import type { DigestReport, DigestRequest } from '../digest/run-digest.js';
import { isProcessAlive } from '../lock/pid-lock.js';
import type { IndexRequest, IndexResult } from '../ingest/index-request.js';
import { formatResidentialDay, previousDay } from '../time/residential.js';
import { type DaemonLockPayload, daemonLockPath, readDaemonLock, readStopRequest, recordStopRequest } from './daemon-lock.js';
import { type WatchLog, createWatchLog, watchLogPath } from './log.js';
import { runWatchLoop, runWatchOnce } from './loop.js';
import { type CycleSummary, type WatchState, readWatchState, watchStatePath } from './state.js';

/**
 * What runs moon unattended, behind the Moon facade: L1 and L2 by hand (`moon distill`), the watcher
 * (`moon watch`), its status and `moon stop`. Built by createMoon with the stages it already has.
 */
export interface WatcherStatus {
  daemon: {
    /** `stopping`: running, and asked to stop (`moon stop`, SIGTERM or SIGINT); it has not exited yet. */
    state: 'running' | 'stopping' | 'stale' | 'not running' | 'unreadable';
    lock: string;
    pid: number | null;
    started_at_epoch_secs: number | null;
    build_uuid: string | null;
    moon_home: string | null;
    /** A single-line PID lock of an older build. */
    legacy: boolean;
    /** When the stop now under way was asked for (null unless stopping). */
    stop_requested_at_epoch_secs?: number | null;
  };
  last_cycle: CycleSummary | null;
  cycles: number;
  pending_l1: { count: number; oldest: string[] };
  last_l1_epoch_secs: number | null;
  last_syns_day: string | null;
  last_syns: WatchState['last_syns'];
  usage: WatchState['usage'];
  log: string;
}

export interface WatchDeps {
  config: MoonConfig;
  paths: MoonPaths;
  clock: () => number;
  index: (request: IndexRequest) => Promise<IndexResult>;
  provider: () => Promise<Provider>;
  /** Run digests for finished sessions (the cycle's last step, after L1 and L2); absent: the cycle digests nothing. */
  digest?: (request: DigestRequest) => Promise<DigestReport>;
  roots: () => string[];
  checkUsage?: (path: string, state: WatchState) => boolean;
}

export interface WatchRunOptions {
  /** `--daemon`: log to the file only (no stderr), as a service manager runs it. */
  daemon?: boolean;
  echo?: (line: string) => void;
  stopSignal?: AbortSignal;
  /** See WatchLoopDeps.exitDeadlineMs: only for a process that runs the watcher and nothing else of the caller's. */
  exitDeadlineMs?: number;
}

/** How long a stopping `moon watch` process waits for its cycle before it exits anyway (`moon stop` promises 3 s). */
export const STOP_EXIT_DEADLINE_MS = 2_000;

const pause = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export function createWatchApi(deps: WatchDeps) {
  const { config, paths, clock } = deps;
  const normSettings = () => ({ paths, zone: config.distill.residential_timezone, ...resolveChunking(config.distill), nowMs: clock });
  const cycleDeps = (log: WatchLog) => ({ config, paths, nowMs: clock, log, index: deps.index, provider: deps.provider, digest: deps.digest, pause });
  const logFor = (options: WatchRunOptions): WatchLog => createWatchLog(paths.logs, { echo: options.daemon ? undefined : options.echo, nowMs: clock });

  return {
    distillNorm(projectionPath: string | undefined): NormResult {
      if (!projectionPath) {
        throw new MoonError('bad_usage', 'moon distill --mode norm needs --archive PATH: the pending projection to normalise', {
          hint: '`moon watch --once` runs the whole pending queue',
        });
      }
      return runManualNorm(normSettings(), projectionPath);
    },
    /** By hand, today's daily file unless files are named (seed 001 rule 7 is the watcher's: yesterday's). */
    async distillSyns(files: string[]): Promise<SynsResult> {
      const inputs = files.length > 0 ? files : [dailyFilePath(paths.memory, formatResidentialDay(clock(), config.distill.residential_timezone))];
      return runSyns({ paths, provider: await deps.provider(), nowMs: clock, contextTokens: config.distill.model_context_tokens ?? 32_000 }, inputs);
    },
    watchOnce(options: WatchRunOptions = {}): Promise<CycleSummary> {
      return runWatchOnce(cycleDeps(logFor(options)));
    },
    watch(options: WatchRunOptions = {}): Promise<{ cycles: number }> {
      return runWatchLoop({
        ...cycleDeps(logFor(options)),
        roots: deps.roots(),
        pollMs: config.watcher.poll_interval_secs * 1000,
        debounceMs: config.watcher.debounce_ms,
        checkUsage: deps.checkUsage,
        stopSignal: options.stopSignal,
        exitDeadlineMs: options.exitDeadlineMs,
      });
    },
    /** What a cycle would do now, without doing it. */
    planCycle(): { roots: string[]; pending_l1: string[]; syns: { day: string; file: string; due: boolean }; cooldown_left_secs: number } {
      const state = readWatchState(watchStatePath(paths.home));
      const pending = listPendingProjections(paths, readL1State(l1StatePath(paths.home)));
      const today = formatResidentialDay(clock(), config.distill.residential_timezone);
      const nowSecs = Math.floor(clock() / 1000);
      const left = state.last_l1_epoch_secs === null ? 0 : Math.max(0, state.last_l1_epoch_secs + config.watcher.cooldown_secs - nowSecs);
      return {
        roots: deps.roots(),
        pending_l1: pending.slice(0, config.distill.max_per_cycle).map((item) => item.path),
        syns: { day: previousDay(today), file: dailyFilePath(paths.memory, previousDay(today)), due: state.last_syns_day !== today },
        cooldown_left_secs: left,
      };
    },
    status(): WatcherStatus {
      const state = readWatchState(watchStatePath(paths.home));
      const lock = readDaemonLock(paths);
      const payload: Partial<DaemonLockPayload> = 'payload' in lock ? lock.payload : {};
      const pending = listPendingProjections(paths, readL1State(l1StatePath(paths.home)));
      const stopRequest = lock.state === 'held' ? readStopRequest(paths, lock.payload.pid) : null;
      return {
        daemon: {
          state: lock.state === 'held' ? (stopRequest ? 'stopping' : 'running') : lock.state === 'stale' ? 'stale' : lock.state === 'free' ? 'not running' : 'unreadable',
          lock: daemonLockPath(paths),
          pid: payload.pid ?? null,
          started_at_epoch_secs: payload.started_at_epoch_secs ?? null,
          build_uuid: payload.build_uuid ?? null,
          moon_home: payload.moon_home ?? null,
          legacy: 'legacy' in lock ? lock.legacy : false,
          stop_requested_at_epoch_secs: stopRequest?.requested_at_epoch_secs ?? null,
        },
        last_cycle: state.last_cycle,
        cycles: state.cycles,
        pending_l1: { count: pending.length, oldest: pending.slice(0, 5).map((item) => item.path) },
        last_l1_epoch_secs: state.last_l1_epoch_secs,
        last_syns_day: state.last_syns_day,
        last_syns: state.last_syns,
        usage: state.usage,
        log: watchLogPath(paths.logs),
      };
    },
    /**
     * Record the stop request (`moon status` says "stopping"), SIGTERM the daemon, then wait (up to `timeoutMs`)
     * for it to let go of the lock and exit: it stops mid-file, between a large file's pieces, within seconds.
     */
    async stop(timeoutMs = 15_000): Promise<{ state: 'stopped' | 'not running' | 'stale'; pid: number | null }> {
      const lock = readDaemonLock(paths);
      if (lock.state === 'free' || lock.state === 'unreadable') return { state: 'not running', pid: null };
      const pid = lock.payload.pid;
      if (lock.state === 'stale') return { state: 'stale', pid };
      try {
        recordStopRequest(paths, { pid, requested_at_epoch_secs: Math.floor(clock() / 1000), by: 'moon stop' });
      } catch {
        // Only `moon status` reads it: the stop itself goes on (the daemon records it too when the signal arrives).
      }
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        return { state: 'stale', pid };
      }
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (!isProcessAlive(pid)) return { state: 'stopped', pid };
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new MoonError('busy', `the watcher (pid ${pid}) did not stop within ${Math.round(timeoutMs / 1000)} s`, {
        hint: `\`moon status\` shows whether it is still stopping; \`kill -KILL ${pid}\` ends it at once (the index keeps its last commit)`,
      });
    },
    /** Daily memory files, newest first. */
    listDailyFiles(): string[] {
      try {
        return readdirSync(paths.memory).filter((file) => /^\d{4}-\d{2}-\d{2}\.md$/.test(file)).sort().reverse();
      } catch {
        return [];
      }
    },
  };
}

export type WatchApi = ReturnType<typeof createWatchApi>;

