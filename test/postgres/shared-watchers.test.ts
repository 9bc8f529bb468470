import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { describeOnServer } from '../helpers/postgres.js';

/**
 * Two machines share one PostgreSQL database and each runs its own watcher: each indexes its own transcripts into
 * the shared index and writes its own daily memory and MEMORY.md; recall on either finds both machines' sessions.
 */
let temp: { path: string; cleanup: () => void };
beforeAll(() => {
  temp = makeTempDir('moon-pg-watch-');
});
afterAll(() => {
  temp?.cleanup();
});

describeOnServer('watchers on a shared PostgreSQL database', 'moon watch --once on two homes', (postgres) => {
  test('each home keeps its own daily files and MEMORY.md; the index is shared', async () => {
    const url = await postgres().createDatabase('watchers');
    const machines = ['a', 'b'].map((name) => {
      const home = join(temp.path, `home-${name}`);
      const sources = join(temp.path, `sources-${name}`);
      mkdirSync(home, { recursive: true });
      return { home, sources, env: { MOON_HOME: home, MOON_SOURCES: sources, MOON_DATABASE_URL: url, MOON_INDEX_WORKERS: '0', MOON_RESIDENTIAL_TIMEZONE: 'Australia/Sydney', MOON_FAKE_NOW: '2026-02-21T14:00:00Z' } };
    });
    // Machine a works on the shop (Claude Code), machine b on the ledger API (Codex).
    cpSync(join(REPO, 'examples', 'claude-code'), machines[0]!.sources, { recursive: true });
    cpSync(join(REPO, 'examples', 'codex'), machines[1]!.sources, { recursive: true });
    for (const machine of machines) {
      const run = await spawnMoon(['watch', '--once', '--json'], machine.env);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ l1: { state: 'ran' }, syns: { day: '2026-02-21', outcome: 'written' } });
    }
    const shopDay = readFileSync(join(machines[0]!.home, 'memory', '2026-02-21.md'), 'utf8');
    const ledgerDay = readFileSync(join(machines[1]!.home, 'memory', '2026-02-21.md'), 'utf8');
    expect(shopDay).toContain('MOON_SESSION_BEGIN:5f3c2a1e');
    expect(shopDay).not.toContain('019c8b2e');
    expect(ledgerDay).toContain('MOON_SESSION_BEGIN:019c8b2e');
    expect(ledgerDay).not.toContain('5f3c2a1e');
    expect(readFileSync(join(machines[0]!.home, 'MEMORY.md'), 'utf8')).not.toContain('ledger-api');
    expect(readFileSync(join(machines[1]!.home, 'MEMORY.md'), 'utf8')).toContain('ledger-api');
    expect(existsSync(join(machines[0]!.home, 'moon.db'))).toBe(false);
    expect(readdirSync(join(machines[1]!.home, 'archives', 'mlib'))).toEqual(['019c8b2e-4a1f-7d3c-b5e6-2f8a9c0d1e3b.md']);
    // The index is one: machine a recalls machine b's session.
    const recall = await spawnMoon(['recall', 'flaky invoice test', '--json'], machines[0]!.env);
    expect(JSON.parse(recall.stdout).matches.some((match: { metadata: { session_id: string } }) => match.metadata.session_id.startsWith('019c8b2e'))).toBe(true);
  }, 120_000);
});
