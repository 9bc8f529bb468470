import { closeSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensurePrivateDir, writeFileAtomic } from '../archive/write.js';
import { errnoOf } from '../errors.js';
import { HOOK_EVENTS, type HookEvent, isHookEvent } from './events.js';
import { readRunningHookServer } from './server-files.js';

/**
 * `$MOON_HOME/state/hooks.json`: per residential day and hook, how often it ran, how often it handed the agent
 * context and how many tokens (cl100k_base) — what `moon status` shows — and the last hook failure, since a
 * hook that fails open says so only on a stderr the user rarely sees. Days older than KEEP_DAYS are dropped.
 * Writers take a short O_EXCL lock beside the file; a writer that cannot get it within LOCK_WAIT_MS gives up
 * on recording rather than hold the agent up.
 */
export interface HookDayCounts {
  runs: number;
  /** Runs that printed context for the agent. */
  injections: number;
  tokens: number;
  failures: number;
}

export interface HookFailure {
  event: string;
  day: string;
  at_epoch_secs: number;
  message: string;
}

export interface HookStateFile {
  version: 1;
  days: Record<string, Partial<Record<HookEvent, HookDayCounts>>>;
  last_failure: HookFailure | null;
}

export interface HookUsageLine extends HookDayCounts {
  day: string;
  event: HookEvent;
}

export interface HookUsageReport {
  /** The state file. */
  file: string;
  /** Newest day first; within a day, in HOOK_EVENTS order. */
  days: HookUsageLine[];
  lastFailure: HookFailure | null;
  /** The home's hook server, when one runs (src/hooks/server-files.ts). */
  server: { pid: number; started_ms: number } | null;
}

export const KEEP_DAYS = 31;
const LOCK_WAIT_MS = 200;
/** A lock older than this was left by a process that died holding it. */
const STALE_LOCK_MS = 5_000;

export function hookStatePath(home: string): string {
  return join(home, 'state', 'hooks.json');
}

export function readHookState(path: string): HookStateFile {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<HookStateFile>;
    if (value && value.version === 1 && typeof value.days === 'object' && value.days !== null) {
      return { version: 1, days: value.days, last_failure: value.last_failure ?? null };
    }
  } catch (error) {
    // Missing: no hook has run. Damaged: counting starts again (the counts are a convenience, not a record).
    if (errnoOf(error) !== 'ENOENT' && !(error instanceof SyntaxError)) throw error;
  }
  return { version: 1, days: {}, last_failure: null };
}

export function readHookUsage(home: string): HookUsageReport {
  const file = hookStatePath(home);
  const state = readHookState(file);
  const days: HookUsageLine[] = [];
  for (const day of Object.keys(state.days).sort().reverse()) {
    for (const event of HOOK_EVENTS) {
      const counts = state.days[day]?.[event];
      if (counts) days.push({ day, event, runs: counts.runs ?? 0, injections: counts.injections ?? 0, tokens: counts.tokens ?? 0, failures: counts.failures ?? 0 });
    }
  }
  return { file, days, lastFailure: state.last_failure, server: readRunningHookServer(home) };
}

export interface HookRun {
  /** A hook event; any other name (a mistyped registration) only records the failure. */
  event: string;
  day: string;
  nowMs: number;
  tokens?: number;
  /** The one-line message of a failure the hook failed open on. */
  failure?: string;
}

/** Count one run. Returns false when the lock could not be had in time (nothing recorded). */
export async function recordHookRun(home: string, run: HookRun): Promise<boolean> {
  const file = hookStatePath(home);
  const release = await takeLock(`${file}.lock`);
  if (!release) return false;
  try {
    const state = readHookState(file);
    if (isHookEvent(run.event)) {
      const day = (state.days[run.day] ??= {});
      const counts = (day[run.event] ??= { runs: 0, injections: 0, tokens: 0, failures: 0 });
      counts.runs += 1;
      if (run.tokens !== undefined && run.tokens > 0) {
        counts.injections += 1;
        counts.tokens += run.tokens;
      }
      if (run.failure !== undefined) counts.failures = (counts.failures ?? 0) + 1;
    }
    if (run.failure !== undefined) {
      state.last_failure = { event: run.event, day: run.day, at_epoch_secs: Math.floor(run.nowMs / 1000), message: run.failure.slice(0, 500) };
    }
    for (const old of Object.keys(state.days).sort().slice(0, -KEEP_DAYS)) delete state.days[old];
    writeFileAtomic(file, `${JSON.stringify(state, null, 1)}\n`);
    return true;
  } finally {
    release();
  }
}

async function takeLock(path: string): Promise<(() => void) | null> {
  const started = Date.now();
  for (;;) {
    try {
      closeSync(openSync(path, 'wx', 0o600));
      return () => rmSync(path, { force: true });
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') {
        // The state folder does not exist yet (no hook or watcher has written state).
        ensurePrivateDir(dirname(path));
        continue;
      }
      if (errnoOf(error) !== 'EEXIST') throw error;
    }
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_LOCK_MS) {
        rmSync(path, { force: true });
        continue;
      }
    } catch {
      continue;
    }
    if (Date.now() - started > LOCK_WAIT_MS) return null;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
