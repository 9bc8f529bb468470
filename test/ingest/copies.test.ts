import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { makeTempDir, runMoon } from '../helpers/cli.js';
import { type TurnSpec, claudeSession } from '../helpers/transcripts.js';

/**
 * One transcript seen as several files — a copy in a backup folder, or (on a shared database) the same file on
 * two machines — is one session: the copy adds nothing, a copy that grew further takes the session over, and
 * only a transcript with records of its own is kept beside it.
 */
let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ path: root, cleanup } = makeTempDir('moon-copies-'));
});
afterEach(() => cleanup());

const turns: TurnSpec[] = [
  { role: 'user', text: 'please rotate the staging certificates today', at: '2026-03-02T09:00:00Z' },
  { role: 'assistant', text: 'rotated both certificates with certbot renew', at: '2026-03-02T09:01:00Z' },
];
const more: TurnSpec[] = [{ role: 'user', text: 'now restart the haproxy frontends', at: '2026-03-02T09:05:00Z' }];

async function sessions(home: string): Promise<{ session_id: string; turn_count: number }[]> {
  const run = await runMoon(['sessions', '--home', home, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { sessions: { session_id: string; turn_count: number }[] }).sessions;
}

describe('copies of one transcript', () => {
  test('an identical copy is recorded, not indexed twice', async () => {
    const home = join(root, 'home');
    mkdirSync(join(root, 'a'));
    mkdirSync(join(root, 'b'));
    const text = claudeSession({ sessionId: 'cert', turns });
    writeFileSync(join(root, 'a', 'cert.jsonl'), text);
    writeFileSync(join(root, 'b', 'cert.jsonl'), text);
    const run = await runMoon(['index', join(root, 'a'), join(root, 'b'), '--home', home, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { indexed: number; excluded: number; excluded_files: { reason: string }[] };
    expect(report).toMatchObject({ indexed: 1, excluded: 1 });
    expect(report.excluded_files[0]!.reason).toContain('the same transcript is indexed from');
    expect(await sessions(home)).toMatchObject([{ session_id: 'cert', turn_count: 2 }]);
    const recall = JSON.parse((await runMoon(['recall', 'certbot', '--home', home, '--json'])).stdout) as { matches: unknown[] };
    expect(recall.matches).toHaveLength(1);
    // Unchanged on the next run: neither file is read again.
    const again = JSON.parse((await runMoon(['index', join(root, 'a'), join(root, 'b'), '--home', home, '--json'])).stdout) as { indexed: number };
    expect(again.indexed).toBe(0);
  });

  test('a copy that grew further takes the session over; the shorter one then adds nothing', async () => {
    const home = join(root, 'home');
    mkdirSync(join(root, 'a'));
    mkdirSync(join(root, 'b'));
    writeFileSync(join(root, 'a', 'cert.jsonl'), claudeSession({ sessionId: 'cert', turns }));
    expect((await runMoon(['index', join(root, 'a'), '--home', home])).code).toBe(0);
    writeFileSync(join(root, 'b', 'cert.jsonl'), claudeSession({ sessionId: 'cert', turns: [...turns, ...more] }));
    const run = await runMoon(['index', join(root, 'a'), join(root, 'b'), '--home', home, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(await sessions(home)).toMatchObject([{ session_id: 'cert', turn_count: 3 }]);
    const recall = JSON.parse((await runMoon(['recall', 'haproxy', '--home', home, '--json'])).stdout) as { matches: { metadata: { session_id: string } }[] };
    expect(recall.matches.map((match) => match.metadata.session_id)).toEqual(['cert']);
    // The first file grows the same way later: it holds nothing new, so the session stays as it is.
    appendFileSync(join(root, 'a', 'cert.jsonl'), readFileSync(join(root, 'b', 'cert.jsonl'), 'utf8').split('\n').slice(2).join('\n'));
    expect((await runMoon(['index', join(root, 'a'), join(root, 'b'), '--home', home])).code).toBe(0);
    expect(await sessions(home)).toMatchObject([{ session_id: 'cert', turn_count: 3 }]);
  });
});
