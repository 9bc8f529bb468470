import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BIN, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

const FILES = 300;
const TURNS = 120;
let root: string;
let cleanup: () => void;

beforeAll(() => {
  const temp = makeTempDir('moon-kill-');
  root = temp.path;
  cleanup = temp.cleanup;
  const corpus = join(root, 'corpus');
  mkdirSync(corpus, { recursive: true });
  for (let file = 0; file < FILES; file += 1) {
    const start = Date.parse('2026-01-01T00:00:00Z') + file * 3_600_000;
    const turns = Array.from({ length: TURNS }, (_, index) => ({
      role: (index % 2 === 0 ? 'user' : 'assistant') as 'user' | 'assistant',
      at: new Date(start + index * 30_000).toISOString(),
      id: `f${file}-m${index}`,
      text: `session ${file} message ${index}: refactor the ingest pipeline and check offsets ${'lorem ipsum dolor '.repeat(index % 7)}`,
    }));
    writeFileSync(join(corpus, `s${file}.jsonl`), claudeSession({ sessionId: `s${file}`, turns }));
  }
});

afterAll(() => cleanup());

function counts(home: string): { files: number; entries: number; distinct: number; fts: number; perSession: Record<string, number> } {
  const db = new Database(join(home, 'moon.db'), { readonly: true });
  try {
    const perSession: Record<string, number> = {};
    for (const row of db.prepare('SELECT session_id, count(*) AS n FROM entries GROUP BY session_id').all() as { session_id: string; n: number }[]) {
      perSession[row.session_id] = row.n;
    }
    return {
      files: db.prepare('SELECT count(*) FROM files').pluck().get() as number,
      entries: db.prepare('SELECT count(*) FROM entries').pluck().get() as number,
      distinct: db.prepare('SELECT count(DISTINCT session_id || char(0) || key) FROM entries').pluck().get() as number,
      fts: db.prepare("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH 'ingest'").pluck().get() as number,
      perSession,
    };
  } finally {
    db.close();
  }
}

test('an index killed with SIGKILL is completed by the next run, nothing lost or duplicated', async () => {
  const home = join(root, 'killed');
  const corpus = join(root, 'corpus');
  const child = spawn(process.execPath, [BIN, 'index', corpus, '--home', home], {
    env: { PATH: process.env.PATH, MOON_RESIDENTIAL_TIMEZONE: 'UTC' },
    stdio: 'ignore',
  });
  // Kill once some files are committed but (on any machine this suite runs on) long before all are.
  const deadline = Date.now() + 60_000;
  let committed = 0;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    try {
      committed = counts(home).files;
    } catch {
      committed = 0;
    }
    if (committed >= 5) break;
  }
  child.kill('SIGKILL');
  await new Promise((resolve) => child.on('close', resolve));
  const afterKill = counts(home);
  expect(afterKill.files).toBeGreaterThanOrEqual(5);
  expect(afterKill.files).toBeLessThan(FILES);
  // what was committed is whole: every committed session has all its entries
  for (const n of Object.values(afterKill.perSession)) expect(n).toBe(TURNS);

  const resumed = await spawnMoon(['index', corpus, '--home', home, '--json']);
  expect(resumed.code, resumed.stderr).toBe(0);
  const report = JSON.parse(resumed.stdout);
  expect(report.unchanged).toBe(afterKill.files);
  expect(report.indexed).toBe(FILES - afterKill.files);

  const fresh = join(root, 'fresh');
  const full = await spawnMoon(['index', corpus, '--home', fresh, '--json']);
  expect(full.code, full.stderr).toBe(0);
  const completed = counts(home);
  const reference = counts(fresh);
  expect(completed.entries).toBe(FILES * TURNS);
  expect(completed.distinct).toBe(completed.entries);
  expect(completed).toEqual(reference);
  expect(readdirSync(join(home, 'archives', 'mlib')).filter((name) => name.endsWith('.md'))).toHaveLength(FILES);
}, 180_000);
