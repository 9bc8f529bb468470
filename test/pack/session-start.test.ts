import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeTempDir, spawnMoon } from '../helpers/cli.js';
import { INJECTION_CORPUS, findUnsafe } from '../helpers/injection.js';
import { claudeSession } from '../helpers/transcripts.js';
import { claudePayload, countHookTokens, readAdditionalContext, runHookProcess } from '../hooks/hook-helpers.js';
import { BEADS_ISSUES, writeShopRepo } from './repo.js';
import { resolveNamespace } from '../../src/records/envelope.js';

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
    const listed = context.slice(context.indexOf('Work items (Beads)'), context.indexOf("From moon's memory"));
    expect(listed).not.toContain('shop-b2'); // closed: not a work item to pick up
    // The context pack for the item in progress: it in full (acceptance criteria), and what it depends on.
    const pack = context.slice(context.indexOf("From moon's memory for \"Deploy the shop to Workers\""));
    expect(pack).toContain('- work item shop-c3 [in_progress, P1]: Deploy the shop to Workers');
    expect(pack).toContain('Acceptance criteria: wrangler deploy succeeds');
    expect(pack).toContain('dependency (blocks) shop-b2 [closed, P1]');
    expect(context).toContain('shop-x9');
    expect(findUnsafe(context)).toEqual([]);
    expect(countHookTokens(context)).toBeLessThanOrEqual(1500);
  });

  test('approved long-term memories of the project come with the pack; drafts never; a broken pack still leaves the recent work', async () => {
    const namespace = resolveNamespace(repo).namespace_id;
    const add = async (text: string): Promise<string> => {
      const run = await spawnMoon(['memory', 'add', text, '--namespace', namespace, '--json'], { MOON_HOME: home });
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as { id: string }).id;
    };
    const approved = await add('Deploys of the shop go through CI, never from a laptop');
    await add('Draft: maybe move the shop to Fly.io');
    expect((await spawnMoon(['memory', 'approve', approved, '--namespace', namespace], { MOON_HOME: home })).code).toBe(0);
    const run = await start();
    expect(run.code, run.stderr).toBe(0);
    const context = readAdditionalContext(run.stdout, 'SessionStart');
    expect(context).toContain('- [approved memory] Deploys of the shop go through CI, never from a laptop');
    expect(context).not.toContain('Fly.io');
    expect(countHookTokens(context)).toBeLessThanOrEqual(1500);
    // A pack that raises (Mem0 chosen without its key, and MEMORY_FAIL_OPEN=false) never stops the hook: the
    // recent work is still handed over, without the pack's items.
    const strict = await start({ MEMORY_FAIL_OPEN: 'false', MEMORY_LONG_TERM: 'mem0' });
    expect(strict.code, strict.stderr).toBe(0);
    const recent = readAdditionalContext(strict.stdout, 'SessionStart');
    expect(recent).toContain('Recent work in project');
    expect(recent).not.toContain('[approved memory]');
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
