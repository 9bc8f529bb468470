import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { REPO, makeTempDir, runMoon, spawnMoon } from '../helpers/cli.js';
import { claudeSession, type TurnSpec } from '../helpers/transcripts.js';

let root: string;
let home: string;
let cleanup: () => void;

beforeEach(() => {
  const temp = makeTempDir('moon-corrupt-');
  root = temp.path;
  cleanup = temp.cleanup;
  home = join(root, 'home');
});
afterEach(() => cleanup());

const EXAMPLES = join(REPO, 'examples');

/** 4 KB of random bytes written into the middle of the file, page-aligned, as a failing disk would. */
/** Overwrite the first page of the entries table with noise: every run that reads or writes entries meets it. */
async function damageMiddle(path: string): Promise<void> {
  const { default: Database } = await import('better-sqlite3');
  const raw = new Database(path, { readonly: true });
  const root = raw.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'entries'").pluck().get() as number;
  const pageSize = raw.pragma('page_size', { simple: true }) as number;
  raw.close();
  expect(statSync(path).size).toBeGreaterThan(root * pageSize);
  const offset = (root - 1) * pageSize;
  const noise = Buffer.alloc(pageSize);
  let seed = 12345;
  for (let i = 0; i < noise.length; i += 1) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    noise[i] = seed & 0xff;
  }
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, noise, 0, noise.length, offset);
  } finally {
    closeSync(fd);
  }
}

async function sessionsJson(): Promise<unknown> {
  const run = await runMoon(['sessions', '--home', home, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

describe('a damaged index is detected, and rebuilt from the raw archive', () => {
  test('status and verify fail naming the file and `moon rebuild`; rebuild restores the same sessions', async () => {
    const indexed = await runMoon(['index', EXAMPLES, '--home', home]);
    expect(indexed.code, indexed.stderr).toBe(0);
    const before = await sessionsJson();
    const recallBefore = JSON.parse((await runMoon(['recall', 'deploy', '--home', home, '--json'])).stdout) as { matches: unknown[] };
    const db = join(home, 'moon.db');
    await damageMiddle(db);

    const status = await runMoon(['status', '--home', home]);
    expect(status.code).toBe(1);
    expect(status.stderr).toContain(db);
    expect(status.stderr).toContain('moon rebuild');
    expect(status.stderr).not.toMatch(/\n\s+at /);

    const verify = await runMoon(['verify', '--home', home, '--json']);
    expect(verify.code).toBe(1);
    const found = JSON.parse(verify.stdout) as { ok: boolean; problems: { path: string; repair: string }[] };
    expect(found.ok).toBe(false);
    expect(found.problems[0]!.path).toBe(db);
    expect(found.problems[0]!.repair).toContain('moon rebuild');

    // Every file re-read: the damaged page is met, and the run stops with the report and a clear error.
    const forced = await runMoon(['index', EXAMPLES, '--force', '--home', home, '--json']);
    expect(forced.code).toBe(1);
    const report = JSON.parse(forced.stdout) as { fatal: { code: string; message: string; hint: string } };
    expect(report.fatal.code).toBe('corrupt');
    expect(report.fatal.message).toContain(db);
    expect(report.fatal.hint).toContain('moon rebuild');

    const rebuilt = await runMoon(['rebuild', '--home', home]);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toContain('4 sessions');
    expect((await runMoon(['verify', '--home', home])).code).toBe(0);
    expect(await sessionsJson()).toEqual(before);
    const recallAfter = JSON.parse((await runMoon(['recall', 'deploy', '--home', home, '--json'])).stdout) as { matches: unknown[] };
    expect(recallAfter.matches.length).toBe(recallBefore.matches.length);

    // The original transcripts take their sessions back from the raw copies: nothing is duplicated.
    const again = await runMoon(['index', EXAMPLES, '--home', home, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(await sessionsJson()).toEqual(before);
    const status2 = JSON.parse((await runMoon(['status', '--home', home, '--json'])).stdout) as { files: number; sessions: number };
    expect(status2).toMatchObject({ files: 4, sessions: 4 });
    const third = JSON.parse((await runMoon(['index', EXAMPLES, '--home', home, '--json'])).stdout) as { unchanged: number };
    expect(third.unchanged).toBe(4);
  });

  test('two files sharing a session id keep their ids through a rebuild and a re-index', async () => {
    const corpus = join(root, 'corpus');
    mkdirSync(corpus);
    const turns: TurnSpec[] = [
      { role: 'user', text: 'copy of a session with the same id', at: '2026-01-05T10:00:00Z' },
      { role: 'assistant', text: 'noted, both files are kept apart', at: '2026-01-05T10:01:00Z' },
    ];
    writeFileSync(join(corpus, 'a.jsonl'), claudeSession({ sessionId: 'shared', turns }));
    // Another transcript reusing the id (its records are its own): kept beside the first under a suffixed id.
    const otherTurns = turns.map((turn, index) => ({ ...turn, id: `other-${index + 1}` }));
    writeFileSync(join(corpus, 'b.jsonl'), claudeSession({ sessionId: 'shared', cwd: '/elsewhere', turns: otherTurns }));
    expect((await runMoon(['index', corpus, '--home', home])).code).toBe(0);
    const before = await sessionsJson();
    const ids = (before as { sessions: { session_id: string }[] }).sessions.map((session) => session.session_id).sort();
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe('shared');
    expect(ids[1]).toMatch(/^shared~[0-9a-f]{8}$/);

    expect((await runMoon(['rebuild', '--home', home])).code).toBe(0);
    expect(await sessionsJson()).toEqual(before);
    expect((await runMoon(['index', corpus, '--home', home])).code).toBe(0);
    expect(await sessionsJson()).toEqual(before);
  });

  test('a file that is not a database at all is a clear error in every command, never a stack trace', async () => {
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'moon.db'), 'this is not a database, just text that happens to sit here\n'.repeat(100));
    for (const args of [['status'], ['recall', 'deploy'], ['sessions'], ['index', EXAMPLES]]) {
      const run = await spawnMoon([...args, '--home', home]);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr, args.join(' ')).toContain('moon rebuild');
      expect(run.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
  });

  test('rebuild without a raw archive says so (exit 2) and leaves the index alone', async () => {
    const run = await runMoon(['rebuild', '--home', home]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no raw archive');
  });

  test('two first runs on a fresh home both succeed (schema created once, under the write lock)', async () => {
    const runs = await Promise.all([spawnMoon(['index', EXAMPLES, '--json'], { MOON_HOME: home }), spawnMoon(['index', EXAMPLES, '--json'], { MOON_HOME: home })]);
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toContain('already exists');
    }
    const version = execFileSync(process.execPath, ['-e', `const D=require('better-sqlite3');console.log(new D(process.argv[1]).pragma('user_version',{simple:true}))`, join(home, 'moon.db')], { cwd: REPO }).toString().trim();
    expect(Number(version)).toBeGreaterThanOrEqual(7);
    expect((await runMoon(['verify', '--home', home])).code).toBe(0);
  });
});
