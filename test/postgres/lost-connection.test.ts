import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { makeTempDir, spawnMoon } from '../helpers/cli.js';
import { describeOnServer, withPgClient } from '../helpers/postgres.js';
import { type TurnSpec, claudeSession } from '../helpers/transcripts.js';

/**
 * The connection to the server drops while a file is being committed: that file is rolled back whole (no half
 * session, no file state), the run stops with an error that names the database, and the next run completes it.
 */
let temp: { path: string; cleanup: () => void };
beforeAll(() => {
  temp = makeTempDir('moon-lost-connection-');
});
afterAll(() => {
  temp?.cleanup();
});

function session(id: string, turns: number): string {
  const list: TurnSpec[] = Array.from({ length: turns }, (_, t) => ({
    role: t % 2 === 0 ? 'user' : 'assistant',
    text: `${id} turn ${t} about rolling back the schema migration`,
    at: new Date(Date.UTC(2026, 5, 1, 10, t)).toISOString(),
  }));
  return claudeSession({ sessionId: id, turns: list });
}

describeOnServer('a lost connection mid-file', 'pg_terminate_backend on a writer', (postgres) => {
  test('rolls that file back, and the next run completes it', async () => {
    const url = await postgres().createDatabase('lost_connection');
    const home = join(temp.path, 'home');
    const corpus = join(temp.path, 'corpus');
    mkdirSync(corpus);
    writeFileSync(join(corpus, 'first.jsonl'), session('first', 6));
    const env = { MOON_HOME: home, MOON_DATABASE_URL: url };
    expect((await spawnMoon(['index', corpus], env)).code).toBe(0);
    writeFileSync(join(corpus, 'second.jsonl'), session('second', 30));

    // The server is made to stall inside the next file's commit: an insert into entries sleeps. While it does,
    // the test cuts moon's connection from the server side.
    await withPgClient(url, (client) =>
      client.query(`CREATE FUNCTION public.stall() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(30); RETURN NULL; END $$;
        CREATE TRIGGER stall AFTER INSERT ON moon.entries FOR EACH STATEMENT EXECUTE FUNCTION public.stall();`),
    );
    const running = spawnMoon(['index', corpus, '--json'], env);
    const killed = await withPgClient(url, async (client) => {
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const found = await client.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE query LIKE '%pg_sleep(30)%' AND pid <> pg_backend_pid() AND state = 'active'",
        );
        const stalled = await client.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND pid <> pg_backend_pid()",
        );
        const pid = stalled.rows[0]?.pid ?? found.rows[0]?.pid;
        if (pid !== undefined) {
          await client.query('SELECT pg_terminate_backend($1)', [pid]);
          return true;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return false;
    });
    expect(killed).toBe(true);
    const failed = await running;
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('lost the connection to postgres://postgres@127.0.0.1');
    expect(failed.stderr).not.toMatch(/\n\s+at /);
    const report = JSON.parse(failed.stdout) as { fatal: { message: string } | null };
    expect(report.fatal?.message).toContain('lost the connection');

    await withPgClient(url, async (client) => {
      // Nothing of the second file stayed: no session, no entries, no file state.
      const rows = await client.query<{ sessions: number; entries: number; files: number }>(
        `SELECT (SELECT count(*)::int FROM moon.sessions WHERE id = 'second') AS sessions,
                (SELECT count(*)::int FROM moon.entries WHERE session_id = 'second') AS entries,
                (SELECT count(*)::int FROM moon.files WHERE path LIKE '%second.jsonl') AS files`,
      );
      expect(rows.rows[0]).toEqual({ sessions: 0, entries: 0, files: 0 });
      await client.query('DROP TRIGGER stall ON moon.entries; DROP FUNCTION public.stall()');
    });

    const again = await spawnMoon(['index', corpus, '--json'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ indexed: 1, unchanged: 1, fatal: null });
    await withPgClient(url, async (client) => {
      const rows = await client.query<{ id: string; entry_count: number }>('SELECT id, entry_count FROM moon.sessions ORDER BY id');
      expect(rows.rows).toEqual([
        { id: 'first', entry_count: 6 },
        { id: 'second', entry_count: 30 },
      ]);
      const [distinct] = (await client.query<{ n: number }>("SELECT count(DISTINCT key)::int AS n FROM moon.entries WHERE session_id = 'second'")).rows;
      expect(distinct!.n).toBe(30);
    });
    const recall = await spawnMoon(['recall', 'second turn 29', '--json'], env);
    expect(recall.code, recall.stderr).toBe(0);
  });
});
