import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type CliRun, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { writeShopRepo } from './repo.js';

/** `moon plan …` runs `bd` in the repository (a stand-in `bd` on PATH records its calls); failures never fail moon. */
let temp: { path: string; cleanup: () => void };
let repo: string;
let bin: string;
let failing: string;

function moon(args: string[], path: string): Promise<CliRun> {
  return spawnMoon(args, { PATH: path, MOON_HOME: join(temp.path, 'home') }, { cwd: join(repo, 'docs') });
}

beforeAll(() => {
  temp = makeTempDir('moon-plan-');
  repo = join(temp.path, 'shop');
  mkdirSync(repo);
  writeShopRepo(repo);
  bin = join(temp.path, 'bin');
  failing = join(temp.path, 'failing-bin');
  mkdirSync(bin);
  mkdirSync(failing);
  writeFileSync(join(bin, 'bd'), `#!/bin/sh\nprintf '%s|' "$PWD" "$BEADS_NO_DAEMON" "$@" >> ${JSON.stringify(join(temp.path, 'calls.log'))}\necho >> ${JSON.stringify(join(temp.path, 'calls.log'))}\n`);
  writeFileSync(join(failing, 'bd'), '#!/bin/sh\necho "Error: issue not found" >&2\nexit 1\n');
  chmodSync(join(bin, 'bd'), 0o755);
  chmodSync(join(failing, 'bd'), 0o755);
});

afterAll(() => temp.cleanup());

describe('moon plan (bd writeback)', () => {
  test('claim, close and follow-up run bd in the repository root', async () => {
    const path = `${bin}:${process.env.PATH}`;
    for (const args of [
      ['plan', 'claim', 'shop-c3', '--session', 's-1', '--commit', 'abc123'],
      ['plan', 'close', 'shop-c3', '--reason', 'deployed'],
      ['plan', 'follow-up', 'shop-c3', 'Rotate the webhook secret', '--json'],
    ]) {
      const run = await moon(args, path);
      expect(run.code, run.stderr).toBe(0);
    }
    expect(readFileSync(join(temp.path, 'calls.log'), 'utf8').trim().split('\n')).toEqual([
      `${repo}|1|update|shop-c3|--status|in_progress|--notes|claimed by moon run session s-1, commits abc123|`,
      `${repo}|1|close|shop-c3|--reason|deployed|`,
      `${repo}|1|create|Rotate the webhook secret|--deps|discovered-from:shop-c3|`,
    ]);
  });

  test('a failing or missing bd is reported, and moon still exits 0', async () => {
    const failed = await moon(['plan', 'close', 'shop-zz', '--reason', 'x', '--json'], `${failing}:${process.env.PATH}`);
    expect(failed.code).toBe(0);
    expect(JSON.parse(failed.stdout)).toEqual({ ok: false, detail: 'bd close shop-zz --reason x → exit 1: Error: issue not found' });
    expect(failed.stderr).toContain('beads writeback failed');
    const missing = await moon(['plan', 'claim', 'shop-c3', '--session', 's-1'], '/nonexistent');
    expect(missing.code).toBe(0);
    expect(missing.stdout).toMatch(/^not done: bd update shop-c3/);
  });
});
