import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { makeTempDir, runMoon, spawnMoon } from '../helpers/cli.js';
import { claudeSession, type TurnSpec } from '../helpers/transcripts.js';

let root: string;
let home: string;
let corpus: string;
let cleanup: () => void;

beforeEach(() => {
  const temp = makeTempDir('moon-reliable-');
  root = temp.path;
  cleanup = temp.cleanup;
  home = join(root, 'home');
  corpus = join(root, 'corpus');
  mkdirSync(corpus);
});
afterEach(() => cleanup());

function turns(n: number, tag: string): TurnSpec[] {
  return Array.from({ length: n }, (_, i) => ({
    role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    text: `${tag} message number ${i + 1} about the payment service`,
    at: `2026-01-05T10:${String(i).padStart(2, '0')}:00Z`,
  }));
}

function writeGood(name = 'good.jsonl', id = 'good'): string {
  const path = join(corpus, name);
  writeFileSync(path, claudeSession({ sessionId: id, turns: turns(4, id) }));
  return path;
}

interface Report {
  files: number;
  indexed: number;
  failed: number;
  failed_before: number;
  entries: number;
  projections: number;
  projections_failed: number;
  warnings: string[];
  errors: { path: string; reason: string }[];
  known_failures: { path: string }[];
  sessions: string[];
  fatal: { code: string; message: string } | null;
}

async function index(...args: string[]): Promise<{ code: number; report: Report; stderr: string }> {
  const run = await runMoon(['index', ...args, '--home', home, '--json']);
  return { code: run.code, report: JSON.parse(run.stdout) as Report, stderr: run.stderr };
}

