import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { makeTempDir, runMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

let home: string;
let corpus: string;
let cleanup: () => void;

beforeAll(async () => {
  const temp = makeTempDir();
  cleanup = temp.cleanup;
  home = join(temp.path, 'home');
  corpus = join(temp.path, 'projects');
  mkdirSync(join(corpus, '-home-dev-shop'), { recursive: true });
  mkdirSync(join(corpus, '-home-dev-api'), { recursive: true });
  writeFileSync(
    join(corpus, '-home-dev-shop', 'sess-a.jsonl'),
    claudeSession({
      sessionId: 'sess-a',
      cwd: '/home/dev/shop',
      turns: [
        { role: 'user', at: '2026-02-20T18:39:00Z', id: 'a-1', text: 'How do I deploy the shop app to Cloudflare with wrangler?' },
        { role: 'assistant', at: '2026-02-20T18:39:30Z', id: 'a-2', text: 'Run npm run build first, then npx wrangler deploy. We decided to keep secrets in wrangler secrets.' },
        { role: 'assistant', at: '2026-02-20T18:41:00Z', id: 'a-3', tool: { name: 'Bash', input: { command: 'npx wrangler deploy' }, result: 'Deployed shop to https://shop.example.workers.dev' } },
        { role: 'assistant', at: '2026-02-20T18:45:00Z', id: 'a-4', tool: { name: 'Edit', input: { file_path: '/home/dev/shop/wrangler.toml', old_string: 'name = "x"', new_string: 'name = "shop"' }, result: 'The file wrangler.toml has been updated.' } },
      ],
    }),
  );
  writeFileSync(
    join(corpus, '-home-dev-api', 'sess-b.jsonl'),
    claudeSession({
      sessionId: 'sess-b',
      cwd: '/home/dev/api',
      turns: [
        { role: 'user', at: '2026-03-05T09:00:00Z', id: 'b-1', text: 'The postgres migration test is flaky, please investigate it' },
        { role: 'assistant', at: '2026-03-05T09:01:00Z', id: 'b-2', tool: { name: 'Read', input: { file_path: '/home/dev/api/test/migrate.test.ts' }, result: 'import { migrate } from "../src/migrate"; test("migration runs", ...)' } },
        { role: 'assistant', at: '2026-03-05T09:05:00Z', id: 'b-3', text: 'The flaky migration test depends on timing; I changed it to await the pool before the deploy step.' },
      ],
    }),
  );
  writeFileSync(
    join(corpus, '-home-dev-shop', 'sess-c.jsonl'),
    claudeSession({
      sessionId: 'sess-c',
      cwd: '/home/dev/shop',
      turns: [
        { role: 'user', at: '2026-03-10T22:00:00Z', id: 'c-1', text: 'Let us add a staging environment for the wrangler deploy' },
        { role: 'assistant', at: '2026-03-10T22:02:00Z', id: 'c-2', text: 'Added an env.staging block to wrangler.toml so staging deploys are separate.' },
      ],
    }),
  );
  const indexed = await runMoon(['index', corpus, '--home', home, '--json']);
  expect(indexed.code, indexed.stderr).toBe(0);
});

afterAll(() => cleanup());

async function recallJson(...args: string[]): Promise<RecallResult> {
  const run = await runMoon(['recall', ...args, '--home', home, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as RecallResult;
}

const sessionsOf = (result: RecallResult): string[] => result.matches.map((match) => match.metadata.session_id);

describe('moon recall', () => {
  test('JSON output is the RecallResult contract, with the scope it ran in (as on every door); notes only when there are some', async () => {
    const result = await recallJson('wrangler deploy');
    expect(Object.keys(result).sort()).toEqual(['generated_at_epoch_secs', 'matches', 'query', 'scope']);
    expect(result.query).toBe('wrangler deploy');
    expect(Number.isInteger(result.generated_at_epoch_secs)).toBe(true);
    for (const match of result.matches) {
      expect(Object.keys(match).sort()).toEqual(['archive_path', 'metadata', 'score', 'snippet']);
      expect(match.archive_path).toMatch(/archives\/mlib\/sess-[abc]\.md$/);
      expect(typeof match.score).toBe('number');
      expect(match.metadata.message_ids.length).toBe(match.metadata.timestamps.length);
      expect(match.metadata.roles.length).toBe(match.metadata.message_ids.length);
    }
    expect(sessionsOf(result)).toContain('sess-a');
    expect(sessionsOf(result)).toContain('sess-c');
    const scores = result.matches.map((match) => match.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  test('message ids are the records’ own ids, in rank order', async () => {
    const result = await recallJson('wrangler', '--session', 'sess-a');
    expect(result.matches).toHaveLength(1);
    const ids = result.matches[0]!.metadata.message_ids;
    expect(ids.length).toBeGreaterThan(1);
    for (const id of ids) expect(['a-1', 'a-2', 'a-3', 'a-4']).toContain(id);
    expect(result.matches[0]!.metadata.source).toBe('claude-code');
    expect(result.matches[0]!.metadata.project).toBe('shop');
  });

  test('order is deterministic', async () => {
    const first = await recallJson('deploy');
    const second = await recallJson('deploy');
    expect(first.matches).toEqual(second.matches);
  });

  test('--group message returns one match per entry', async () => {
    const result = await recallJson('deploy', '--group', 'message', '--limit', '20');
    expect(result.matches.length).toBeGreaterThan(3);
    for (const match of result.matches) expect(match.metadata.message_ids).toHaveLength(1);
    const ids = result.matches.map((match) => match.metadata.message_ids[0]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('--limit bounds the sessions returned', async () => {
    expect((await recallJson('deploy', '--limit', '1')).matches).toHaveLength(1);
  });

  test('--require and --exclude filter messages', async () => {
    const required = await recallJson('wrangler', '--require', 'staging', '--group', 'message');
    expect(required.matches.length).toBeGreaterThan(0);
    for (const match of required.matches) expect(match.metadata.session_id).toBe('sess-c');
    const excluded = await recallJson('wrangler', '--exclude', 'staging', '--group', 'message');
    expect(excluded.matches.length).toBeGreaterThan(0);
    for (const match of excluded.matches) expect(match.snippet.toLowerCase()).not.toContain('staging');
  });

  test('--project keeps one project', async () => {
    const result = await recallJson('deploy', '--project', 'api');
    expect(sessionsOf(result)).toEqual(['sess-b']);
  });

  test('--role and --tool filter by who acted', async () => {
    const users = await recallJson('deploy', '--role', 'user', '--group', 'message');
    expect(users.matches.length).toBeGreaterThan(0);
    for (const match of users.matches) expect(match.metadata.roles).toEqual(['user']);
    const bash = await recallJson('wrangler', '--tool', 'Bash', '--group', 'message');
    expect(bash.matches.map((match) => match.metadata.message_ids[0])).toEqual(['a-3']);
    expect(bash.matches[0]!.snippet).toContain('Deployed shop');
  });

  test('--since and --until bound time', async () => {
    const march = await recallJson('deploy', '--since', '2026-03-01', '--until', '2026-03-08');
    expect(sessionsOf(march)).toEqual(['sess-b']);
    const late = await recallJson('deploy', '--since', '2026-03-10T21:00:00Z');
    expect(sessionsOf(late)).toEqual(['sess-c']);
  });

  test('--exclude-session and MOON_CURRENT_SESSION_ID hide a session', async () => {
    const flagged = await recallJson('wrangler', '--exclude-session', 'sess-a');
    expect(sessionsOf(flagged)).not.toContain('sess-a');
    const run = await runMoon(['recall', 'wrangler', '--home', home, '--json'], { MOON_CURRENT_SESSION_ID: 'sess-c' });
    expect(sessionsOf(JSON.parse(run.stdout) as RecallResult)).not.toContain('sess-c');
  });

  test('--batch reads one query per line and writes one RecallResult per line', async () => {
    const temp = makeTempDir();
    try {
      const file = join(temp.path, 'queries.jsonl');
      writeFileSync(
        file,
        [
          JSON.stringify({ query: 'wrangler', limit: 1 }),
          JSON.stringify({ query: 'flaky migration', group: 'message', limit: 2 }),
          JSON.stringify({ query: 'deploy', project: 'api' }),
        ].join('\n'),
      );
      const run = await runMoon(['recall', '--batch', file, '--home', home]);
      expect(run.code, run.stderr).toBe(0);
      const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as RecallResult);
      expect(lines).toHaveLength(3);
      expect(lines[0]!.matches).toHaveLength(1);
      expect(lines[1]!.matches.length).toBeLessThanOrEqual(2);
      expect(lines[1]!.matches[0]!.metadata.session_id).toBe('sess-b');
      expect(sessionsOf(lines[2]!)).toEqual(['sess-b']);
      const stdin = await runMoon(['recall', '--batch', '-', '--home', home], {}, `${JSON.stringify({ query: 'staging' })}\n`);
      expect(sessionsOf(JSON.parse(stdin.stdout.trim()) as RecallResult)).toEqual(['sess-c']);
    } finally {
      temp.cleanup();
    }
  });

  test('a bad batch line is reported with file:line and the rest still runs', async () => {
    const temp = makeTempDir();
    try {
      const file = join(temp.path, 'q.jsonl');
      writeFileSync(file, `${JSON.stringify({ query: 'wrangler' })}\n{oops\n${JSON.stringify({ query: 'staging' })}\n`);
      const run = await runMoon(['recall', '--batch', file, '--home', home]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`${file}:2`);
      expect(run.stdout.trim().split('\n')).toHaveLength(3);
    } finally {
      temp.cleanup();
    }
  });

  test('hostile query text never raises a search syntax error', async () => {
    for (const query of ['"unbalanced', 'NEAR(a b', 'a AND OR NOT', '*', 'col:value', '(((', 'wrangler.toml', '-deploy', '^$%']) {
      const run = await runMoon(['recall', '--home', home, '--json', '--', query]);
      expect(run.code, `${query}: ${run.stderr}`).toBe(0);
      expect(JSON.parse(run.stdout).query).toBe(query);
    }
  });

  test('bad flags exit 2 with the flag named', async () => {
    const role = await runMoon(['recall', 'x', '--role', 'robot', '--home', home]);
    expect(role.code).toBe(2);
    expect(role.stderr).toContain('--role');
    const since = await runMoon(['recall', 'x', '--since', 'yesterday-ish', '--home', home]);
    expect(since.code).toBe(2);
    expect(since.stderr).toContain('--since');
    const limit = await runMoon(['recall', 'x', '--limit', '0', '--home', home]);
    expect(limit.code).toBe(2);
  });

  test('recall without an index says so', async () => {
    const temp = makeTempDir();
    try {
      const run = await runMoon(['recall', 'x', '--home', temp.path]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('moon index');
    } finally {
      temp.cleanup();
    }
  });

  test('human output shows sessions and their messages', async () => {
    const run = await runMoon(['recall', 'wrangler', '--home', home]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('sess-a');
    expect(run.stdout).toMatch(/\[(user|assistant|tool:\w+)\]/);
    expect(run.stdout).toMatch(/Found matches in \d+ sessions?/);
  });
});
