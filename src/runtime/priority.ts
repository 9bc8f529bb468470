import { getPriority, setPriority } from 'node:os';

/**
 * Background work — `moon index`, the watcher, a hook's detached capture — runs below normal priority, so on a
 * busy machine the agent and the hooks it waits on get the processor first (a concurrent index on two cores
 * doubled every hook's time: docs/benchmarks.md). Called before any worker starts: threads take the priority of
 * the thread that starts them. Never raises a priority a user set lower, and never fails a run.
 */
export const BACKGROUND_NICE = 10;

/** Set by lowerPriority: this process is background work, which also gives way to the agent's hooks (foreground.ts). */
let background = false;

export function isBackground(): boolean {
  return background;
}

export function lowerPriority(nice: number = BACKGROUND_NICE): void {
  background = true;
  try {
    if (getPriority() < nice) setPriority(nice);
  } catch {
    // Not permitted or not supported: run as we are.
  }
}

/**
 * Lower another process — one this process just started for background work — so that its whole life, its start
 * and module loading included, runs below the agent's priority (the process lowers itself too, later).
 */
export function lowerChildPriority(pid: number | undefined, nice: number = BACKGROUND_NICE): void {
  if (pid === undefined) return;
  try {
    if (getPriority(pid) < nice) setPriority(pid, nice);
  } catch {
    // Gone already, not permitted or not supported: it runs as it is.
  }
}
