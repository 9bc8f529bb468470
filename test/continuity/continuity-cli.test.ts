import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ContinuityMap } from '../../src/model.js';
import { REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

const FIXTURES = join(REPO, 'test', 'fixtures', 'claude-code');
const SOURCE = '624a4a58-b34c-462d-a70d-13421c8125a8';
const OTHER_PROJECT = '9a9eadc8-c1f1-493e-a0f1-884aa996b05b';
const FAKE_NOW = '2026-03-01T09:00:00Z';
const FAKE_SECS = Date.parse(FAKE_NOW) / 1000;

let root: string;
let home: string;
let cleanup: () => void;
const env = (extra: Record<string, string> = {}) => ({ MOON_HOME: home, MOON_FAKE_NOW: FAKE_NOW, ...extra });
const moon = (args: string[], extra: Record<string, string> = {}) => spawnMoon(args, env(extra));

function laterSession(sessionId: string, cwd: string, at: string): string {
  const end = new Date(Date.parse(at) + 60_000).toISOString();
  return claudeSession({
    sessionId,
    cwd,
    turns: [
      { role: 'user', at, text: `picking up the compaction work again in ${sessionId}` },
      { role: 'assistant', at: end, text: 'Looking at where we left off with the previous session now.' },
    ],
  });
}

beforeAll(async () => {
  const temp = makeTempDir('moon-continuity-');
  cleanup = temp.cleanup;
  root = temp.path;
  home = join(root, 'home');
  const transcripts = join(root, 'transcripts');
  mkdirSync(transcripts);
  copyFileSync(join(FIXTURES, 'real-compaction-compact-boundary.jsonl'), join(transcripts, `${SOURCE}.jsonl`));
  copyFileSync(join(FIXTURES, 'real-scrubbed-api-error-thinking.jsonl'), join(transcripts, `${OTHER_PROJECT}.jsonl`));
  // The source ran in /Users/user/repo on 2026-01-07 until 21:11:12Z.
  writeFileSync(join(transcripts, 'overlap.jsonl'), laterSession('overlap-session', '/Users/user/repo', '2026-01-07T21:00:00Z'));
  writeFileSync(join(transcripts, 'next-morning.jsonl'), laterSession('next-morning', '/Users/user/repo', '2026-01-08T09:00:00Z'));
  writeFileSync(join(transcripts, 'next-week.jsonl'), laterSession('next-week', '/Users/user/repo', '2026-01-14T09:00:00Z'));
  writeFileSync(join(transcripts, 'elsewhere.jsonl'), laterSession('elsewhere-later', '/Users/user/other', '2026-01-20T09:00:00Z'));
  const index = await spawnMoon(['index', transcripts], env());
  expect(index.code, index.stderr).toBe(0);
  const memory = join(home, 'memory');
  mkdirSync(memory, { recursive: true });
  const block = (id: string) => `<!-- MOON_SESSION_BEGIN:${id} -->\n- worked on compaction\n<!-- MOON_SESSION_END:${id} -->\n`;
  writeFileSync(join(memory, '2026-01-09.md'), `# 2026-01-09\n\n${block(SOURCE)}`);
  writeFileSync(join(memory, '2026-01-07.md'), `# 2026-01-07\n\n${block('next-morning')}${block(SOURCE)}`);
  writeFileSync(join(memory, '2026-01-08.md'), `# 2026-01-08\n\n${block('next-morning')}`);
  // Not a daily file, and a block of an id that only starts with the source's.
  writeFileSync(join(memory, 'notes.md'), block(SOURCE));
  writeFileSync(join(memory, '2026-01-10.md'), block(`${SOURCE}-x`));
});
afterAll(() => cleanup());

/** The `## Decisions & Outcomes` lines of a projection, read independently of the code under test. */
function projectionDecisions(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const section = text.split('## Decisions & Outcomes\n')[1]!.split('\n## ')[0]!;
  return section
    .split('\n')
    .filter((line) => line.startsWith('- ') && line !== '- (none)')
    .map((line) => line.slice(2));
}

describe('moon continuity', () => {
  test('--json: the seed map, target the newest later session of the same cwd', async () => {
    const run = await moon(['continuity', '--from', SOURCE, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const map = JSON.parse(run.stdout) as ContinuityMap;
    const projection = join(home, 'archives', 'mlib', `${SOURCE}.md`);
    expect(Object.keys(map)).toEqual(['source_session_id', 'target_session_id', 'archive_refs', 'daily_memory_refs', 'key_decisions', 'generated_at_epoch_secs']);
    expect(map.source_session_id).toBe(SOURCE);
    expect(map.target_session_id).toBe('next-week');
    // Home-relative: a moved or copied home's maps name its own files.
    expect(map.archive_refs).toEqual([`archives/raw/claude-code/${SOURCE}.jsonl`, `archives/mlib/${SOURCE}.md`]);
    expect(map.daily_memory_refs).toEqual(['memory/2026-01-07.md', 'memory/2026-01-09.md']);
    for (const ref of [...map.archive_refs, ...map.daily_memory_refs]) expect(existsSync(join(home, ref))).toBe(true);
    const expected = projectionDecisions(projection);
    expect(expected.length).toBeGreaterThan(0);
    expect(map.key_decisions).toEqual(expected.slice(0, 20));
    expect(map.generated_at_epoch_secs).toBe(FAKE_SECS);
    expect(run.stderr).toContain(`wrote ${join(home, 'continuity', `continuity-${FAKE_SECS}.json`)}`);
  });

  test('without --json: writes continuity-<epoch>.json and prints its path; the same inputs give the same bytes', async () => {
    const first = await moon(['continuity', '--from', SOURCE]);
    expect(first.code, first.stderr).toBe(0);
    const path = join(home, 'continuity', `continuity-${FAKE_SECS}.json`);
    expect(first.stdout).toBe(`${path}\n`);
    const written = readFileSync(path, 'utf8');
    const json = await moon(['continuity', '--from', SOURCE, '--json']);
    expect(json.stdout).toBe(written);
    const second = await moon(['continuity', '--from', SOURCE]);
    expect(second.stdout).toBe(first.stdout);
    expect(readFileSync(path, 'utf8')).toBe(written);
    // Written through a temporary file: none is left behind.
    expect(readdirSync(join(home, 'continuity')).filter((name) => name.includes('.tmp'))).toEqual([]);
  });

  test('--to names the target; a unique prefix names the source; a different map in the same second gets its own file', async () => {
    const run = await moon(['continuity', '--from', SOURCE.slice(0, 8), '--to', 'my-new-session', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const map = JSON.parse(run.stdout) as ContinuityMap;
    expect(map.source_session_id).toBe(SOURCE);
    expect(map.target_session_id).toBe('my-new-session');
    const path = await moon(['continuity', '--from', SOURCE, '--to', 'my-new-session']);
    expect(path.stdout.trim()).toMatch(new RegExp(`continuity-${FAKE_SECS}-\\d+\\.json$`));
  });

  test('the current session (MOON_CURRENT_SESSION_ID) is the target when none is named', async () => {
    const run = await moon(['continuity', '--from', SOURCE, '--json'], { MOON_CURRENT_SESSION_ID: 'live-session' });
    expect((JSON.parse(run.stdout) as ContinuityMap).target_session_id).toBe('live-session');
  });

  test('no later session of the project: exit 2 asking for --to', async () => {
    const run = await moon(['continuity', '--from', OTHER_PROJECT]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(OTHER_PROJECT);
    expect(run.stderr).toContain('--to');
    const named = await moon(['continuity', '--from', OTHER_PROJECT, '--to', 'next-week', '--json']);
    expect(named.code, named.stderr).toBe(0);
    expect((JSON.parse(named.stdout) as ContinuityMap).daily_memory_refs).toEqual([]);
  });

  test('a session without an archive is not_found naming it; --to the source itself is refused', async () => {
    const unknown = await moon(['continuity', '--from', 'no-such-session', '--to', 'x']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no archive for session no-such-session');
    const self = await moon(['continuity', '--from', SOURCE, '--to', SOURCE]);
    expect(self.code).toBe(2);
    const missing = await moon(['continuity']);
    expect(missing.code).toBe(2);
  });

  test('a snapshot-only home (no index): archive files and --to are enough', async () => {
    const snapshotHome = join(root, 'snapshot-home');
    const snap = await spawnMoon(['snapshot', join(FIXTURES, 'real-compaction-compact-boundary.jsonl')], { MOON_HOME: snapshotHome, MOON_FAKE_NOW: FAKE_NOW });
    expect(snap.code, snap.stderr).toBe(0);
    const run = await spawnMoon(['continuity', '--from', SOURCE, '--to', 'next', '--json'], { MOON_HOME: snapshotHome, MOON_FAKE_NOW: FAKE_NOW });
    expect(run.code, run.stderr).toBe(0);
    const map = JSON.parse(run.stdout) as ContinuityMap;
    expect(map.archive_refs).toEqual([`archives/raw/claude-code/${SOURCE}.jsonl`, `archives/mlib/${SOURCE}.md`]);
    expect(map.key_decisions).toEqual(projectionDecisions(join(snapshotHome, 'archives', 'mlib', `${SOURCE}.md`)).slice(0, 20));
    const noTarget = await spawnMoon(['continuity', '--from', SOURCE], { MOON_HOME: snapshotHome, MOON_FAKE_NOW: FAKE_NOW });
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain('--to');
  });
});
