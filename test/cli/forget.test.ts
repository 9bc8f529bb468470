import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { makeTempDir, runMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

let root: string;
let home: string;
let corpus: string;
let cleanup: () => void;
const moon = (...args: string[]) => runMoon(args, { MOON_HOME: home });

function write(name: string, sessionId: string, cwd: string, at: string, text: string): void {
  writeFileSync(
    join(corpus, name),
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

async function findSessions(query: string): Promise<string[]> {
  const run = await moon('recall', query, '--json', '--limit', '20');
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as RecallResult).matches.map((match) => match.metadata.session_id);
}

beforeEach(async () => {
  const temp = makeTempDir('moon-forget-');
  root = temp.path;
  cleanup = temp.cleanup;
  home = join(root, 'home');
  corpus = join(root, 'corpus');
  mkdirSync(corpus);
  write('a.jsonl', 'alpha', '/home/dev/shop', '2026-01-05T10:00:00Z', 'the pelican checkout bug in the shop');
  write('b.jsonl', 'beta', '/home/dev/shop', '2026-03-05T10:00:00Z', 'pelican rate limits for the shop api');
  write('c.jsonl', 'gamma', '/home/dev/blog', '2026-01-07T10:00:00Z', 'pelican theme for the blog');
  expect((await moon('index', corpus)).code).toBe(0);
});
afterEach(() => cleanup());

describe('moon forget', () => {
  test('named sessions leave the index, the projections and the raw archive, and no later run brings them back', async () => {
    expect((await findSessions('pelican')).sort()).toEqual(['alpha', 'beta', 'gamma']);
    const projection = join(home, 'archives', 'mlib', 'alpha.md');
    expect(existsSync(projection)).toBe(true);
    const dry = await moon('forget', 'alpha', '--dry-run');
    expect(dry.stdout).toContain('would forget alpha (shop)');
    expect(await findSessions('pelican')).toContain('alpha');

    const run = await moon('forget', 'alpha', '--json');
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { forgotten: { id: string }[]; removed_files: string[] };
    expect(report.forgotten.map((session) => session.id)).toEqual(['alpha']);
    expect(existsSync(projection)).toBe(false);
    expect(report.removed_files.some((path) => path.includes(join('archives', 'raw')))).toBe(true);
    expect((await findSessions('pelican')).sort()).toEqual(['beta', 'gamma']);
    expect(await findSessions('checkout')).toEqual([]);

    // The transcript is still there and even grows: the tombstone keeps it out.
    expect((await moon('index', corpus)).code).toBe(0);
    expect((await moon('index', corpus, '--force')).code).toBe(0);
    expect(await findSessions('checkout')).toEqual([]);
    const ledger = readFileSync(join(home, 'archives', 'ledger.jsonl'), 'utf8');
    expect(ledger).toMatch(/"session_id":"alpha","tombstone":true/);
    expect((await moon('verify')).code).toBe(0);
  });

  test('--project and --before select sessions; criteria narrow each other', async () => {
    const run = await moon('forget', '--project', 'shop', '--before', '2026-02-01');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('forgot alpha (shop)');
    expect((await findSessions('pelican')).sort()).toEqual(['beta', 'gamma']);
    expect((await moon('forget', '--project', 'blog')).code).toBe(0);
    expect(await findSessions('pelican')).toEqual(['beta']);
  });

  test('a rebuild from the raw archive keeps forgotten sessions out', async () => {
    expect((await moon('forget', 'gamma')).code).toBe(0);
    const rebuilt = await moon('rebuild');
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect((await findSessions('pelican')).sort()).toEqual(['alpha', 'beta']);
    expect((await moon('index', corpus, '--force')).code).toBe(0);
    expect((await findSessions('pelican')).sort()).toEqual(['alpha', 'beta']);
  });

  test('without a selector it refuses and changes nothing', async () => {
    const run = await moon('forget');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/needs session ids, --project or --before/);
    expect((await findSessions('pelican')).sort()).toEqual(['alpha', 'beta', 'gamma']);
  });
});
