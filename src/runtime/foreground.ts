import { mkdirSync, readdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runDirOf } from '../archive/moon-home.js';
import { isBackground } from './priority.js';

/**
 * An agent waiting on moon. A hook the agent runs marks its home for as long as it runs (`run/foreground.<pid>`);
 * background work in that home — `moon index`, the watcher, a hook's detached capture, each of which lowered its
 * priority — gives way between files while a mark is there: it sleeps until the hook is done, at most
 * GIVE_WAY_MAX_MS at a time, so it never starves. On two cores a full re-index beside the hooks otherwise shares
 * the processor, the disk and the memory bus with them however low its priority (docs/benchmarks.md).
 * Nothing here fails either side: a mark that cannot be written is a hook that runs unmarked.
 */

const MARK_PREFIX = 'foreground.';

/** A mark older than this is a hook that died without taking it off (a hook answers within seconds): ignored, removed. */
const STALE_MS = 30_000;

/** The longest one give-way sleeps: background work goes on after it even if the agent's hooks never stop. */
export const GIVE_WAY_MAX_MS = 2_000;

const POLL_MS = 5;

/** Marks this process holds, per mark file: requests a server answers side by side share its one mark. */
const held = new Map<string, number>();

/** Mark the home while the caller runs; the function returned takes the mark off (once). Never throws. */
export function markForeground(home: string): () => void {
  const run = runDirOf(home);
  const mark = join(run, `${MARK_PREFIX}${process.pid}`);
  // Written again by each request (a long one beside it may have outlived STALE_MS), taken off by the last.
  if (!writeMark(run, mark)) return () => undefined;
  held.set(mark, (held.get(mark) ?? 0) + 1);
  let taken = false;
  return () => {
    if (taken) return;
    taken = true;
    const left = (held.get(mark) ?? 1) - 1;
    if (left > 0) {
      held.set(mark, left);
      return;
    }
    held.delete(mark);
    try {
      unlinkSync(mark);
    } catch {
      // Gone already.
    }
  };
}

function writeMark(run: string, mark: string): boolean {
  try {
    // The home itself is never created here: a hook for a home that does not exist yet marks nothing.
    mkdirSync(run, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
  }
  try {
    writeFileSync(mark, '', { mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}

/** Whether a hook other than this process is running in the home now (stale marks are removed on the way). */
export function isForegroundBusy(home: string, now: number = Date.now()): boolean {
  const run = runDirOf(home);
  let names: string[];
  try {
    names = readdirSync(run);
  } catch {
    return false;
  }
  let busy = false;
  for (const name of names) {
    if (!name.startsWith(MARK_PREFIX)) continue;
    const pid = Number(name.slice(MARK_PREFIX.length));
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const path = join(run, name);
    try {
      if (now - statSync(path).mtimeMs < STALE_MS && isAlive(pid)) {
        busy = true;
        continue;
      }
      unlinkSync(path);
    } catch {
      // Taken off meanwhile.
    }
  }
  return busy;
}

/**
 * After a give-way that waited its longest, marks are not looked at for as long again: background work runs at
 * least half the time even beside hooks that never end (a mark is removed when its process dies, or after STALE_MS).
 */
let heedAfter = 0;

/** Whether this process is background work (priority.ts) and a hook is running in the home now. */
export function shouldGiveWay(home: string): boolean {
  return isBackground() && Date.now() >= heedAfter && isForegroundBusy(home);
}

/**
 * Background work's turn between files: when this process runs below normal priority (priority.ts) and a hook is
 * running in the home, wait until it is done (at most `maxMs`). The milliseconds waited.
 */
export async function giveWayToForeground(home: string, maxMs: number = GIVE_WAY_MAX_MS): Promise<number> {
  if (!shouldGiveWay(home)) return 0;
  const started = Date.now();
  do {
    if (Date.now() - started >= maxMs) {
      heedAfter = Date.now() + maxMs;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  } while (isForegroundBusy(home));
  return Date.now() - started;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
