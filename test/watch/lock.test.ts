import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { resolvePaths } from '../../src/archive/paths.js';
import { readLock, tryAcquireLock } from '../../src/lock/pid-lock.js';
import { acquireDaemonLock, checkWorkspaceBoundary, daemonLockPath, readDaemonLock } from '../../src/watch/daemon-lock.js';
import { makeTempDir } from '../helpers/cli.js';

const dirs: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of dirs.splice(0)) cleanup();
});

function tempHome(): ReturnType<typeof resolvePaths> {
  const dir = makeTempDir('moon-lock-');
  dirs.push(dir.cleanup);
  return resolvePaths(join(dir.path, 'home'), join(dir.path, 'logs'));
}

/** The pid of a process that has exited: nothing lives at it now. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('daemon lock (seed 001 DaemonLockPayload)', () => {
  test('is JSON at $MOON_LOGS_DIR/moon-watch.daemon.lock with pid, start, build and home', () => {
    const paths = tempHome();
    const lock = acquireDaemonLock(paths, Date.parse('2026-03-01T00:00:00Z'));
    expect(daemonLockPath(paths)).toBe(join(paths.logs, 'moon-watch.daemon.lock'));
    const payload = JSON.parse(readFileSync(daemonLockPath(paths), 'utf8'));
    expect(payload).toEqual({ pid: process.pid, started_at_epoch_secs: 1772323200, build_uuid: expect.any(String), moon_home: paths.home });
    lock.release();
    expect(readDaemonLock(paths)).toEqual({ state: 'free' });
  });

  test('a second daemon is refused, naming the owner\'s pid', () => {
    const paths = tempHome();
    mkdirSync(paths.logs, { recursive: true });
    writeFileSync(daemonLockPath(paths), JSON.stringify({ pid: process.ppid, started_at_epoch_secs: 1, build_uuid: 'b', moon_home: paths.home }));
    expect(() => acquireDaemonLock(paths, Date.now())).toThrow(new RegExp(`already running \\(pid ${process.ppid} for ${paths.home.replace(/[/.]/g, '\\$&')}\\)`));
  });

  test('a legacy single-line PID lock is read; a stale one (dead pid) is recovered', () => {
    const paths = tempHome();
    mkdirSync(paths.logs, { recursive: true });
    writeFileSync(daemonLockPath(paths), `${process.ppid}\n`);
    expect(readDaemonLock(paths)).toEqual({ state: 'held', legacy: true, payload: { pid: process.ppid } });
    expect(() => acquireDaemonLock(paths, Date.now())).toThrow(/already running \(pid \d+\)/);
    const dead = deadPid();
    writeFileSync(daemonLockPath(paths), `${dead}\n`);
    expect(readDaemonLock(paths)).toMatchObject({ state: 'stale', legacy: true, payload: { pid: dead } });
    const lock = acquireDaemonLock(paths, Date.now());
    expect(JSON.parse(readFileSync(daemonLockPath(paths), 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  test('release never removes another process\'s lock; a fresh unreadable file is treated as being written', () => {
    const paths = tempHome();
    const path = join(paths.logs, 'x.lock');
    const taken = tryAcquireLock(path, { pid: process.pid });
    if (!taken.acquired) throw new Error('not acquired');
    writeFileSync(path, JSON.stringify({ pid: process.ppid }));
    taken.lock.release();
    expect(readLock(path)).toMatchObject({ state: 'held', payload: { pid: process.ppid } });
    writeFileSync(path, '');
    expect(tryAcquireLock(path, { pid: process.pid })).toMatchObject({ acquired: false, owner: { state: 'unreadable' } });
  });

  test('a command that writes refuses another home\'s running watcher unless allowed out of bounds', () => {
    const paths = tempHome();
    mkdirSync(paths.logs, { recursive: true });
    writeFileSync(daemonLockPath(paths), JSON.stringify({ pid: process.ppid, started_at_epoch_secs: 1, build_uuid: 'b', moon_home: '/somewhere/else' }));
    expect(() => checkWorkspaceBoundary(paths, false)).toThrow(/works on \/somewhere\/else, not/);
    expect(() => checkWorkspaceBoundary(paths, true)).not.toThrow();
    writeFileSync(daemonLockPath(paths), JSON.stringify({ pid: process.ppid, started_at_epoch_secs: 1, build_uuid: 'b', moon_home: paths.home }));
    expect(() => checkWorkspaceBoundary(paths, false)).not.toThrow();
  });
});
