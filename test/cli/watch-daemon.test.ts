import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { BIN, REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';

/**
 * A real `moon watch --daemon` child process: it indexes a transcript written after it started, then the lines
 * appended to it, within seconds of each write (file events, not the minute-long poll); a second daemon is
 * refused; `moon stop` ends it cleanly.
 */
const SHOP = '5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d';
const EXAMPLE = join(REPO, 'examples', 'claude-code', '-home-dev-shop', `${SHOP}.jsonl`);

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function waitFor<T>(what: string, probe: () => Promise<T | null> | T | null, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('moon watch --daemon', () => {
  test('indexes a transcript written after it started, and the lines appended later, within seconds; stop ends it', async () => {
    const dir = makeTempDir('moon-daemon-');
    cleanups.push(dir.cleanup);
    const home = join(dir.path, 'home');
    const sources = join(dir.path, 'sources');
    mkdirSync(home, { recursive: true });
    mkdirSync(sources, { recursive: true });
    writeFileSync(join(home, 'moon.toml'), '[watcher]\npoll_interval_secs = 600\ndebounce_ms = 150\ncooldown_secs = 0\n');
    const env = { MOON_HOME: home, MOON_SOURCES: sources, MOON_INDEX_WORKERS: '0', MOON_RESIDENTIAL_TIMEZONE: 'Australia/Sydney' };
    const daemon = spawn(process.execPath, [BIN, 'watch', '--daemon'], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    daemon.stderr!.on('data', (chunk) => (stderr += chunk));
    cleanups.push(() => daemon.kill('SIGKILL'));
    const lock = join(home, 'logs', 'moon-watch.daemon.lock');
    await waitFor('the daemon lock', () => (existsSync(lock) ? true : null));
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: daemon.pid, moon_home: home });
    // Its first full pass over the (empty) root done: what follows is the file events' work.
    await waitFor('the watcher to start', () => (existsSync(join(home, 'state', 'watcher.json')) ? true : null));

    const second = await spawnMoon(['watch', '--daemon'], env);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`a moon watcher is already running (pid ${daemon.pid}`);

    const lines = readFileSync(EXAMPLE, 'utf8').trim().split('\n');
    const project = join(sources, '-home-dev-shop');
    mkdirSync(project);
    const transcript = join(project, `${SHOP}.jsonl`);
    const firstPart = lines.slice(0, 12);
    expect(firstPart.join('\n')).not.toContain('colo');
    const wroteAt = Date.now();
    writeFileSync(transcript, `${firstPart.join('\n')}\n`);
    const found = await waitFor('the new transcript to be recallable', async () => {
      const run = await spawnMoon(['recall', 'Cloudflare Workers wrangler', '--json'], env);
      const result = run.code === 0 ? (JSON.parse(run.stdout) as { matches: { metadata: { session_id: string } }[] }) : null;
      return result && result.matches.some((match) => match.metadata.session_id === SHOP) ? Date.now() - wroteAt : null;
    });
    expect(found).toBeLessThan(20_000);

    const appendedAt = Date.now();
    appendFileSync(transcript, `${lines.slice(12).join('\n')}\n`);
    await waitFor('the appended lines to be recallable', async () => {
      const run = await spawnMoon(['recall', 'SYD colo health check', '--json'], env);
      const result = run.code === 0 ? (JSON.parse(run.stdout) as { matches: { snippet: string }[] }) : null;
      return result && result.matches.some((match) => /colo/.test(match.snippet)) ? Date.now() - appendedAt : null;
    });

    const status = await spawnMoon(['status', '--json'], env);
    const watcher = JSON.parse(status.stdout).watcher;
    expect(watcher.daemon).toMatchObject({ state: 'running', pid: daemon.pid });
    expect(watcher.last_cycle.trigger).toBe('files');

    const stop = await spawnMoon(['stop'], env);
    expect(stop.stdout).toContain(`stopped the watcher (pid ${daemon.pid})`);
    expect(await exited(daemon)).toBe(0);
    expect(existsSync(lock)).toBe(false);
    const log = readFileSync(join(home, 'logs', 'moon-watch.log'), 'utf8');
    expect(log).toContain('"event":"indexed"');
    expect(log).toContain('"event":"stopped"');
    // A daemon logs to its file only.
    expect(stderr).toBe('');
  }, 90_000);

  test('a session past the compaction ratio is captured at once, without waiting out the debounce, and its usage shown', async () => {
    const dir = makeTempDir('moon-daemon-');
    cleanups.push(dir.cleanup);
    const home = join(dir.path, 'home');
    const sources = join(dir.path, 'sources');
    mkdirSync(home, { recursive: true });
    mkdirSync(join(sources, '-home-dev-shop'), { recursive: true });
    // A minute of debounce: only the usage trigger can make this cycle run within seconds.
    writeFileSync(join(home, 'moon.toml'), '[watcher]\npoll_interval_secs = 600\ndebounce_ms = 60000\n[context]\ncompaction_start_ratio = 0.05\n');
    const env = { MOON_HOME: home, MOON_SOURCES: sources, MOON_INDEX_WORKERS: '0' };
    const daemon = spawn(process.execPath, [BIN, 'watch', '--daemon'], { env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
    cleanups.push(() => daemon.kill('SIGKILL'));
    // Started, and its first full pass done (its state written): the write below is the file event's alone.
    await waitFor('the watcher to start', () => (existsSync(join(home, 'state', 'watcher.json')) ? true : null));
    // The example session used 21,186 of 200,000 tokens (10.6%): past the 5% start ratio.
    writeFileSync(join(sources, '-home-dev-shop', `${SHOP}.jsonl`), readFileSync(EXAMPLE));
    const watcher = await waitFor('the usage-triggered cycle', async () => {
      const run = await spawnMoon(['status', '--json'], env);
      const status = JSON.parse(run.stdout).watcher;
      return status.last_cycle?.trigger === 'usage' && status.last_cycle.files_indexed === 1 ? status : null;
    });
    expect(watcher.usage[SHOP]).toMatchObject({ used_tokens: 21186, max_tokens: 200000, level: 'compaction', provider: expect.any(String) });
    expect(readFileSync(join(home, 'logs', 'moon-watch.log'), 'utf8')).toContain('past the compaction ratio');
    daemon.kill('SIGTERM');
    expect(await exited(daemon)).toBe(0);
  }, 90_000);
});
