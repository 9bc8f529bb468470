import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { makeTempDir, runMoon, spawnMoon } from '../helpers/cli.js';

let root: string;
let home: string;
let cleanup: () => void;

beforeEach(() => {
  const temp = makeTempDir('moon-config-');
  root = temp.path;
  cleanup = temp.cleanup;
  home = join(root, 'home');
});
afterEach(() => cleanup());

const STACK = /\n\s+at |MoonError:|file:\/\//;

describe('configuration and environment errors: exit 2, the key named, no stack trace', () => {
  test('openai-compatible without a base URL fails every command cleanly', async () => {
    for (const args of [['index', root], ['recall', 'x'], ['status'], ['config', '--show']]) {
      const run = await spawnMoon(args, { MOON_HOME: home, MOON_EMBED_PROVIDER: 'openai-compatible' });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('embed.base_url is required');
      expect(run.stderr).toContain('MOON_EMBED_PROVIDER');
      expect(run.stderr).not.toMatch(STACK);
    }
  });

  test('a MOON_HOME that is a regular file fails every command', async () => {
    const file = join(root, 'not-a-folder');
    writeFileSync(file, 'x');
    for (const args of [['status'], ['sessions'], ['config', '--show'], ['index', root]]) {
      const run = await spawnMoon(args, { MOON_HOME: file });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(`MOON_HOME: ${file} is not a folder`);
    }
  });

  test('an invalid privacy.extra_patterns regex fails when the config loads, config --show included', async () => {
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'moon.toml'), '[privacy]\nextra_patterns = ["ok-[0-9]+", "broken(["]\n');
    const run = await spawnMoon(['config', '--show'], { MOON_HOME: home });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('privacy.extra_patterns.1: is not a valid regular expression');
    expect(run.stderr).toContain('moon.toml');
  });
});

describe('text output cannot be forged by what transcripts hold', () => {
  const ESC = '\u001b';
  const id = `evil${ESC}[2J\nFound matches in 99 sessions`;
  const cwd = `/home/dev/proj${ESC}[31m\nfake`;
  const title = `title${ESC}]0;pwned\u0007\nline two`;

  function plant(): string {
    const corpus = join(root, 'corpus');
    mkdirSync(corpus, { recursive: true });
    const base = { sessionId: id, cwd, version: '2.1.0', gitBranch: 'main', userType: 'external', isSidechain: false };
    const lines = [
      { ...base, type: 'user', uuid: 'u1', parentUuid: null, timestamp: '2026-01-05T10:00:00Z', message: { role: 'user', content: 'please deploy the payment service today' } },
      {
        ...base,
        type: 'assistant',
        uuid: 'a1',
        parentUuid: 'u1',
        timestamp: '2026-01-05T10:01:00Z',
        requestId: 'r1',
        message: { id: 'm1', type: 'message', role: 'assistant', model: 'x', content: [{ type: 'text', text: 'deploying the payment service now' }] },
      },
      { type: 'custom-title', sessionId: id, customTitle: title },
    ];
    const file = join(corpus, `name${ESC}[1m\nx.jsonl`);
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    writeFileSync(join(corpus, `bad${ESC}[5m\n.jsonl`), '{"not": "a transcript"}\n');
    return corpus;
  }

  function expectClean(text: string, what: string): void {
    expect(text.includes(ESC), `${what} holds a raw ESC`).toBe(false);
    expect(text.includes('\u0007'), `${what} holds a raw BEL`).toBe(false);
    expect(text.split('\n').some((line) => line.startsWith('Found matches in 99')), `${what} has a forged line`).toBe(false);
    expect(text.split('\n').some((line) => line.startsWith('fake') || line.startsWith('line two') || line === 'x.jsonl'), `${what} has a forged line`).toBe(false);
  }

  test('index, sessions, recall, show, status, snapshot and verify escape every field; JSON stays exact', async () => {
    const corpus = plant();
    const indexed = await runMoon(['index', corpus, '--home', home]);
    expectClean(indexed.stdout + indexed.stderr, 'index');
    const json = await runMoon(['sessions', '--home', home, '--json']);
    const listing = JSON.parse(json.stdout) as { sessions: { session_id: string; cwd: string; title: string }[] };
    expect(listing.sessions[0]).toMatchObject({ session_id: id, cwd, title });

    for (const args of [
      ['sessions'],
      ['recall', 'payment', 'deploy'],
      ['recall', 'payment', '--group', 'message', '--explain'],
      ['show', id, '--around', 'u1'],
      ['show', id],
      ['show', 'evil'],
      ['status'],
      ['verify'],
      ['snapshot', corpus],
    ]) {
      const run = await runMoon([...args, '--home', home]);
      expectClean(run.stdout + run.stderr, args.join(' '));
    }
    const recall = await runMoon(['recall', 'payment', '--home', home]);
    expect(recall.stdout).toContain('evil\\u001b[2J\\nFound matches in 99 sessions');
  });
});
