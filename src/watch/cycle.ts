import { existsSync } from 'node:fs';
import type { MoonPaths } from '../archive/paths.js';
import type { MoonConfig } from '../config.js';
import { describeError } from '../errors.js';
import { dailyFilePath } from '../distill/daily-file.js';
import { resolveChunking, runNormQueue } from '../distill/run-norm.js';
import { runSyns } from '../distill/run-syns.js';
import type { Provider } from '../llm/provider.js';
import type { IndexRequest, IndexResult } from '../ingest/index-request.js';
import type { DigestReport, DigestRequest } from '../digest/run-digest.js';
import { formatResidentialDay, previousDay } from '../time/residential.js';
import type { WatchLog } from './log.js';
import type { CycleSummary, WatchState } from './state.js';

/**
 * One watcher cycle (seed 001): index what is new or grown → L1 for pending projections (cooldown passed, lock
 * free, at most max_per_cycle, oldest first) → L2 once per residential day, on the first cycle after local
 * midnight, from yesterday's daily file and the current MEMORY.md → run digests of finished sessions (idle
 * DIGEST_IDLE_MS, no digest of their current content yet, at most distill.max_per_cycle, newest first). Each
 * step's failure is logged and the next step still runs.
 */
export interface CycleDeps {
  config: MoonConfig;
  paths: MoonPaths;
  nowMs: () => number;
  log: WatchLog;
  index: (request: IndexRequest) => Promise<IndexResult>;
  provider: () => Promise<Provider>;
  /** Run digests (plane B); absent: the digest step is skipped. */
  digest?: (request: DigestRequest) => Promise<DigestReport>;
  shouldStop: () => boolean;
  /** Aborted when the daemon is asked to stop: the index run ends mid-file and its workers are terminated. */
  signal?: AbortSignal;
  /** Between files: lets a shared process (MCP, HTTP) answer while the watcher works. */
  pause: () => Promise<void>;
}

/** A session no entry has been added to for this long counts as finished, for its run digest. */
export const DIGEST_IDLE_MS = 10 * 60 * 1000;

export async function runCycle(deps: CycleDeps, state: WatchState, trigger: CycleSummary['trigger'], files?: readonly string[]): Promise<CycleSummary> {
  const { config, paths, log } = deps;
  const started = deps.nowMs();
  const summary: CycleSummary = {
    started_at_epoch_secs: Math.floor(started / 1000),
    finished_at_epoch_secs: 0,
    trigger,
    files_indexed: 0,
    entries: 0,
    l1: { state: 'idle', written: 0, failed: 0, remaining: 0 },
    syns: null,
    errors: [],
  };
  const fail = (step: string, error: unknown): void => {
    const reason = `${step}: ${describeError(error)}`;
    summary.errors.push(reason);
    log('error', `${step} failed`, { reason: describeError(error) });
  };

  try {
    const roots = files?.filter((file) => existsSync(file));
    if (!roots || roots.length > 0) {
      const report = await deps.index({ roots, shouldStop: deps.shouldStop, signal: deps.signal, workers: roots && roots.length < 4 ? 0 : undefined });
      summary.files_indexed = report.indexed;
      summary.entries = report.entries;
      for (const error of report.errors) log('warn', 'file failed', { path: error.path, reason: error.reason });
      if (report.fatal) summary.errors.push(`index: ${report.fatal.message}`);
      if (report.indexed > 0) log('info', 'indexed', { files: report.indexed, entries: report.entries, sessions: report.sessions.length });
      if (report.stopped) log('info', 'indexing stopped: the rest waits for the next start', { files_indexed: report.indexed });
    }
  } catch (error) {
    fail('index', error);
  }

  if (!deps.shouldStop()) {
    try {
      const nowSecs = Math.floor(deps.nowMs() / 1000);
      const cooldown = config.watcher.cooldown_secs;
      if (state.last_l1_epoch_secs !== null && nowSecs - state.last_l1_epoch_secs < cooldown) {
        summary.l1.state = 'cooldown';
      } else {
        const queue = await runNormQueue(
          { paths, zone: config.distill.residential_timezone, ...resolveChunking(config.distill), nowMs: deps.nowMs },
          {
            maxPerCycle: config.distill.max_per_cycle,
            pause: deps.pause,
            shouldStop: deps.shouldStop,
            onFile: (result) => log('info', 'L1 block written', { session: result.record.session_id, day: result.day }),
          },
        );
        summary.l1 = { state: queue.state, written: queue.written.length, failed: queue.failed.length, remaining: queue.remaining, owner: queue.owner };
        if (queue.state === 'skipped') log('info', 'L1 skipped: the L1 lock is held', { pid: queue.owner });
        for (const failed of queue.failed) log('warn', 'L1 failed', { path: failed.path, reason: failed.reason });
        if (queue.written.length > 0) state.last_l1_epoch_secs = Math.floor(deps.nowMs() / 1000);
      }
    } catch (error) {
      fail('L1', error);
    }
  }

  if (!deps.shouldStop()) {
    const today = formatResidentialDay(deps.nowMs(), config.distill.residential_timezone);
    if (state.last_syns_day !== today) {
      const day = previousDay(today);
      const file = dailyFilePath(paths.memory, day);
      try {
        if (!existsSync(file)) {
          summary.syns = { day, outcome: 'nothing to read' };
        } else {
          const result = await runSyns(
            { paths, provider: await deps.provider(), nowMs: deps.nowMs, contextTokens: config.distill.model_context_tokens ?? 32_000 },
            [file],
          );
          summary.syns = { day, outcome: result.outcome };
          log(result.outcome === 'written' ? 'info' : 'warn', `L2 synthesis ${result.outcome}`, { day, reason: result.reason, provider: result.record.provider });
        }
        // Once a day, whatever the outcome: a failing provider is not asked again every cycle (the audit log and
        // `moon status` say it failed; `moon distill --mode syns --file …` runs it by hand).
        state.last_syns_day = today;
        state.last_syns = { day, outcome: summary.syns.outcome, at_epoch_secs: Math.floor(deps.nowMs() / 1000) };
      } catch (error) {
        fail('L2', error);
      }
    }
  }

  if (deps.digest && !deps.shouldStop()) {
    try {
      const report = await deps.digest({ all: true, idleMs: DIGEST_IDLE_MS, limit: config.distill.max_per_cycle });
      const written = report.digests.filter((row) => row.result !== 'unchanged');
      summary.digests = { written: written.length, remaining: report.remaining, failed: report.failed.length };
      for (const row of written) log('info', 'run digest written', { session: row.session_id, produced_by: row.produced_by, fallback: row.fallback ?? undefined });
      for (const failed of report.failed) log('warn', 'run digest failed', { session: failed.session_id, reason: failed.reason });
    } catch (error) {
      fail('digest', error);
    }
  }

  summary.finished_at_epoch_secs = Math.floor(deps.nowMs() / 1000);
  state.cycles += 1;
  state.last_cycle = summary;
  return summary;
}
