import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseHookArgv } from '../../src/interfaces/hook/entry.js';
import { estimateTokens } from '../../src/hooks/token-estimate.js';
import { BIN, REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';
import { claudePayload, readAdditionalContext, runHookProcess } from './hook-helpers.js';

/**
 * The hook entry (bin/moon.js → src/interfaces/hook/entry.ts): an agent's hook line never loads the CLI or the composition
 * root, sees a changed configuration at once, and fails open like the CLI did.
 */
let root: string;
let home: string;
let cleanup: () => void;
const SESSION = '7b7b7b7b-1111-4222-8333-444455556666';
const TRACER = join(REPO, 'test', 'hooks', 'fixtures', 'trace-modules.mjs');

beforeAll(async () => {
  const temp = makeTempDir('moon-hook-entry-');
  cleanup = temp.cleanup;
  root = temp.path;
  home = join(root, 'home');
  const sources = join(root, 'sources');
  mkdirSync(sources);
  writeFileSync(
    join(sources, `${SESSION}.jsonl`),
    claudeSession({
      sessionId: SESSION,
      cwd: '/home/dev/loom',
      turns: [
        { role: 'user', at: '2026-02-02T02:00:00Z', text: 'Why does the jacquard loom skip the warp threads at speed?' },
        { role: 'assistant', at: '2026-02-02T02:10:00Z', text: 'We decided to slow the shuttle to 40 picks a minute; the skipping is fixed.' },
      ],
    }),
  );
  const run = await spawnMoon(['index', sources], { MOON_HOME: home });
  expect(run.code, run.stderr).toBe(0);
});
afterAll(() => cleanup());

const start = () => claudePayload.sessionStart({ session_id: 'new-session', transcript_path: join(root, 'new.jsonl'), cwd: '/home/dev/loom', source: 'startup' });

/** A hook run as the agent runs it, with every module the process loads written to a file; those URLs. */
function traceHook(args: string[], stdin: string): Promise<{ code: number; stdout: string; stderr: string; modules: string[] }> {
  const file = join(root, `trace-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(file, '');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TRACER, BIN, ...args], {
      env: { PATH: process.env.PATH, MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'UTC', TRACE_MODULES_FILE: file },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const modules = unbundle(readFileSync(file, 'utf8').split('\n').filter((line) => line !== ''));
      rmSync(file, { force: true });
      resolve({ code: code ?? -1, stdout, stderr, modules });
    });
    child.stdin.end(stdin);
  });
}

/**
 * The compiled modules behind the URLs a process loaded: a chunk of the hook bundle (dist/hook/) stands for the
 * modules scripts/bundle-hook.mjs put in it (dist/hook/modules.json), so the checks below see through the bundle.
 */
function unbundle(urls: string[]): string[] {
  const chunks = JSON.parse(readFileSync(join(REPO, 'dist', 'hook', 'modules.json'), 'utf8')) as Record<string, string[]>;
  return urls.flatMap((url) => {
    const chunk = /\/dist\/hook\/([^/]+\.cjs)$/.exec(url)?.[1];
    if (chunk === undefined) return [url];
    const inside = chunks[chunk];
    if (!inside) throw new Error(`${chunk} is not in dist/hook/modules.json`);
    return [url, ...inside.map((path) => pathToFileURL(join(REPO, path)).href)];
  });
}

/** What a hook must never load: the CLI (commander and its commands), the other doors, the src/index.ts barrel, the composition root. */
function expectNoCli(modules: string[]): void {
  expect(modules.some((url) => url.endsWith('/bin/moon.js'))).toBe(true);
  const forbidden = modules.filter(
    (url) => /\/node_modules\/commander\//.test(url) || (!url.includes('/node_modules/') && /\/dist\/(moon\.js|index\.js|interfaces\/(?!hook\/))/.test(url)),
  );
  expect(forbidden).toEqual([]);
}

describe('the hook entry', () => {
  test('session-start, user-prompt-submit and stop load neither commander, the CLI, src/index.ts nor src/moon.ts', async () => {
    const started = await traceHook(['hook', 'session-start'], start());
    expect(started.stderr).toBe('');
    expect(readAdditionalContext(started.stdout, 'SessionStart')).toContain('jacquard');
    expectNoCli(started.modules);
    // The module list is real: the run did load the hooks plane and the store.
    expect(started.modules.some((url) => url.endsWith('/dist/hooks/session-start.js'))).toBe(true);

    const prompt = JSON.stringify({ session_id: 'new-session', cwd: '/home/dev/loom', hook_event_name: 'UserPromptSubmit', prompt: 'why does the jacquard loom skip warp threads?' });
    expectNoCli((await traceHook(['hook', 'user-prompt-submit'], prompt)).modules);

    const transcript = join(root, 'sources', `${SESSION}.jsonl`);
    const stop = await traceHook(['--home', home, 'hook', 'stop'], claudePayload.stop({ session_id: SESSION, transcript_path: transcript, cwd: '/home/dev/loom' }));
    expect(stop).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expectNoCli(stop.modules);
    // A stop that names its transcript hands it over without loading the index or the configuration's schema.
    expect(stop.modules.filter((url) => /better-sqlite3|\/zod\/|\/dist\/store\//.test(url))).toEqual([]);
  });

  test('--help and other commands are the CLI\'s; the entry reads the global flags a hook line carries', () => {
    expect(parseHookArgv(['hook', 'stop'])).toEqual({ event: 'stop' });
    expect(parseHookArgv(['--home', '/h', 'hook', 'session-start'])).toEqual({ event: 'session-start', home: '/h' });
    expect(parseHookArgv(['--home=/h', '--timezone', 'UTC', '--no-redact', 'hook', 'stop', '--capture', '/t.jsonl', '--count'])).toEqual({
      event: 'stop',
      home: '/h',
      timezone: 'UTC',
      redact: false,
      capture: '/t.jsonl',
      count: true,
    });
    expect(parseHookArgv(['hook', 'stop', 'extra', '--unknown'])).toEqual({ event: 'stop' });
    expect(parseHookArgv(['hook'])).toEqual({ event: '' });
    for (const argv of [['hook', '--help'], ['recall', 'hook'], ['--home'], ['--bogus', 'hook', 'stop'], ['--home', 'hook'], ['-V']]) {
      expect(parseHookArgv(argv), argv.join(' ')).toBeNull();
    }
  });

  test('a changed moon.toml is read by the next hook; a broken one fails open, named', async () => {
    const first = await runHookProcess(['hook', 'session-start'], start(), { MOON_HOME: home });
    expect(readAdditionalContext(first.stdout, 'SessionStart')).toContain('jacquard');
    writeFileSync(join(home, 'moon.toml'), '[hooks]\nsession_start_budget_tokens = 0\n');
    try {
      expect(await runHookProcess(['hook', 'session-start'], start(), { MOON_HOME: home })).toMatchObject({ code: 0, stdout: '', stderr: '' });
      writeFileSync(join(home, 'moon.toml'), '[hooks]\nsession_start_budget_tokens = "many"\n');
      const broken = await runHookProcess(['hook', 'session-start'], start(), { MOON_HOME: home });
      expect(broken).toMatchObject({ code: 0, stdout: '' });
      expect(broken.stderr).toMatch(/^moon hook session-start: .*moon\.toml: hooks\.session_start_budget_tokens: .*\n$/);
      // So is a variable set since.
      writeFileSync(join(home, 'moon.toml'), '');
      const off = await runHookProcess(['hook', 'session-start'], start(), { MOON_HOME: home, MOON_HOOKS_SESSION_START_BUDGET_TOKENS: '0' });
      expect(off).toMatchObject({ code: 0, stdout: '', stderr: '' });
      expect(readAdditionalContext((await runHookProcess(['hook', 'session-start'], start(), { MOON_HOME: home })).stdout, 'SessionStart')).toContain('jacquard');
    } finally {
      rmSync(join(home, 'moon.toml'), { force: true });
    }
  });

  test('hooks run with different variables each keep their validated configuration: alternating them loads neither again', async () => {
    const cache = join(home, 'state', 'hook-config.json');
    const withRecall = { MOON_HOME: home, MOON_HOOKS_USER_PROMPT_RECALL: 'true' };
    const plain = { MOON_HOME: home };
    const prompt = claudePayload.userPromptSubmit({ session_id: 'new-session', transcript_path: join(root, 'new.jsonl'), cwd: '/home/dev/loom', prompt: 'why does the loom skip warp threads' });
    expect(readAdditionalContext((await runHookProcess(['hook', 'user-prompt-submit'], prompt, withRecall)).stdout, 'UserPromptSubmit')).toContain('jacquard');
    expect((await runHookProcess(['hook', 'user-prompt-submit'], prompt, plain)).stdout).toBe('');
    const written = statSync(cache);
    // Both, beside what earlier tests left (it keeps the last four).
    expect(JSON.parse(readFileSync(cache, 'utf8')).entries.length).toBeGreaterThanOrEqual(2);
    for (const env of [withRecall, plain, withRecall]) await runHookProcess(['hook', 'user-prompt-submit'], prompt, env);
    // The file is replaced (a new inode) only when a configuration is loaded in full.
    expect(statSync(cache).ino).toBe(written.ino);
    expect(statSync(cache).mode & 0o777).toBe(0o600);
  });

  test('bin/moon.js without a build says so at once on stderr, not with a stack', async () => {
    const clone = join(root, 'clone');
    mkdirSync(join(clone, 'bin'), { recursive: true });
    copyFileSync(BIN, join(clone, 'bin', 'moon.js'));
    for (const args of [['--help'], ['hook', 'stop']]) {
      const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [join(clone, 'bin', 'moon.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => (stdout += chunk));
        child.stderr.on('data', (chunk) => (stderr += chunk));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(`moon is not built: run \`npm run build\` in ${clone}/\n`);
    }
  });
});

