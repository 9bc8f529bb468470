import { appendFileSync, cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { makeTempDir, spawnMoon } from '../helpers/cli.js';
import { describeOnServer } from '../helpers/postgres.js';
import { claudeSession } from '../helpers/transcripts.js';

/**
 * Forgetting on a database two machines share: what one machine forgets is gone for both — from every recall,
 * from the other machine's archive at its next run — and neither brings it back, even when its transcript grows.
 */
let temp: { path: string; cleanup: () => void };
beforeAll(() => {
  temp = makeTempDir('moon-pg-forget-');
});
afterAll(() => {
  temp?.cleanup();
});

function write(dir: string, sessionId: string, cwd: string, at: string, text: string): void {
  writeFileSync(
    join(dir, `${sessionId}.jsonl`),
    claudeSession({
      sessionId,
      cwd,
      turns: [
        { role: 'user', at, id: `${sessionId}-1`, text },
        { role: 'assistant', at: new Date(Date.parse(at) + 60_000).toISOString(), id: `${sessionId}-2`, text: `Done: ${text}` },
      ],
    }),
  );
}

describeOnServer('forgetting on a shared PostgreSQL database', 'moon index, which reads ahead on one connection while another holds a transaction', (postgres) => {
  test('sessions, projects and dates forgotten on one machine are gone for both, for good', async () => {
    const url = await postgres().createDatabase('forget');
    const root = temp.path;
    const corpusA = join(root, 'corpus-a');
    const corpusB = join(root, 'corpus-b');
    mkdirSync(corpusA);
    write(corpusA, 'alpha', '/home/dev/shop', '2026-01-05T10:00:00Z', 'the pelican checkout bug in the shop');
    write(corpusA, 'beta', '/home/dev/shop', '2026-03-05T10:00:00Z', 'pelican rate limits for the shop api');
    write(corpusA, 'gamma', '/home/dev/blog', '2026-01-07T10:00:00Z', 'pelican theme for the blog');
    write(corpusA, 'delta', '/home/dev/infra', '2025-11-02T10:00:00Z', 'pelican dns records for the infra');
    cpSync(corpusA, corpusB, { recursive: true });
    const homeA = join(root, 'home-a');
    const homeB = join(root, 'home-b');
    const moon = (home: string, ...args: string[]) => spawnMoon(args, { MOON_HOME: home, MOON_DATABASE_URL: url });
    // B indexes first, so B holds the raw archives; A's copies are recorded as copies.
    expect((await moon(homeB, 'index', corpusB)).code).toBe(0);
    expect((await moon(homeA, 'index', corpusA)).code).toBe(0);
    const found = async (home: string): Promise<string[]> => {
      const run = await moon(home, 'recall', 'pelican', '--json', '--limit', '20');
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as RecallResult).matches.map((match) => match.metadata.session_id).sort();
    };
    expect(await found(homeA)).toEqual(['alpha', 'beta', 'delta', 'gamma']);
    expect(existsSync(join(homeB, 'archives', 'mlib', 'alpha.md'))).toBe(true);

    // A forgets a session by id, a project, and everything before a date.
    expect((await moon(homeA, 'forget', 'alpha')).code).toBe(0);
    expect(await found(homeB)).toEqual(['beta', 'delta', 'gamma']);
    const project = await moon(homeA, 'forget', '--project', 'blog', '--json');
    expect((JSON.parse(project.stdout) as { forgotten: { id: string }[] }).forgotten.map((session) => session.id)).toEqual(['gamma']);
    const before = await moon(homeA, 'forget', '--before', '2026-01-01', '--json');
    expect((JSON.parse(before.stdout) as { forgotten: { id: string }[] }).forgotten.map((session) => session.id)).toEqual(['delta']);
    expect(await found(homeA)).toEqual(['beta']);
    expect(await found(homeB)).toEqual(['beta']);
    for (const query of ['checkout bug', 'theme blog', 'dns records']) {
      const run = await moon(homeB, 'recall', query, '--json');
      expect((JSON.parse(run.stdout) as RecallResult).matches.map((match) => match.metadata.session_id), query).not.toContain('alpha');
    }

    // B's next run removes its own archive and projection of what A forgot, and records the tombstones.
    expect((await moon(homeB, 'index', corpusB)).code).toBe(0);
    expect(existsSync(join(homeB, 'archives', 'mlib', 'alpha.md'))).toBe(false);
    expect(existsSync(join(homeB, 'archives', 'raw', 'claude-code', 'alpha.jsonl'))).toBe(false);
    const verify = await moon(homeB, 'verify', '--json');
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true });

    // The transcripts grow on both machines: still nothing comes back.
    for (const dir of [corpusA, corpusB]) {
      appendFileSync(
        join(dir, 'alpha.jsonl'),
        claudeSession({ sessionId: 'alpha', turns: [{ role: 'user', id: 'alpha-3', at: '2026-01-05T11:00:00Z', text: 'one more pelican note' }] }),
      );
    }
    expect((await moon(homeA, 'index', corpusA)).code).toBe(0);
    expect((await moon(homeB, 'index', corpusB)).code).toBe(0);
    expect(await found(homeA)).toEqual(['beta']);
    const status = JSON.parse((await moon(homeA, 'status', '--json')).stdout) as { engine: string; sessions: number };
    expect(status).toMatchObject({ engine: 'postgres', sessions: 1 });
  });
});
