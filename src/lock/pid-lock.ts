import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { errnoOf, toIoError } from '../errors.js';

/**
 * A lock that is a file: created with O_EXCL so only one process holds it, holding the owner's pid (JSON, or a
 * legacy single line with the pid alone). Never waits: a held lock is an answer, not a queue (seed 001: the L1
 * lock is non-blocking and single-run). A lock whose pid is dead is stale and is taken over.
 */
export interface LockPayload {
  pid: number;
  [key: string]: unknown;
}

export type LockState<P extends LockPayload = LockPayload> =
  | { state: 'free' }
  | { state: 'held'; payload: P; legacy: boolean }
  | { state: 'stale'; payload: P; legacy: boolean }
  | { state: 'unreadable'; reason: string };

export interface HeldLock {
  path: string;
  /** Remove the file if it is still ours. */
  release(): void;
}

/** Whether a process with this pid exists (EPERM: it does, it is someone else's). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoOf(error) === 'EPERM';
  }
}

/** Parse a lock file's text: the JSON payload, or a legacy line holding only a pid. */
export function parseLockText<P extends LockPayload>(text: string): { payload: P; legacy: boolean } | null {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { payload: { pid: Number(trimmed) } as P, legacy: true };
  try {
    const value = JSON.parse(trimmed) as unknown;
    if (typeof value === 'object' && value !== null && Number.isInteger((value as { pid?: unknown }).pid)) {
      return { payload: value as P, legacy: false };
    }
  } catch {
    // not JSON: unreadable below
  }
  return null;
}

export function readLock<P extends LockPayload>(path: string): LockState<P> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return { state: 'free' };
    return { state: 'unreadable', reason: (error as Error).message };
  }
  const parsed = parseLockText<P>(text);
  if (!parsed) return { state: 'unreadable', reason: `${path} holds neither a JSON lock payload nor a pid` };
  return { state: isProcessAlive(parsed.payload.pid) ? 'held' : 'stale', ...parsed };
}

/**
 * Take the lock or say who has it. A stale lock (dead pid) or an unreadable one (a crash mid-write) is moved
 * aside with one atomic rename — of two processes recovering it at once, one wins — and taken.
 */
export function tryAcquireLock<P extends LockPayload>(path: string, payload: P): { acquired: true; lock: HeldLock } | { acquired: false; owner: LockState<P> } {
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, `${JSON.stringify(payload)}\n`, { flag: 'wx', mode: 0o644 });
      return { acquired: true, lock: { path, release: () => releaseLock(path, payload.pid) } };
    } catch (error) {
      if (errnoOf(error) !== 'EEXIST') throw toIoError(path, error, 'create the lock');
    }
    const owner = readLock<P>(path);
    if (owner.state === 'held') return { acquired: false, owner };
    if (owner.state === 'free') continue;
    // An empty or half-written file may be a lock being created this instant: only an old one is a crash's leftover.
    if (owner.state === 'unreadable' && isRecent(path)) return { acquired: false, owner };
    try {
      renameSync(path, `${path}.stale-${process.pid}`);
      rmSync(`${path}.stale-${process.pid}`, { force: true });
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT') throw toIoError(path, error, 'recover the stale lock');
    }
  }
  return { acquired: false, owner: readLock<P>(path) };
}

const UNREADABLE_GRACE_MS = 5_000;

function isRecent(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < UNREADABLE_GRACE_MS;
  } catch {
    return false;
  }
}

/** Remove the lock file only while it still names this pid: never another process's lock. */
export function releaseLock(path: string, pid: number): void {
  try {
    const parsed = parseLockText(readFileSync(path, 'utf8'));
    if (parsed?.payload.pid === pid) rmSync(path, { force: true });
  } catch {
    // gone already
  }
}
