import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { REPO, makeTempDir, runMoon } from '../helpers/cli.js';

/** `moon distill`, `moon watch --once|--dry-run`, `moon health` and `moon status` through the CLI, on the bundled examples. */
const SHOP = '5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function indexedHome(): Promise<{ home: string; env: Record<string, string> }> {
  const dir = makeTempDir('moon-distill-');
  cleanups.push(dir.cleanup);
  const home = join(dir.path, 'home');
  const env = { MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'Australia/Sydney', MOON_SOURCES: join(REPO, 'examples'), MOON_INDEX_WORKERS: '0', MOON_FAKE_NOW: '2026-02-21T14:00:00Z' };
  const index = await runMoon(['index', '--json'], env);
  expect(index.code).toBe(0);
  return { home, env };
}

describe('moon distill', () => {
  test('-mode norm -archive PATH (seed 001 spelling) writes the block; a second run is an error, exit 2', async () => {
    const { home, env } = await indexedHome();
    const projection = join(home, 'archives', 'mlib', `${SHOP}.md`);
    const first = await runMoon(['distill', '-mode', 'norm', '-archive', projection, '--json'], env);
    expect(first.code).toBe(0);
    const out = JSON.parse(first.stdout);
    expect(out.record).toMatchObject({ session_id: SHOP, provider: 'l1-normaliser', summary_path: join(home, 'memory', '2026-02-21.md') });
    const again = await runMoon(['distill', '--mode', 'norm', '--archive', projection], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/no pending projection/);
    const none = await runMoon(['distill', '--mode', 'norm'], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/needs --archive PATH/);
    const bad = await runMoon(['distill', '--mode', 'nope'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--mode must be "norm" or "syns"/);
  }, 30_000);

  test('--mode syns with the local provider writes MEMORY.md from today\'s daily file (the clock is 01:00 on 22 Feb in Sydney)', async () => {
    const { home, env } = await indexedHome();
    // Nothing for today yet: an error naming the file.
    const missing = await runMoon(['distill', '--mode', 'syns'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(join(home, 'memory', '2026-02-22.md'));
    const day = join(home, 'memory', '2026-02-21.md');
    expect((await runMoon(['watch', '--once'], env)).code).toBe(0);
    expect(existsSync(day)).toBe(true);
    const syns = await runMoon(['distill', '--mode', 'syns', '--file', day, '--json'], env);
    expect(syns.code).toBe(0);
    expect(JSON.parse(syns.stdout)).toMatchObject({ outcome: 'written', record: { session_id: 'daily:2026-02-21', provider: 'local' } });
    const memory = readFileSync(join(home, 'MEMORY.md'), 'utf8');
    expect(memory.split('\n').filter((line) => line.startsWith('## '))).toEqual(['## Lessons Learned', '## User Preferences', '## Durable Decisions & Context']);
  }, 30_000);
});

describe('moon watch --once, --dry-run, health, status', () => {
  test('dry run changes nothing; --once does the cycle; status and health report it', async () => {
    const { home, env } = await indexedHome();
    const plan = await runMoon(['watch', '--dry-run', '--json'], env);
    expect(plan.code).toBe(0);
    const planned = JSON.parse(plan.stdout);
    expect(planned.pending_l1).toHaveLength(4);
    expect(planned.syns).toMatchObject({ day: '2026-02-21', due: true });
    expect(existsSync(join(home, 'memory'))).toBe(false);
    const once = await runMoon(['watch', '--once', '--json'], env);
    expect(once.code).toBe(0);
    const cycle = JSON.parse(once.stdout);
    expect(cycle).toMatchObject({ trigger: 'once', l1: { state: 'ran', written: 4 }, syns: { day: '2026-02-21', outcome: 'written' } });
    const status = await runMoon(['status'], env);
    expect(status.stdout).toMatch(/watcher: not running/);
    expect(status.stdout).toMatch(/pending L1: 0/);
    expect(status.stdout).toMatch(/last L2 synthesis: 2026-02-21 written/);
    const health = await runMoon(['health', '--json'], env);
    expect(health.code).toBe(1);
    expect(JSON.parse(health.stdout).problems).toContain('watcher not running');
  }, 30_000);

  test('a command that writes refuses another home\'s watcher sharing the logs dir, unless --allow-out-of-bounds', async () => {
    const { home, env } = await indexedHome();
    const logs = join(home, 'logs');
    mkdirSync(logs, { recursive: true });
    writeFileSync(join(logs, 'moon-watch.daemon.lock'), JSON.stringify({ pid: process.pid, started_at_epoch_secs: 1, build_uuid: 'x', moon_home: '/other/home' }));
    const refused = await runMoon(['index'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/works on \/other\/home/);
    expect((await runMoon(['recall', 'wrangler'], env)).code).toBe(0);
    expect((await runMoon(['--allow-out-of-bounds', 'index'], env)).code).toBe(0);
    const health = await runMoon(['status', '--json'], env);
    expect(JSON.parse(health.stdout).watcher.daemon).toMatchObject({ state: 'running', pid: process.pid, moon_home: '/other/home' });
  }, 30_000);

  test('status reports a stale daemon lock as stale, with its pid; stop says no watcher runs', async () => {
    const { home, env } = await indexedHome();
    mkdirSync(join(home, 'logs'), { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(join(home, 'logs', 'moon-watch.daemon.lock'), `${dead}\n`);
    const status = await runMoon(['status', '--json'], env);
    expect(JSON.parse(status.stdout).watcher.daemon).toMatchObject({ state: 'stale', pid: Number(dead), legacy: true });
    expect((await runMoon(['status'], env)).stdout).toContain(`watcher: stale (pid ${dead}, legacy lock)`);
    const stop = await runMoon(['stop'], env);
    expect(stop.stdout).toContain(`no watcher running (stale lock of pid ${dead})`);
  }, 30_000);
});
