import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { BIN, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { describeOnServer } from '../helpers/postgres.js';
import { type TurnSpec, claudeSession } from '../helpers/transcripts.js';

/**
 * `moon migrate --to URL` copies an embedded index into PostgreSQL without reading transcripts: recall answers
 * the same on both, the next index finds nothing to do, and a migrate killed halfway resumes where it stopped.
 */
let temp: { path: string; cleanup: () => void };
beforeAll(() => {
  temp = makeTempDir('moon-migrate-');
});
afterAll(() => {
  temp?.cleanup();
});

const SESSIONS = 60;
const TOPICS = ['terraform state lock', 'postgres vacuum', 'webpack chunk split', 'kafka consumer lag', 'redis eviction', 'nginx upstream'];

function writeCorpus(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (let s = 0; s < SESSIONS; s += 1) {
    const topic = TOPICS[s % TOPICS.length]!;
    const turns: TurnSpec[] = Array.from({ length: 16 }, (_, t) => ({
      role: t % 2 === 0 ? 'user' : 'assistant',
      text: `${topic}: step ${t} of session ${s}, checking the ${t % 3 === 0 ? 'logs' : 'config'} for ${topic.split(' ')[0]}`,
      at: new Date(Date.UTC(2026, 1, 1 + (s % 27), 8 + (s % 9), t * 3)).toISOString(),
    }));
    writeFileSync(join(dir, `s${s}.jsonl`), claudeSession({ sessionId: `mig-${s}`, cwd: `/work/${topic.split(' ')[0]}`, turns }));
  }
}

async function count(url: string, sql: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>(sql)).rows[0]!.n);
  } finally {
    await client.end();
  }
}

const QUERIES = ['terraform state lock', 'vacuum logs', 'kafka consumer lag config', 'eviction', 'what happened on 2026-02-03'];

async function recallIds(env: Record<string, string>, query: string): Promise<string[]> {
  const run = await spawnMoon(['recall', query, '--json', '--limit', '8', '--now', '2026-03-01T00:00:00Z'], env);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as RecallResult).matches.map((match) => `${match.metadata.session_id}:${match.metadata.message_ids.join(',')}`);
}

describeOnServer('moon migrate', 'moon index, which reads ahead on one connection while another holds a transaction', (postgres) => {
  test('copies an index, answers the same, and resumes after being killed', async () => {
    const corpus = join(temp.path, 'corpus');
    writeCorpus(corpus);
    const home = join(temp.path, 'home');
    const embedded = { MOON_HOME: home };
    expect((await spawnMoon(['index', corpus], embedded)).code).toBe(0);
    const url = await postgres().createDatabase('migrated');

    // Kill the first migrate once some sessions are copied.
    const child = spawn(process.execPath, [BIN, 'migrate', '--to', url], { env: { PATH: process.env.PATH, ...embedded }, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    let copiedWhenKilled = 0;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      copiedWhenKilled = await count(url, 'SELECT count(*) AS n FROM moon.copied').catch(() => 0);
      if (copiedWhenKilled >= 3) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGKILL');
    await exited;
    expect(copiedWhenKilled).toBeGreaterThanOrEqual(3);
    const partial = await count(url, 'SELECT count(*) AS n FROM moon.copied');
    expect(partial).toBeLessThan(SESSIONS);

    const resumed = await spawnMoon(['migrate', '--to', url, '--json'], embedded);
    expect(resumed.code, resumed.stderr).toBe(0);
    const report = JSON.parse(resumed.stdout) as { sessions: number; copied: number; skipped: number; files: number };
    expect(report.sessions).toBe(SESSIONS);
    expect(report.skipped).toBeGreaterThanOrEqual(partial - 1);
    expect(report.copied + report.skipped).toBe(SESSIONS);
    expect(await count(url, 'SELECT count(*) AS n FROM moon.sessions')).toBe(SESSIONS);
    expect(await count(url, 'SELECT count(*) AS n FROM moon.entries')).toBe(SESSIONS * 16);
    expect(await count(url, 'SELECT count(DISTINCT (session_id, key)) AS n FROM moon.entries')).toBe(SESSIONS * 16);

    // The same answers from both engines.
    const shared = { MOON_HOME: home, MOON_DATABASE_URL: url };
    for (const query of QUERIES) {
      expect(await recallIds(shared, query), query).toEqual(await recallIds(embedded, query));
    }
    // Nothing to re-read: the file states came along.
    const index = await spawnMoon(['index', corpus, '--json'], shared);
    expect(index.code, index.stderr).toBe(0);
    expect(JSON.parse(index.stdout)).toMatchObject({ indexed: 0, unchanged: SESSIONS });
    const status = JSON.parse((await spawnMoon(['status', '--json'], shared)).stdout) as { engine: string; sessions: number; db: string };
    expect(status).toMatchObject({ engine: 'postgres', sessions: SESSIONS });
    expect(status.db).toContain('/migrated');
    // Run again: everything is there already.
    const again = JSON.parse((await spawnMoon(['migrate', '--to', url, '--json'], embedded)).stdout) as { copied: number; skipped: number };
    expect(again).toMatchObject({ copied: 0, skipped: SESSIONS });
  });
});

describe('moon migrate, arguments', () => {
  test('a target that is not a PostgreSQL URL is a usage error', async () => {
    const run = await spawnMoon(['migrate', '--to', 'mysql://x@y/z'], { MOON_HOME: join(temp.path, 'empty') });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--to must be a PostgreSQL URL');
  });
});
