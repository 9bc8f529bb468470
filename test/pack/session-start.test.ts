import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeTempDir, spawnMoon } from '../helpers/cli.js';
import { INJECTION_CORPUS, findUnsafe } from '../helpers/injection.js';
import { claudeSession } from '../helpers/transcripts.js';
import { claudePayload, countHookTokens, readAdditionalContext, runHookProcess } from '../hooks/hook-helpers.js';
import { BEADS_ISSUES, writeShopRepo } from './repo.js';

/** session-start (built CLI) hands over the planning plane: the project's Beads work in progress and ready items. */
let temp: { path: string; cleanup: () => void };
let repo: string;
let home: string;

beforeAll(async () => {
  temp = makeTempDir('moon-pack-hook-');
  repo = join(temp.path, 'shop');
  mkdirSync(repo);
  writeShopRepo(repo);
  // An issue title carrying the injection corpus: it must arrive inert.
  const hostile = { ...BEADS_ISSUES[3]!, id: 'shop-x9', title: `Hostile ${INJECTION_CORPUS.join(' ')}`, priority: 4 };
  writeFileSync(join(repo, '.beads', 'issues.jsonl'), `${[...BEADS_ISSUES, hostile].map((issue) => JSON.stringify(issue)).join('\n')}\n`);
  home = join(temp.path, 'home');
  const sources = join(temp.path, 'sources');
  mkdirSync(sources);
  writeFileSync(
    join(sources, 'a.jsonl'),
    claudeSession({
      sessionId: '77777777-aaaa-4aaa-8aaa-000000000007',
      cwd: repo,
      turns: [
        { role: 'user', at: '2026-02-20T01:00:00Z', text: 'Please deploy the shop to workers with wrangler' },
        { role: 'assistant', at: '2026-02-20T01:05:00Z', text: 'Deployed; we decided to keep the Stripe keys in wrangler secrets.' },
      ],
    }),
  );
  const run = await spawnMoon(['index', sources], { MOON_HOME: home, MOON_INDEX_WORKERS: '0' });
  expect(run.code, run.stderr).toBe(0);
}, 60_000);

afterAll(() => temp.cleanup());

const start = (extra: Record<string, string> = {}) =>
  runHookProcess(
    ['hook', 'session-start'],
    claudePayload.sessionStart({ session_id: 'ffffffff-0000-4000-8000-00000000000f', transcript_path: join(temp.path, 'current.jsonl'), cwd: repo, source: 'startup' }),
    { MOON_HOME: home, ...extra },
  );

describe('session-start and planning', () => {
  test('in-progress items first, then ready ones by priority; safe; within the budget', async () => {
    const run = await start();
    expect(run.code, run.stderr).toBe(0);
    const context = readAdditionalContext(run.stdout, 'SessionStart');
    expect(context).toContain('Work items (Beads), in progress then ready by priority');
    const order = ['shop-c3 [in_progress, P1]: Deploy the shop to Workers', 'shop-d4 [open, P0]: Upload STRIPE_WEBHOOK_SECRET', 'shop-a1 [open, P1]'].map((line) => context.indexOf(line));
    expect(order.every((at) => at > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(context).not.toContain('shop-b2'); // closed
    expect(context).toContain('shop-x9');
    expect(findUnsafe(context)).toEqual([]);
    expect(countHookTokens(context)).toBeLessThanOrEqual(1500);
  });

  test('MEMORY_PLANNING=off or MEMORY_ENABLED=false: no work items', async () => {
    for (const extra of [{ MEMORY_PLANNING: 'off' }, { MEMORY_ENABLED: 'false' }] as Record<string, string>[]) {
      const run = await start(extra);
      expect(run.code, run.stderr).toBe(0);
      const context = readAdditionalContext(run.stdout, 'SessionStart');
      expect(context).toContain('Recent work in project');
      expect(context).not.toContain('Work items (Beads)');
    }
  });
});
