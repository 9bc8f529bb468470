import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { makeTempDir, spawnMoon } from '../helpers/cli.js';
import { describeOnServer } from '../helpers/postgres.js';
import { type TurnSpec, claudeSession } from '../helpers/transcripts.js';

/**
 * Two machines (two MOON_HOMEs) indexing into one PostgreSQL database at the same time, through the built CLI:
 * transcripts only one of them has, and transcripts both have — at the same path (a shared home) and at
 * different paths (a synced copy). Every session is stored once, with every entry once, and nothing is lost.
 */
let temp: { path: string; cleanup: () => void };
beforeAll(() => {
  temp = makeTempDir('moon-two-writers-');
});
afterAll(() => {
  temp?.cleanup();
});

const SESSIONS_PER_SET = 12;
const TURNS = 40;

function writeSet(dir: string, prefix: string): void {
  mkdirSync(dir, { recursive: true });
  for (let s = 0; s < SESSIONS_PER_SET; s += 1) {
    const id = `${prefix}-${s}`;
    const turns: TurnSpec[] = [];
    for (let t = 0; t < TURNS; t += 1) {
      const at = new Date(Date.UTC(2026, 4, 1 + s, 9, t)).toISOString();
      turns.push({ role: t % 2 === 0 ? 'user' : 'assistant', text: `${prefix} session ${s} turn ${t}: marker${prefix}x${s}x${t} about the deploy pipeline`, at });
    }
    writeFileSync(join(dir, `${id}.jsonl`), claudeSession({ sessionId: id, cwd: `/work/${prefix}`, turns }));
  }
}

async function query<T extends Record<string, unknown>>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describeOnServer('two writers, one database', 'two writers at once', (postgres) => {
  test('overlapping and distinct transcripts at the same time: no duplicates, nothing lost', async () => {
    const url = await postgres().createDatabase('two_writers');
    const root = temp.path;
    writeSet(join(root, 'only-a'), 'alpha');
    writeSet(join(root, 'only-b'), 'beta');
    // Both machines see these at one path (a shared home) …
    writeSet(join(root, 'shared'), 'common');
    // … and these at two paths (machine B has a synced copy).
    writeSet(join(root, 'synced-a'), 'synced');
    cpSync(join(root, 'synced-a'), join(root, 'synced-b'), { recursive: true });
    const homeA = join(root, 'home-a');
    const homeB = join(root, 'home-b');
    const run = (home: string, dirs: string[]) =>
      spawnMoon(['index', ...dirs.map((dir) => join(root, dir)), '--json'], { MOON_HOME: home, MOON_DATABASE_URL: url });
    const [a, b] = await Promise.all([run(homeA, ['only-a', 'shared', 'synced-a']), run(homeB, ['only-b', 'shared', 'synced-b'])]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const reportA = JSON.parse(a.stdout) as { indexed: number; excluded: number; failed: number };
    const reportB = JSON.parse(b.stdout) as { indexed: number; excluded: number; failed: number };
    expect(reportA.failed + reportB.failed).toBe(0);

    const sessions = await query<{ id: string; entry_count: number }>(url, 'SELECT id, entry_count FROM moon.sessions ORDER BY id');
    const expected = ['alpha', 'beta', 'common', 'synced'].flatMap((prefix) => Array.from({ length: SESSIONS_PER_SET }, (_, s) => `${prefix}-${s}`)).sort();
    expect(sessions.map((session) => session.id)).toEqual(expected);
    expect(sessions.every((session) => session.entry_count === TURNS)).toBe(true);
    const [entries] = await query<{ n: number; keys: number }>(url, 'SELECT count(*)::int AS n, count(DISTINCT (session_id, key))::int AS keys FROM moon.entries');
    expect(entries).toEqual({ n: expected.length * TURNS, keys: expected.length * TURNS });
    // Each text once: a second copy of a message would show as a repeated marker.
    const [repeats] = await query<{ n: number }>(url, "SELECT count(*)::int AS n FROM moon.entries WHERE text LIKE '%marker%marker%'");
    expect(repeats!.n).toBe(0);
    // Every machine recorded its own files; the synced copies on B are recorded as copies (or took no session).
    const files = await query<{ machine: string; n: number }>(url, 'SELECT machine, count(*)::int AS n FROM moon.files GROUP BY machine ORDER BY n');
    expect(files.map((row) => row.n)).toEqual([3 * SESSIONS_PER_SET, 3 * SESSIONS_PER_SET]);
    expect(reportA.indexed + reportB.indexed + reportA.excluded + reportB.excluded).toBe(6 * SESSIONS_PER_SET);

    // Recall from either machine finds a message of the other's transcripts, once.
    for (const [home, marker] of [[homeA, 'markerbetax3x7'], [homeB, 'markeralphax5x9'], [homeB, 'markersyncedx2x4']] as const) {
      const recall = await spawnMoon(['recall', marker, '--json', '--group', 'message'], { MOON_HOME: home, MOON_DATABASE_URL: url });
      expect(recall.code, recall.stderr).toBe(0);
      const matches = (JSON.parse(recall.stdout) as { matches: { snippet: string }[] }).matches.filter((match) => match.snippet.includes(marker));
      expect(matches, marker).toHaveLength(1);
    }

    // Each home's ledger names the sessions it archived, once each.
    const ledgerIds = (home: string) =>
      readFileSync(join(home, 'archives', 'ledger.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { session_id: string }).session_id);
    for (const home of [homeA, homeB]) {
      const ids = ledgerIds(home);
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect(ledgerIds(homeA).filter((id) => id.startsWith('alpha-'))).toHaveLength(SESSIONS_PER_SET);

    // Nothing changed: both machines find every file unchanged.
    const [againA, againB] = await Promise.all([run(homeA, ['only-a', 'shared', 'synced-a']), run(homeB, ['only-b', 'shared', 'synced-b'])]);
    expect((JSON.parse(againA.stdout) as { indexed: number }).indexed).toBe(0);
    expect((JSON.parse(againB.stdout) as { indexed: number }).indexed).toBe(0);
    const [after] = await query<{ n: number }>(url, 'SELECT count(*)::int AS n FROM moon.entries');
    expect(after!.n).toBe(expected.length * TURNS);
  });
});
