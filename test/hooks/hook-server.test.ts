import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { sendToHookServer } from '../../src/interfaces/hook/server-client.js';
import type { HookServerAnswer, HookServerRequest } from '../../src/hooks/server-files.js';
import { REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { claudePayload, runHookProcess } from './hook-helpers.js';

/**
 * The hook server: the first hook that hands the agent context starts it; the hooks after it are answered by it
 * with exactly what their own process would have printed; it answers its owner's hooks for its home alone, and
 * goes away when idle or gone.
 */
let root: string;
let home: string;
let cleanup: () => void;
const DIST_BUILD = (JSON.parse(readFileSync(join(REPO, 'dist', 'build-id.json'), 'utf8')) as { build_uuid: string }).build_uuid;

beforeAll(async () => {
  const temp = makeTempDir('moon-hook-server-');
  cleanup = temp.cleanup;
  root = temp.path;
  home = join(root, 'home');
  const run = await spawnMoon(['index', join(REPO, 'examples')], { MOON_HOME: home });
  expect(run.code, run.stderr).toBe(0);
});
afterEach(() => stopServer(home));
afterAll(() => cleanup());

const run = (home: string) => join(home, 'run');
const info = (home: string): { pid: number; token: string } | null =>
  existsSync(join(run(home), 'hook-server.json')) ? (JSON.parse(readFileSync(join(run(home), 'hook-server.json'), 'utf8')) as { pid: number; token: string }) : null;

function stopServer(home: string): void {
  const server = info(home);
  if (server === null) return;
  try {
    process.kill(server.pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
  rmSync(run(home), { recursive: true, force: true });
}

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A request as a hook of the built moon sends it, with this token. */
const ask = (home: string, request: (token: string) => HookServerRequest): Promise<HookServerAnswer | null> => sendToHookServer(home, request, 5_000);
const status = (home: string) => ask(home, (token) => ({ v: 1, token, build: DIST_BUILD, kind: 'status' }));

const shop = '/home/dev/shop';
const promptPayload = claudePayload.userPromptSubmit({ session_id: 'current-one', transcript_path: '/tmp/current.jsonl', cwd: shop, prompt: 'how do we set the stripe webhook secret?' });
const startPayload = claudePayload.sessionStart({ session_id: 'new-one', transcript_path: '/tmp/new.jsonl', cwd: shop, source: 'startup' });
const withServer = (extra: Record<string, string> = {}) => ({ MOON_HOME: home, MOON_HOOKS_SERVER: 'auto', MOON_HOOKS_USER_PROMPT_RECALL: 'true', ...extra });

function hookRuns(home: string, event: string): number {
  const state = JSON.parse(readFileSync(join(home, 'state', 'hooks.json'), 'utf8')) as { days: Record<string, Record<string, { runs: number }>> };
  return Object.values(state.days).reduce((sum, day) => sum + (day[event]?.runs ?? 0), 0);
}

describe('the hook server', () => {
  test('the first hook starts it; the next are answered by it, byte for byte what their own process prints, and counted once', async () => {
    const alone = {
      prompt: await runHookProcess(['hook', 'user-prompt-submit'], promptPayload, { MOON_HOME: home, MOON_HOOKS_USER_PROMPT_RECALL: 'true' }),
      start: await runHookProcess(['hook', 'session-start'], startPayload, { MOON_HOME: home }),
    };
    expect(alone.prompt.stdout).toContain('additionalContext');
    expect(alone.start.stdout).toContain('additionalContext');
    // What a hook leaves in run/ is its foreground mark, taken off when it is done: no server's files.
    expect(existsSync(run(home)) ? readdirSync(run(home)) : [], 'MOON_HOOKS_SERVER=off starts none').toEqual([]);

    const first = await runHookProcess(['hook', 'user-prompt-submit'], promptPayload, withServer());
    expect(first.stdout).toBe(alone.prompt.stdout);
    await eventually(() => info(home) !== null && existsSync(join(run(home), 'hook.sock')));
    await eventually(async () => (await status(home)) !== null);
    const before = await status(home);
    expect(before).toMatchObject({ served: false, reason: 'status', status: { pid: info(home)!.pid, answered: 0, home } });
    const shown = await spawnMoon(['status', '--json'], { MOON_HOME: home });
    expect((JSON.parse(shown.stdout) as { hooks: { server: unknown } }).hooks.server).toMatchObject({ pid: info(home)!.pid });
    expect((await spawnMoon(['status'], { MOON_HOME: home })).stdout).toContain(`hook server: running (pid ${info(home)!.pid}`);

    const promptRuns = hookRuns(home, 'user-prompt-submit');
    const startRuns = hookRuns(home, 'session-start');
    const served = {
      prompt: await runHookProcess(['hook', 'user-prompt-submit'], promptPayload, withServer()),
      start: await runHookProcess(['hook', 'session-start'], startPayload, withServer()),
    };
    expect(served.prompt).toMatchObject({ code: 0, stdout: alone.prompt.stdout, stderr: alone.prompt.stderr });
    expect(served.start).toMatchObject({ code: 0, stdout: alone.start.stdout, stderr: alone.start.stderr });
    expect(await status(home)).toMatchObject({ status: { answered: 2 } });
    expect(hookRuns(home, 'user-prompt-submit')).toBe(promptRuns + 1);
    expect(hookRuns(home, 'session-start')).toBe(startRuns + 1);

    // A hook's own settings reach the answer: a smaller budget, a recall turned off.
    const small = await runHookProcess(['hook', 'user-prompt-submit'], promptPayload, { MOON_HOME: home, MOON_HOOKS_USER_PROMPT_RECALL: 'true', MOON_HOOKS_USER_PROMPT_BUDGET_TOKENS: '120' });
    const smallServed = await runHookProcess(['hook', 'user-prompt-submit'], promptPayload, withServer({ MOON_HOOKS_USER_PROMPT_BUDGET_TOKENS: '120' }));
    expect(smallServed.stdout).toBe(small.stdout);
    expect(smallServed.stdout.length).toBeLessThan(served.prompt.stdout.length);
    expect(await runHookProcess(['hook', 'user-prompt-submit'], promptPayload, withServer({ MOON_HOOKS_USER_PROMPT_RECALL: 'false' }))).toMatchObject({ stdout: '', stderr: '' });
    // A prompt of megabytes (a pasted file) reaches the server whole.
    const long = claudePayload.userPromptSubmit({ session_id: 'current-one', transcript_path: '/tmp/current.jsonl', cwd: shop, prompt: `how do we set the stripe webhook secret? ${'x'.repeat(3_000_000)}` });
    const longAlone = await runHookProcess(['hook', 'user-prompt-submit'], long, { MOON_HOME: home, MOON_HOOKS_USER_PROMPT_RECALL: 'true' });
    expect(await runHookProcess(['hook', 'user-prompt-submit'], long, withServer())).toMatchObject({ stdout: longAlone.stdout, stderr: longAlone.stderr });
    // A payload that is wrong fails open through the server as it does alone.
    const bad = await runHookProcess(['hook', 'user-prompt-submit'], '{"cwd": "/home/dev/shop"}', withServer());
    expect(bad).toMatchObject({ code: 0, stdout: '' });
    expect(bad.stderr).toMatch(/^moon hook user-prompt-submit: .*"prompt"/);
    expect(await status(home)).toMatchObject({ status: { answered: 6 } });

    // The server keeps its index open across hooks; a rebuild renames a new index over it, which the next hook reads.
    expect((await spawnMoon(['rebuild'], { MOON_HOME: home })).code).toBe(0);
    const rebuilt = await runHookProcess(['hook', 'user-prompt-submit'], promptPayload, { MOON_HOME: home, MOON_HOOKS_USER_PROMPT_RECALL: 'true' });
    expect(rebuilt.stdout).toContain('additionalContext');
    expect(await runHookProcess(['hook', 'user-prompt-submit'], promptPayload, withServer())).toMatchObject({ stdout: rebuilt.stdout, stderr: rebuilt.stderr });
    expect(await status(home)).toMatchObject({ status: { answered: 7 } });
    if (process.platform === 'linux') {
      // It reads the new file: what it holds open is the index there now, never the one the rebuild replaced.
      const held = readdirSync(`/proc/${info(home)!.pid}/fd`).map((fd) => {
        try {
          return readlinkSync(`/proc/${info(home)!.pid}/fd/${fd}`);
        } catch {
          return '';
        }
      });
      expect(held).toContain(join(home, 'moon.db'));
      expect(held.filter((target) => target.includes('moon.db') && target.endsWith('(deleted)'))).toEqual([]);
    }
  });

  test('stop and session-end hand their capture to a running server, print nothing, are counted once, and never start one', async () => {
    const live = join(root, 'live');
    mkdirSync(live, { recursive: true });
    const fixtures = ['synthetic-summary-titles.jsonl', 'synthetic-streaming-split-text.jsonl'];
    const sessions = async (): Promise<number> => (JSON.parse((await spawnMoon(['sessions', '--json', '--limit', '1000'], { MOON_HOME: home })).stdout) as { sessions: unknown[] }).sessions.length;
    const stop = (name: string) => {
      const transcript = join(live, name);
      copyFileSync(join(REPO, 'test', 'fixtures', 'claude-code', name), transcript);
      return claudePayload.stop({ session_id: name, transcript_path: transcript, cwd: shop });
    };
    const count = await sessions();
    const stopRuns = hookRuns(home, 'stop');
    // No server runs: the hook starts its capture itself, and starts no server (only a context hook does).
    expect(await runHookProcess(['hook', 'stop'], stop(fixtures[0]!), withServer())).toMatchObject({ code: 0, stdout: '', stderr: '' });
    await eventually(async () => (await sessions()) === count + 1);
    expect(info(home)).toBeNull();

    await runHookProcess(['hook', 'user-prompt-submit'], promptPayload, withServer());
    await eventually(async () => (await status(home)) !== null);
    const answered = ((await status(home)) as { status: { answered: number } }).status.answered;
    expect(await runHookProcess(['hook', 'stop'], stop(fixtures[1]!), withServer())).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await status(home)).toMatchObject({ status: { answered: answered + 1 } });
    // The server started the capture: the turn is indexed and the run counted once.
    await eventually(async () => (await sessions()) === count + 2 && hookRuns(home, 'stop') === stopRuns + 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hookRuns(home, 'stop')).toBe(stopRuns + 2);
  });

  test('who may ask: owner-only files, the token, the home and the process settings it serves', async () => {
    await runHookProcess(['hook', 'user-prompt-submit'], promptPayload, withServer());
    await eventually(() => info(home) !== null);
    await eventually(() => existsSync(join(run(home), 'hook.sock')));
    expect(statSync(run(home)).mode & 0o777).toBe(0o700);
    expect(statSync(join(run(home), 'hook-server.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(run(home), 'hook.sock')).mode & 0o777).toBe(0o600);

    const hook = (token: string, env: Record<string, string>, args = {}): HookServerRequest => ({
      v: 1,
      token,
      build: DIST_BUILD,
      kind: 'hook',
      event: 'user-prompt-submit',
      args,
      env: { PATH: process.env.PATH ?? '', MOON_RESIDENTIAL_TIMEZONE: 'UTC', ...withServer(), ...env },
      input: promptPayload,
    });
    expect(await ask(home, (token) => hook(`${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`, {}))).toEqual({ served: false, reason: 'token' });
    expect(await ask(home, () => hook('', {}))).toEqual({ served: false, reason: 'token' });
    expect(await ask(home, (token) => ({ ...hook(token, {}), build: 'another-build' }))).toEqual({ served: false, reason: 'build' });
    expect(await ask(home, (token) => hook(token, { MOON_HOME: join(root, 'elsewhere') }))).toEqual({ served: false, reason: 'home' });
    expect(await ask(home, (token) => hook(token, {}, { home: join(root, 'elsewhere') }))).toEqual({ served: false, reason: 'home' });
    expect(await ask(home, (token) => hook(token, { TZ: 'Australia/Sydney' }))).toEqual({ served: false, reason: 'process' });
    expect(await ask(home, (token) => ({ ...hook(token, {}), event: 'stop' }))).toEqual({ served: false, reason: 'event' });
    // A capture is taken for stop and session-end alone, for this home, with the token.
    const capture = (token: string, event: string, env: Record<string, string> = {}): HookServerRequest => ({
      v: 1,
      token,
      build: DIST_BUILD,
      kind: 'capture',
      event,
      args: {},
      env: { PATH: process.env.PATH ?? '', ...withServer(), ...env },
      path: join(root, 'nothing.jsonl'),
    });
    expect(await ask(home, (token) => capture(token, 'pre-compact'))).toEqual({ served: false, reason: 'event' });
    expect(await ask(home, (token) => capture(token, 'stop', { MOON_HOME: join(root, 'elsewhere') }))).toEqual({ served: false, reason: 'home' });
    expect(await ask(home, () => capture('', 'stop'))).toEqual({ served: false, reason: 'token' });
    const answer = await ask(home, (token) => hook(token, {}));
    expect(answer).toMatchObject({ served: true, err: [] });
    expect((answer as { out: string[] }).out.join('')).toContain('UserPromptSubmit');
  });

  test('a hook answers in its own process when the server is gone, and the server it starts replaces the stale socket', async () => {
    await runHookProcess(['hook', 'session-start'], startPayload, withServer());
    await eventually(() => info(home) !== null && existsSync(join(run(home), 'hook.sock')));
    const old = info(home)!;
    process.kill(old.pid, 'SIGKILL');
    await eventually(() => !isAlive(old.pid));
    expect(existsSync(join(run(home), 'hook.sock')), 'a killed server leaves its socket').toBe(true);
    const alone = await runHookProcess(['hook', 'session-start'], startPayload, { MOON_HOME: home });
    // The last start was under a minute ago: this hook answers alone and starts none.
    const first = await runHookProcess(['hook', 'session-start'], startPayload, withServer());
    expect(first).toMatchObject({ code: 0, stdout: alone.stdout, stderr: '' });
    expect(info(home)!.pid).toBe(old.pid);
    // A minute later (the start marker aged), the next hook starts a server on the stale socket's place.
    writeFileSync(join(run(home), 'hook-server.started'), '');
    const past = new Date(Date.now() - 120_000);
    const { utimesSync } = await import('node:fs');
    utimesSync(join(run(home), 'hook-server.started'), past, past);
    await runHookProcess(['hook', 'session-start'], startPayload, withServer());
    await eventually(() => info(home) !== null && info(home)!.pid !== old.pid);
    await eventually(async () => (await status(home)) !== null);
    expect(await status(home)).toMatchObject({ status: { pid: info(home)!.pid } });
    expect((await runHookProcess(['hook', 'session-start'], startPayload, withServer())).stdout).toBe(alone.stdout);
  });

  test('a moved home: its old server is never asked to answer for the new place, and nothing outside the home is removed', async () => {
    const temp = makeTempDir('moon-hook-server-moved-');
    const first = join(temp.path, 'first');
    const moved = join(temp.path, 'moved');
    try {
      expect((await spawnMoon(['index', join(REPO, 'examples')], { MOON_HOME: first })).code).toBe(0);
      await runHookProcess(['hook', 'session-start'], startPayload, { ...withServer(), MOON_HOME: first });
      await eventually(() => info(first) !== null && existsSync(join(run(first), 'hook.sock')));
      const old = info(first)!;
      const { renameSync } = await import('node:fs');
      renameSync(first, moved);
      const alone = await runHookProcess(['hook', 'session-start'], startPayload, { MOON_HOME: moved });
      expect(alone.stdout).toContain('additionalContext');
      const asked = await runHookProcess(['hook', 'session-start'], startPayload, { ...withServer(), MOON_HOME: moved });
      expect(asked).toMatchObject({ code: 0, stdout: alone.stdout, stderr: '' });
      // The old server finds its socket gone from where it was made and exits, leaving the moved home's files be.
      await eventually(() => !isAlive(old.pid), 20_000);
      expect(existsSync(moved)).toBe(true);
      expect((await runHookProcess(['hook', 'session-start'], startPayload, { ...withServer(), MOON_HOME: moved })).stdout).toBe(alone.stdout);
    } finally {
      stopServer(moved);
      stopServer(first);
      temp.cleanup();
    }
  });

  test('idle, it exits and takes its files with it', async () => {
    await runHookProcess(['hook', 'session-start'], startPayload, withServer({ MOON_HOOKS_SERVER_IDLE_SECONDS: '1' }));
    await eventually(() => info(home) !== null);
    const pid = info(home)!.pid;
    await eventually(() => !isAlive(pid), 20_000);
    expect(existsSync(join(run(home), 'hook-server.json'))).toBe(false);
    expect(existsSync(join(run(home), 'hook.sock'))).toBe(false);
  });

  test('hooks.server = "off" in moon.toml: no server, every hook in its own process', async () => {
    const temp = makeTempDir('moon-hook-server-off-');
    try {
      const offHome = join(temp.path, 'home');
      expect((await spawnMoon(['index', join(REPO, 'examples')], { MOON_HOME: offHome })).code).toBe(0);
      writeFileSync(join(offHome, 'moon.toml'), '[hooks]\nserver = "off"\n');
      const alone = await runHookProcess(['hook', 'session-start'], startPayload, { MOON_HOME: offHome, MOON_HOOKS_SERVER: undefined });
      expect(alone.stdout).toContain('additionalContext');
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(existsSync(join(offHome, 'run')) ? readdirSync(join(offHome, 'run')) : []).toEqual([]);
    } finally {
      stopServer(join(temp.path, 'home'));
      temp.cleanup();
    }
  });
});