describe('one bad thing loses only itself', () => {
  test('a projection that cannot be written is reported, the run goes on, and the next run is not stuck on it', async () => {
    writeGood('a.jsonl', 'alpha');
    writeGood('b.jsonl', 'beta');
    // A folder where the projection file should go: the commit succeeds, the projection's rename cannot.
    mkdirSync(join(home, 'archives', 'mlib', 'alpha.md', 'blocker'), { recursive: true });
    const first = await index(corpus);
    expect(first.code).toBe(1);
    expect(first.report).toMatchObject({ indexed: 2, projections: 1, projections_failed: 1, fatal: null });
    expect(first.report.errors[0]!.path).toBe(join(home, 'archives', 'mlib', 'alpha.md'));
    expect(existsSync(join(home, 'archives', 'mlib', 'beta.md'))).toBe(true);

    // A new file arrives while the problem persists: it is indexed and projected all the same.
    writeGood('c.jsonl', 'gamma');
    const second = await index(corpus);
    expect(second.report).toMatchObject({ indexed: 1, projections: 1, projections_failed: 1 });
    expect(existsSync(join(home, 'archives', 'mlib', 'gamma.md'))).toBe(true);

    rmSync(join(home, 'archives', 'mlib', 'alpha.md'), { recursive: true });
    const third = await index(corpus);
    expect(third.code).toBe(0);
    expect(third.report).toMatchObject({ projections: 1, projections_failed: 0, errors: [] });
    expect(readFileSync(join(home, 'archives', 'mlib', 'alpha.md'), 'utf8')).toContain('alpha');
  });

  test('a file that failed is remembered and skipped until it changes; a fixed file is indexed and forgotten', async () => {
    writeGood();
    const bad = join(corpus, 'bad.jsonl');
    writeFileSync(bad, '{"hello": "world"}\n');
    const first = await index(corpus);
    expect(first.code).toBe(1);
    expect(first.report).toMatchObject({ indexed: 1, failed: 1 });

    const second = await index(corpus);
    expect(second.code).toBe(0);
    expect(second.report).toMatchObject({ failed: 0, failed_before: 1 });
    expect(second.report.known_failures.map((failure) => failure.path)).toEqual([bad]);
    const status = await runMoon(['status', '--home', home]);
    expect(status.stdout).toContain('failed, skipped until changed');
    expect(status.stdout).toContain('bad.jsonl: not a Claude Code');

    writeFileSync(bad, claudeSession({ sessionId: 'fixed', turns: turns(2, 'fixed') }));
    utimesSync(bad, new Date(), new Date(Date.now() + 5000));
    const third = await index(corpus);
    expect(third.code).toBe(0);
    expect(third.report).toMatchObject({ indexed: 1, failed: 0, failed_before: 0 });
    const after = JSON.parse((await runMoon(['status', '--home', home, '--json'])).stdout) as { failures: unknown[] };
    expect(after.failures).toEqual([]);
  });

  test('a first line over 4 MB neither hides the format nor the lines after it', async () => {
    const good = writeGood();
    const lines = claudeSession({ sessionId: 'big', turns: turns(4, 'big') }).trim().split('\n');
    const huge = JSON.stringify({ type: 'file-history-snapshot', messageId: 'm', snapshot: { blob: 'x'.repeat(5 * 1024 * 1024) } });
    writeFileSync(join(corpus, 'big.jsonl'), `${[huge, ...lines].join('\n')}\n`);
    const run = await index(corpus);
    expect(run.code, run.stderr).toBe(0);
    expect(run.report).toMatchObject({ indexed: 2, failed: 0 });
    expect(run.report.sessions).toEqual(['big', 'good']);
    expect(run.report.entries).toBe(8);
    expect(good).toBeTruthy();
  });

  test('NUL bytes inside one line skip that line with file:line, not the file; a mostly binary file is rejected', async () => {
    writeGood();
    const lines = claudeSession({ sessionId: 'nul', turns: turns(4, 'nul') }).trim().split('\n');
    const damaged = Buffer.concat([
      Buffer.from(`${lines[0]}\n${lines[1]}\n`),
      Buffer.from(`{"type":"user","x":"\u0000\u0000\u0000"}\n`),
      Buffer.alloc(4096, 0),
      Buffer.from(`\n${lines[2]}\n${lines[3]}\n`),
    ]);
    writeFileSync(join(corpus, 'nul.jsonl'), damaged);
    const blob = Buffer.alloc(32 * 1024);
    for (let i = 0; i < blob.length; i += 1) blob[i] = (i * 131 + 7) % 256;
    writeFileSync(join(corpus, 'blob.jsonl'), Buffer.concat([Buffer.from(`${lines[0]}\n`), blob]));
    const run = await index(corpus);
    expect(run.report).toMatchObject({ indexed: 2, failed: 1 });
    expect(run.report.sessions).toEqual(['good', 'nul']);
    expect(run.report.warnings).toContain(`${join(corpus, 'nul.jsonl')}:3: line holds NUL bytes (binary data, e.g. left by a crash); skipped`);
    expect(run.report.warnings.some((warning) => warning.startsWith(`${join(corpus, 'nul.jsonl')}:4:`))).toBe(true);
    expect(run.report.errors.map((error) => error.reason)).toEqual([`${join(corpus, 'blob.jsonl')}: binary file, not a JSONL transcript`]);
    const nulEntries = JSON.parse((await runMoon(['sessions', '--home', home, '--json'])).stdout) as { sessions: { session_id: string; message_count: number }[] };
    expect(nulEntries.sessions.find((session) => session.session_id === 'nul')?.message_count).toBe(4);
  });

  test('a FIFO given as PATH or met in a folder is an error at once, never opened', async () => {
    const good = writeGood();
    const fifo = join(corpus, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    // The child process would hang forever if anything opened the FIFO for reading (no writer ever comes).
    const folder = await spawnMoon(['index', corpus, '--json'], { MOON_HOME: home });
    expect(folder.code).toBe(1);
    const report = JSON.parse(folder.stdout) as Report;
    expect(report).toMatchObject({ files: 2, indexed: 1, failed: 1 });
    expect(report.errors[0]!.reason).toBe(`${fifo}: a FIFO (named pipe), not a transcript file; skipped`);
    const named = await spawnMoon(['index', fifo, good, '--json', '--force'], { MOON_HOME: home });
    expect(named.code).toBe(1);
    expect(JSON.parse(named.stdout)).toMatchObject({ files: 2, indexed: 1, failed: 1 });
  });

  test('a file name that is not valid UTF-8 is read (through its bytes) and shown escaped', async () => {
    writeGood();
    const name = Buffer.concat([Buffer.from(`${corpus}/odd-`), Buffer.from([0xff, 0xfe]), Buffer.from('.jsonl')]);
    writeFileSync(name, claudeSession({ sessionId: 'odd', turns: turns(2, 'odd') }));
    const run = await index(corpus);
    expect(run.code, run.stderr).toBe(0);
    expect(run.report).toMatchObject({ indexed: 2, failed: 0 });
    expect(run.report.sessions).toEqual(['good', 'odd']);
    const again = await index(corpus);
    expect(again.report).toMatchObject({ indexed: 0, failed: 0 });
  });

  test('a symlink loop in discovery is reported and not followed forever', async () => {
    writeGood();
    mkdirSync(join(corpus, 'inner'));
    symlinkSync(corpus, join(corpus, 'inner', 'back'));
    symlinkSync(join(corpus, 'self.jsonl'), join(corpus, 'self.jsonl'));
    const run = await index(corpus);
    expect(run.report).toMatchObject({ indexed: 1 });
    expect(run.report.warnings).toContain(`${join(corpus, 'inner', 'back')}: symlink to a folder already searched (a loop?); not followed again`);
    expect(run.report.warnings).toContain(`${join(corpus, 'self.jsonl')}: symlink loop; not followed`);
  });

  test('a full disk stops the run with a JSON report naming the path; the next run converges', async () => {
    writeGood();
    await index(corpus);
    writeGood('second.jsonl', 'second');
    // The raw copy is written to `<path>.tmp-<pid>-<thread>` (the main thread: 0): pointed at /dev/full, the kernel answers ENOSPC for real.
    const rawDir = join(home, 'archives', 'raw', 'claude-code');
    const target = join(rawDir, 'second.jsonl');
    symlinkSync('/dev/full', `${target}.tmp-${process.pid}-0`);
    const full = await index(corpus);
    expect(full.code).toBe(1);
    expect(full.report.fatal?.code).toBe('io');
    expect(full.report.fatal?.message).toBe(`cannot write ${target}: no space left on the device (ENOSPC)`);
    expect(full.stderr).toContain(target);
    expect(existsSync(`${target}.tmp-${process.pid}-0`)).toBe(false);

    const next = await index(corpus);
    expect(next.code, next.stderr).toBe(0);
    expect(next.report).toMatchObject({ indexed: 1, fatal: null });
    const verify = await runMoon(['verify', '--home', home]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });

  test('an unreadable file is retried next run (its permission may change without its content changing)', async () => {
    if (process.getuid?.() === 0) return; // root reads anything
    writeGood();
    const locked = writeGood('locked.jsonl', 'locked');
    chmodSync(locked, 0);
    const first = await index(corpus);
    expect(first.report).toMatchObject({ indexed: 1, failed: 1 });
    chmodSync(locked, 0o600);
    const second = await index(corpus);
    expect(second.report).toMatchObject({ indexed: 1, failed: 0 });
  });
});
