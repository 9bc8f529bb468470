import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { makeTempDir, spawnMoon } from '../helpers/cli.js';
import { describeOnServer } from '../helpers/postgres.js';

/**
 * A Puffin history indexed into PostgreSQL through the built CLI: one session per conversation, and an edited
 * prompt re-indexes its conversation alone; a thread deleted from the history leaves the database with it.
 */
const FIXTURE = readFileSync(new URL('../fixtures/puffin/history-real-subset-small.json', import.meta.url), 'utf8');

let temp: { path: string; cleanup: () => void };
beforeAll(() => {
  temp = makeTempDir('moon-pg-puffin-');
});
afterAll(() => temp?.cleanup());

describeOnServer('a Puffin history on PostgreSQL', 'moon index, which reads ahead on one connection while another holds a transaction', (postgres) => {
  test('indexed per conversation, then only what changed', async () => {
    const url = await postgres().createDatabase('puffin');
    const work = join(temp.path, 'work');
    const historyPath = join(work, 'proj', '.puffin', 'history.json');
    mkdirSync(join(work, 'proj', '.puffin'), { recursive: true });
    writeFileSync(historyPath, FIXTURE);
    const moon = (...args: string[]) => spawnMoon(args, { MOON_HOME: join(temp.path, 'home'), MOON_DATABASE_URL: url });
    const first = await moon('index', work, '--json');
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ indexed: 1, documents: { sessions_written: 8, parts_added: 19 } });

    const history = JSON.parse(FIXTURE) as { branches: Record<string, { prompts: { id: string; content: string }[] }> };
    history.branches.tmp!.prompts[0]!.content += '\nAnd the kestrel-bridge rollout.';
    history.branches['code-reviews']!.prompts = [];
    writeFileSync(historyPath, JSON.stringify(history, null, 2));
    const second = await moon('index', work, '--json');
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({
      sessions: ['puffin-mjhiejc9sl109fl94'],
      documents: { sessions_written: 1, sessions_unchanged: 6, sessions_removed: 1, parts_modified: 1, parts_removed: 2 },
    });
    const recall = JSON.parse((await moon('recall', 'kestrel-bridge', '--json')).stdout) as RecallResult;
    expect(recall.matches.map((match) => match.metadata.session_id)).toEqual(['puffin-mjhiejc9sl109fl94']);
    const listed = JSON.parse((await moon('sessions', '--json')).stdout) as { sessions: { session_id: string }[] };
    expect(listed.sessions.map((session) => session.session_id)).not.toContain('puffin-mkhvfnibzunc1jg4k');
    expect(listed.sessions).toHaveLength(7);
  });
});
