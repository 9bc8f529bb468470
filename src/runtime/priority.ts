import { getPriority, setPriority } from 'node:os';

/**
 * Background work — `moon index`, the watcher, a hook's detached capture — runs below normal priority, so on a
 * busy machine the agent and the hooks it waits on get the processor first (a concurrent index on two cores
 * doubled every hook's time: docs/benchmarks.md). Called before any worker starts: threads take the priority of
 * the thread that starts them. Never raises a priority a user set lower, and never fails a run.
 */
export const BACKGROUND_NICE = 10;

export function lowerPriority(nice: number = BACKGROUND_NICE): void {
  try {
    if (getPriority() < nice) setPriority(nice);
  } catch {
    // Not permitted or not supported: run as we are.
  }
}
