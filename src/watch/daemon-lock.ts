import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { MoonPaths } from '../archive/paths.js';
import { writeFileAtomic } from '../archive/write.js';
import { MoonError } from '../errors.js';
import { type HeldLock, type LockState, readLock, tryAcquireLock } from '../lock/pid-lock.js';
import { readBuildId } from '../runtime/build-paths.js';

/** Seed 001 DaemonLockPayload, at `$MOON_LOGS_DIR/moon-watch.daemon.lock`. */
export interface DaemonLockPayload {
  pid: number;
  started_at_epoch_secs: number;
  build_uuid: string;
  moon_home: string;
  [key: string]: unknown;
}

export function daemonLockPath(paths: MoonPaths): string {
  return join(paths.logs, 'moon-watch.daemon.lock');
}

export function readDaemonLock(paths: MoonPaths): LockState<DaemonLockPayload> {
  return readLock<DaemonLockPayload>(daemonLockPath(paths));
}

/** Take the daemon lock; a second daemon is refused, naming the owner's pid. A stale lock is recovered. */
export function acquireDaemonLock(paths: MoonPaths, nowMs: number): HeldLock {
  const payload: DaemonLockPayload = {
    pid: process.pid,
    started_at_epoch_secs: Math.floor(nowMs / 1000),
    build_uuid: readBuildId(),
    moon_home: resolve(paths.home),
  };
  const taken = tryAcquireLock(daemonLockPath(paths), payload);
  if (taken.acquired) return taken.lock;
  const owner = taken.owner;
  const who = 'payload' in owner ? `pid ${owner.payload.pid}${owner.payload.moon_home ? ` for ${owner.payload.moon_home}` : ''}` : owner.state === 'unreadable' ? owner.reason : 'another process';
  throw new MoonError('busy', `a moon watcher is already running (${who})`, {
    hint: `\`moon stop\` ends it; its lock is ${daemonLockPath(paths)}`,
  });
}

/**
 * A stop asked of the daemon and not yet done: `$MOON_LOGS_DIR/moon-watch.daemon.stopping`, beside the lock,
 * written by `moon stop` before it signals and by the daemon when a signal reaches it, removed when the daemon
 * lets go of its lock. It counts only while it names the pid that holds the lock (a leftover of a crash, or of
 * another daemon, says nothing).
 */
export interface StopRequest {
  pid: number;
  requested_at_epoch_secs: number;
  /** `moon stop`, or the signal the daemon received. */
  by: string;
}

export function daemonStopPath(paths: MoonPaths): string {
  return join(paths.logs, 'moon-watch.daemon.stopping');
}

export function recordStopRequest(paths: MoonPaths, request: StopRequest): void {
  writeFileAtomic(daemonStopPath(paths), `${JSON.stringify(request)}\n`);
}

/** The stop asked of the daemon `pid`, or null: none, unreadable, or one asked of another process. */
export function readStopRequest(paths: MoonPaths, pid: number): StopRequest | null {
  try {
    const value = JSON.parse(readFileSync(daemonStopPath(paths), 'utf8')) as Partial<StopRequest>;
    if (value.pid !== pid || typeof value.requested_at_epoch_secs !== 'number') return null;
    return { pid, requested_at_epoch_secs: value.requested_at_epoch_secs, by: typeof value.by === 'string' ? value.by : 'unknown' };
  } catch {
    return null;
  }
}

/** Remove the stop request, if any (the daemon on its way out, and at its start: a crash's leftover). */
export function clearStopRequest(paths: MoonPaths): void {
  rmSync(daemonStopPath(paths), { force: true });
}

/**
 * Seed 001 DaemonLockPayload rule 3: a mutating command refuses to work on a home other than the one the
 * running daemon owns (a shared logs dir pointing at another home is a mistake to stop, not to act on).
 */
export function checkWorkspaceBoundary(paths: MoonPaths, allowOutOfBounds: boolean): void {
  if (allowOutOfBounds) return;
  const lock = readDaemonLock(paths);
  if (lock.state !== 'held' || lock.legacy || typeof lock.payload.moon_home !== 'string') return;
  if (resolve(lock.payload.moon_home) === resolve(paths.home)) return;
  throw new MoonError('bad_usage', `the watcher holding ${daemonLockPath(paths)} (pid ${lock.payload.pid}) works on ${lock.payload.moon_home}, not ${resolve(paths.home)}`, {
    hint: 'point MOON_HOME at that home, give this home its own logs.dir, or pass --allow-out-of-bounds',
  });
}
