import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { BIN, REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

/**
 * Ingest workers (src/ingest/pool.ts) run only from the compiled CLI, so these tests drive the built one: the
 * same index and the same projections with and without workers; a worker that dies fails only its file; a
 * signal ends the run and its workers.
 */
let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ path: root, cleanup } = makeTempDir('moon-workers-'));
});
afterEach(() => cleanup());

const CORPUS = [join(REPO, 'examples'), join(REPO, 'test', 'fixtures')];

function readProjections(home: string): Record<string, string> {
  const dir = join(home, 'archives', 'mlib');
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
}

describe('ingest workers', () => {
  test('index, recall and projections are the same with workers as without', async () => {
    const corpus = join(root, 'corpus');
    for (const [index, dir] of CORPUS.entries()) cpSync(dir, join(corpus, String(index)), { recursive: true });
    const homes = { none: join(root, 'none'), two: join(root, 'two') };
    const none = await spawnMoon(['index', corpus, '--json'], { MOON_HOME: homes.none, MOON_INDEX_WORKERS: '0' });
    const two = await spawnMoon(['index', corpus, '--json'], { MOON_HOME: homes.two, MOON_INDEX_WORKERS: '2' });
    expect(none.code, none.stderr).toBe(0);
    expect(two.code, two.stderr).toBe(0);
    const counts = (run: { stdout: string }) => {
      const { indexed, excluded, failed, entries, filtered, projections, warnings, errors } = JSON.parse(run.stdout) as Record<string, unknown>;
      return { indexed, excluded, failed, entries, filtered, projections, warnings, errors };
    };
    expect(counts(two)).toEqual(counts(none));
    expect((JSON.parse(two.stdout) as { indexed: number }).indexed).toBeGreaterThan(10);
    // Projections name their own home (archive paths): compare them with that part made equal.
    const strip = (projections: Record<string, string>, home: string) =>
      Object.fromEntries(Object.entries(projections).map(([name, text]) => [name, text.split(home).join('<home>')]));
    expect(strip(readProjections(homes.two), homes.two)).toEqual(strip(readProjections(homes.none), homes.none));
    for (const query of ['deploy', 'setSystemTime', 'what happened at 05:39 AEDT', 'wrangl']) {
      const ask = (home: string) => spawnMoon(['recall', query, '--json', '--now', '2026-03-01T00:00:00Z'], { MOON_HOME: home });
      const [a, b] = [await ask(homes.none), await ask(homes.two)];
      const ids = (run: { stdout: string }) =>
        (JSON.parse(run.stdout) as { matches: { score: number; metadata: { session_id: string; message_ids: string[] } }[] }).matches.map((match) => ({
          session: match.metadata.session_id,
          messages: match.metadata.message_ids,
          score: match.score,
        }));
      expect(ids(b), query).toEqual(ids(a));
    }
  });

  test('a worker that runs out of memory fails its file alone; the next job gets a fresh worker', async () => {
    const { IngestPool } = (await import(join(REPO, 'dist', 'ingest', 'pool.js'))) as typeof import('../../src/ingest/pool.js');
    const settings = {
      home: join(root, 'home'),
      redact: { enabled: true, extraPatterns: [] },
      minMessageChars: 10,
      timezone: 'UTC',
      maxLineBytes: 64 * 1024 * 1024,
      exclude: [],
      excludeSessionIds: [],
    };
    mkdirSync(join(root, 'corpus'));
    const small = join(root, 'corpus', 'small.jsonl');
    writeFileSync(small, claudeSession({ sessionId: 'small', turns: [{ role: 'user', text: 'a small session about rotating keys', at: '2026-01-01T10:00:00Z' }] }));
    // Long messages: parsing and redacting even one piece of the file (a line at least) needs far more heap than
    // the worker is allowed.
    const huge = join(root, 'corpus', 'huge.jsonl');
    const text = 'lorem ipsum dolor sit amet '.repeat(1_000_000);
    writeFileSync(huge, claudeSession({ sessionId: 'huge', turns: Array.from({ length: 2 }, (_, i) => ({ role: 'user' as const, text: `${i} ${text}`, at: '2026-01-01T10:00:00Z' })) }));
    const pool = new IngestPool(settings, 1, { maxOldGenerationSizeMb: 24 });
    try {
      const failed = await pool.prepare(huge, null, {}).then(
        () => null,
        (error: Error) => error,
      );
      expect(failed?.message).toMatch(/an ingest worker stopped/);
      const ok = await pool.prepare(small, null, {});
      expect(ok.kind).toBe('read');
      if (ok.kind === 'read') expect(ok.transcript.normalized.chunk.entries.map((entry) => entry.text)).toEqual(['a small session about rotating keys']);
    } finally {
      await pool.close();
    }
  });

  test('SIGTERM ends a run with workers at once, and the next run completes it', async () => {
    const corpus = join(root, 'corpus');
    mkdirSync(corpus);
    for (let s = 0; s < 150; s += 1) {
      const turns = Array.from({ length: 60 }, (_, t) => ({
        role: (t % 2 === 0 ? 'user' : 'assistant') as 'user' | 'assistant',
        text: `session ${s} turn ${t}: migrating the billing tables, step ${t}, checking src/billing/migrate_${t}.ts`,
        at: new Date(Date.UTC(2026, 2, 1, 8, t)).toISOString(),
      }));
      writeFileSync(join(corpus, `s${s}.jsonl`), claudeSession({ sessionId: `sig-${s}`, turns }));
    }
    const home = join(root, 'home');
    const child = spawn(process.execPath, [BIN, 'index', corpus], { env: { PATH: process.env.PATH, MOON_HOME: home, MOON_INDEX_WORKERS: '2' }, stdio: 'ignore' });
    const ended = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
    );
    await new Promise((resolve) => setTimeout(resolve, 700));
    const sentAt = Date.now();
    child.kill('SIGTERM');
    const exit = await ended;
    expect(exit.at - sentAt).toBeLessThan(5000);
    const next = await spawnMoon(['index', corpus, '--json'], { MOON_HOME: home });
    expect(next.code, next.stderr).toBe(0);
    const sessions = JSON.parse((await spawnMoon(['status', '--json'], { MOON_HOME: home })).stdout) as { sessions: number; entries: number };
    expect(sessions).toMatchObject({ sessions: 150, entries: 150 * 60 });
  });
});
