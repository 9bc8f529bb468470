import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { GIVE_WAY_MAX_MS, isForegroundBusy, markForeground } from '../../src/runtime/foreground.js';
import { REPO, spawnMoon } from '../helpers/cli.js';

/** A hook marks its home while the agent waits on it; background work in the home gives way to it. */
describe('foreground marks', () => {
  const homes: string[] = [];
  const sleepers: ChildProcess[] = [];
  afterEach(() => {
    for (const sleeper of sleepers.splice(0)) sleeper.kill();
    for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
  });
  const makeHome = (): string => {
    const home = mkdtempSync(join(tmpdir(), 'moon-foreground-'));
    homes.push(home);
    return home;
  };
  /** A live process that is not this one, whose pid a mark can carry. */
  const sleeper = (seconds = 30): number => {
    const child = spawn('sleep', [String(seconds)], { stdio: 'ignore' });
    sleepers.push(child);
    return child.pid!;
  };
  const markOf = (home: string, pid: number): string => {
    mkdirSync(join(home, 'run'), { recursive: true, mode: 0o700 });
    const path = join(home, 'run', `foreground.${pid}`);
    writeFileSync(path, '');
    return path;
  };

  test.skipIf(process.platform === 'win32')('a mark is a private file in run/ that is taken off once; a home that does not exist is not created', () => {
    const home = makeHome();
    const unmark = markForeground(home);
    const path = join(home, 'run', `foreground.${process.pid}`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'run')).mode & 0o777).toBe(0o700);
    // This process's own mark never makes it wait for itself.
    expect(isForegroundBusy(home)).toBe(false);
    // Two requests side by side share the mark: it stays until the last is done.
    const second = markForeground(home);
    unmark();
    unmark();
    expect(existsSync(path)).toBe(true);
    second();
    expect(existsSync(path)).toBe(false);
    const missing = join(home, 'not-yet');
    markForeground(missing)();
    expect(existsSync(missing)).toBe(false);
  });

  test('another live process marks the home busy; a dead one or an old mark does not, and is removed', () => {
    const home = makeHome();
    const live = markOf(home, sleeper());
    expect(isForegroundBusy(home)).toBe(true);
    const old = Date.now() / 1000 - 60;
    utimesSync(live, old, old);
    expect(isForegroundBusy(home)).toBe(false);
    expect(existsSync(live)).toBe(false);
    // A pid no process has (beyond the kernel's limit).
    const dead = markOf(home, 2 ** 22 + 1);
    expect(isForegroundBusy(home)).toBe(false);
    expect(existsSync(dead)).toBe(false);
    expect(readdirSync(join(home, 'run'))).toEqual([]);
    expect(isForegroundBusy(join(home, 'nothing-here'))).toBe(false);
  });

  test.skipIf(process.platform === 'win32')('only background work gives way, until the hook is done or for its longest wait', () => {
    const home = makeHome();
    const mark = markOf(home, sleeper());
    const modules = { foreground: join(REPO, 'dist', 'runtime', 'foreground.js'), priority: join(REPO, 'dist', 'runtime', 'priority.js') };
    const waited = (lower: boolean, maxMs: number, unmarkAfterMs: number | null): number => {
      const script = `
        const { unlinkSync } = require('node:fs');
        Promise.all([import(${JSON.stringify(pathToFileURL(modules.foreground).href)}), import(${JSON.stringify(pathToFileURL(modules.priority).href)})]).then(async ([{ giveWayToForeground }, { lowerPriority }]) => {
          if (${lower}) lowerPriority();
          if (${unmarkAfterMs !== null}) setTimeout(() => unlinkSync(${JSON.stringify(mark)}), ${unmarkAfterMs ?? 0});
          console.log(await giveWayToForeground(${JSON.stringify(home)}, ${maxMs}));
        });`;
      return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim());
    };
    // Not background (no lowered priority): it never waits, mark or not.
    expect(waited(false, 5_000, null)).toBe(0);
    // Background: it waits while the mark is there, for at most its longest wait.
    expect(waited(true, 300, null)).toBeGreaterThanOrEqual(300);
    // Background: the hook is done after 400 ms, well before the longest wait.
    const untilDone = waited(true, 20_000, 400);
    expect(untilDone).toBeGreaterThanOrEqual(400);
    expect(untilDone).toBeLessThan(20_000);
  });

  test.skipIf(process.platform === 'win32')('moon index gives way while a hook runs, never for ever, and indexes every file as it would have', async () => {
    const source = join(REPO, 'test', 'fixtures', 'claude-code');
    const index = async (home: string): Promise<Record<string, unknown>> => {
      const run = await spawnMoon(['index', source, '--json'], { MOON_HOME: home });
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as Record<string, unknown>;
    };
    const alone = await index(makeHome());
    expect(alone['gave_way_ms']).toBe(0);
    const home = makeHome();
    // A hook that does not end while the index runs: the index waits its longest, then goes on.
    markOf(home, sleeper());
    const beside = await index(home);
    const counts = (report: Record<string, unknown>): unknown[] => ['files', 'indexed', 'failed', 'entries', 'projections'].map((key) => report[key]);
    expect(counts(beside)).toEqual(counts(alone));
    expect(alone['files']).toBeGreaterThan(3);
    expect(beside['gave_way_ms']).toBeGreaterThanOrEqual(GIVE_WAY_MAX_MS);
  }, 60_000);
});
