import { copyFileSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { UsageLine } from '../../src/usage/list-usage.js';
import type { Wire } from '../../src/records/wire.js';
import { REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';

const FIXTURES = join(REPO, 'test', 'fixtures');
const USAGE = join(REPO, 'test', 'usage', 'fixtures');
const FAKE_NOW = '2026-05-01T12:00:00Z';
const FAKE_MS = Date.parse(FAKE_NOW);

let home: string;
let roots: string;
let elsewhere: string;
let cleanup: () => void;
beforeAll(() => {
  const temp = makeTempDir('moon-usage-cli-');
  cleanup = temp.cleanup;
  home = join(temp.path, 'home');
  roots = join(temp.path, 'agents');
  elsewhere = join(temp.path, 'elsewhere');
  mkdirSync(elsewhere);
  mkdirSync(join(roots, 'recent'), { recursive: true });
  mkdirSync(join(roots, 'old'), { recursive: true });
  const recent = join(roots, 'recent', 'spawn.jsonl');
  const old = join(roots, 'old', 'short.jsonl');
  copyFileSync(join(USAGE, 'synthetic-spawn-agent-subagent.jsonl'), recent);
  copyFileSync(join(USAGE, 'real-redacted-short-dangling-call-019c8a70.jsonl'), old);
  // Modified an hour before the fake now, and three days before it.
  utimesSync(recent, new Date(FAKE_MS - 3600_000), new Date(FAKE_MS - 3600_000));
  utimesSync(old, new Date(FAKE_MS - 3 * 86_400_000), new Date(FAKE_MS - 3 * 86_400_000));
});
afterAll(() => cleanup());

const moon = (args: string[], env: Record<string, string> = {}) =>
  spawnMoon(['usage', ...args], { MOON_HOME: home, MOON_SOURCES: roots, MOON_FAKE_NOW: FAKE_NOW, ...env });

describe('moon usage', () => {
  test('named transcripts: one snapshot each with its level, as JSON', async () => {
    const run = await moon([join(FIXTURES, 'pi', 'real-legacy-v1-with-compaction.jsonl'), join(FIXTURES, 'codex', 'real-redacted-compacted-long-019c8a59.jsonl'), '--json']);
    expect(run.code, run.stderr).toBe(0);
    const lines = JSON.parse(run.stdout) as Wire<UsageLine>[];
    expect(lines.map((line) => [line.source, line.session_id, line.level])).toEqual([
      ['codex', '019c8a59-e9dd-71f0-9ae3-4079fe9726a9', 'ok'],
      ['openclaw', 'ffae836b-9420-4060-ac13-7745215f90ff', 'compaction'],
    ]);
    expect(lines[0]!.snapshot).toEqual({
      session_id: '019c8a59-e9dd-71f0-9ae3-4079fe9726a9',
      used_tokens: 162_366,
      max_tokens: 258_400,
      usage_ratio: 162_366 / 258_400,
      captured_at_epoch_secs: Math.floor(Date.parse('2026-02-24T12:09:44.233Z') / 1000),
      provider: 'openai',
      model: 'gpt-5.3-codex',
    });
  });

  test('the thresholds are context.compaction_start_ratio and context.compaction_emergency_ratio', async () => {
    const run = await moon([join(FIXTURES, 'pi', 'real-legacy-v1-with-compaction.jsonl'), '--json'], { MOON_COMPACTION_EMERGENCY_RATIO: '0.83' });
    expect((JSON.parse(run.stdout) as Wire<UsageLine>[])[0]!.level).toBe('emergency');
  });

  test('without PATH: transcripts under the source roots modified in the last 24 hours (by the CLI clock)', async () => {
    const run = await moon([]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toBe(`spawn-test-uuid | codex | 5,200 / 272,000 tokens (1.9%) | ok | gpt-5.4 | ${join(roots, 'recent', 'spawn.jsonl')}`);
    expect(lines.at(-1)).toBe('1 session');
    expect(run.stdout).not.toContain('short.jsonl');
    // Four days later nothing is recent.
    const later = await moon([], { MOON_FAKE_NOW: String(FAKE_MS + 4 * 86_400_000) });
    expect(later.stdout.trim()).toBe('No transcripts modified in the last 24 hours.');
  });

  test('a transcript without usage is listed as such; a file that is no transcript is an error on stderr', async () => {
    const junk = join(elsewhere, 'junk.jsonl');
    writeFileSync(junk, '{"hello":"world"}\n');
    const mixed = await moon([join(FIXTURES, 'codex', 'synthetic-malformed-trailing-line.jsonl'), junk]);
    expect(mixed.code).toBe(1);
    expect(mixed.stdout).toContain('66666666-6666-4666-8666-666666666666 | codex | no usage recorded | - | - |');
    expect(mixed.stderr).toContain(`error: ${junk}: not a Claude Code, Codex, OpenClaw or Puffin transcript`);
    const only = await moon([junk]);
    expect(only.code).toBe(2);
  });

  test('a bad MOON_FAKE_NOW is a configuration error naming it', async () => {
    const run = await moon([], { MOON_FAKE_NOW: 'yesterday-ish' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('MOON_FAKE_NOW');
  });
});
