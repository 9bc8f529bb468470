import { MoonError } from '../errors.js';
import { type HeldLock, type LockPayload, type LockState, tryAcquireLock } from './pid-lock.js';

/**
 * A pid lock that is waited for: tried at once, then every `pollMs` until `timeoutMs` has passed, then a busy
 * error naming the holder. For work that must not interleave but may queue (two `moon rlm index` runs writing the
 * same index); the watcher's locks never wait (pid-lock.ts).
 */
export interface WaitOptions {
  timeoutMs: number;
  pollMs?: number;
  /** What is locked, for the error: e.g. "the history index /p/.puffin/history.index.json". */
  subject: string;
  /** Told once, when the lock is found held and the wait begins. */
  onWait?: (owner: LockState) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export async function acquireLockWaiting<P extends LockPayload>(path: string, payload: P, options: WaitOptions): Promise<HeldLock> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = now() + options.timeoutMs;
  let told = false;
  for (;;) {
    const attempt = tryAcquireLock(path, payload);
    if (attempt.acquired) return attempt.lock;
    if (!told) {
      told = true;
      options.onWait?.(attempt.owner);
    }
    const left = deadline - now();
    if (left <= 0) {
      const owner = attempt.owner;
      const holder = owner.state === 'held' || owner.state === 'stale' ? `process ${owner.payload.pid}` : 'another process';
      throw new MoonError('busy', `${options.subject} is locked by ${holder} (lock file ${path}); gave up after ${Math.round(options.timeoutMs / 1000)} s`, {
        hint: 'wait for the other run to finish and try again; if no such process runs, remove the lock file',
      });
    }
    await sleep(Math.min(options.pollMs ?? 100, left));
  }
}