describe('the hooks\' token estimate', () => {
  test('is never under the tokenizer on the example transcripts\' messages and on a handover, and not far over', async () => {
    const texts: string[] = [];
    for (const folder of ['claude-code', 'codex']) {
      const dir = join(REPO, 'examples', folder);
      for (const line of readFileSync(join(dir, (await import('node:fs')).readdirSync(dir, { recursive: true }).map(String).find((name) => name.endsWith('.jsonl'))!), 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        const walk = (value: unknown): void => {
          if (typeof value === 'string' && value.length > 0) texts.push(value);
          else if (Array.isArray(value)) value.forEach(walk);
          else if (value !== null && typeof value === 'object') Object.values(value).forEach(walk);
        };
        walk(JSON.parse(line));
      }
    }
    const handover = readAdditionalContext((await runHookProcess(['hook', 'session-start'], start(), { MOON_HOME: home })).stdout, 'SessionStart');
    texts.push(handover);
    expect(texts.length).toBeGreaterThan(50);
    const exact = (text: string): number => countTokens(text, { allowedSpecial: new Set(), disallowedSpecial: new Set() });
    const under = texts.filter((text) => estimateTokens(text) < exact(text));
    expect(under).toEqual([]);
    const total = texts.reduce((sum, text) => sum + exact(text), 0);
    const estimated = texts.reduce((sum, text) => sum + estimateTokens(text), 0);
    expect(estimated / total).toBeLessThan(2);
    expect(estimateTokens(handover) / exact(handover)).toBeLessThan(2);
  });
});
