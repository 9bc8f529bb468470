import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HISTORY_FRAME_CLOSE, HISTORY_FRAME_OPEN } from '../../src/inject/safe-text.js';
import { makeTempDir, spawnMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';
import { claudePayload, codexPayload, countHookTokens, readAdditionalContext, runHookProcess } from './hook-helpers.js';

/**
 * session-start through the built CLI, with payloads in each client's documented shape: the recent work of the
 * payload's project, newest first, within the budget, framed — and nothing for a folder moon knows nothing of.
 */
let root: string;
let home: string;
let cleanup: () => void;
const env = (extra: Record<string, string> = {}): Record<string, string> => ({ MOON_HOME: home, ...extra });

const OLD = '11111111-aaaa-4aaa-8aaa-000000000001';
const MID = '22222222-bbbb-4bbb-8bbb-000000000002';
const NEW = '33333333-cccc-4ccc-8ccc-000000000003';
const TREE = '44444444-dddd-4ddd-8ddd-000000000004';
const BLOG = '55555555-eeee-4eee-8eee-000000000005';

function shopSession(id: string, day: string, topic: string, decision: string, file: string): string {
  return claudeSession({
    sessionId: id,
    cwd: '/home/dev/shop',
    turns: [
      { role: 'user', at: `${day}T01:00:00Z`, text: `Please look into the ${topic} problem in the shop checkout` },
      {
        role: 'assistant',
        at: `${day}T01:05:00Z`,
        text: `Editing ${file} for the ${topic} fix.`,
        tool: { name: 'Edit', input: { file_path: `/home/dev/shop/${file}`, old_string: 'a', new_string: 'b' }, result: `The file /home/dev/shop/${file} has been updated.` },
      },
      { role: 'assistant', at: `${day}T01:20:00Z`, text: `${decision} The ${topic} problem is fixed and the cart tests pass now.` },
    ],
  });
}

beforeAll(async () => {
  const temp = makeTempDir('moon-hook-start-');
  cleanup = temp.cleanup;
  root = temp.path;
  home = join(root, 'home');
  const sources = join(root, 'sources');
  mkdirSync(sources, { recursive: true });
  writeFileSync(join(sources, `${OLD}.jsonl`), shopSession(OLD, '2026-02-01', 'rounding', 'We decided to round totals half-even instead of half-up.', 'src/money.ts'));
  writeFileSync(join(sources, `${MID}.jsonl`), shopSession(MID, '2026-02-10', 'coupon', 'We decided to keep coupons in the cart session.', 'src/coupon.ts'));
  writeFileSync(join(sources, `${NEW}.jsonl`), shopSession(NEW, '2026-02-20', 'wrangler', 'We decided to pin wrangler to 3.x instead of latest.', 'wrangler.toml'));
  writeFileSync(
    join(sources, `${TREE}.jsonl`),
    claudeSession({
      sessionId: TREE,
      cwd: '/home/dev/shop/.claude/worktrees/agent-7',
      turns: [
        { role: 'user', at: '2026-02-15T03:00:00Z', text: 'In this worktree, try the new currency formatter for the shop' },
        { role: 'assistant', at: '2026-02-15T03:10:00Z', text: 'The currency formatter works now in the worktree branch.' },
      ],
    }),
  );
  writeFileSync(
    join(sources, `${BLOG}.jsonl`),
    claudeSession({
      sessionId: BLOG,
      cwd: '/home/dev/blog',
      turns: [
        { role: 'user', at: '2026-02-21T05:00:00Z', text: 'Write the release notes post for the blog' },
        { role: 'assistant', at: '2026-02-21T05:30:00Z', text: 'We decided to publish the blog post on Friday.' },
      ],
    }),
  );
  const run = await spawnMoon(['index', sources], { MOON_HOME: home });
  expect(run.code, run.stderr).toBe(0);
  writeFileSync(
    join(home, 'MEMORY.md'),
    [
      '# MEMORY',
      '',
      '## Lessons Learned',
      '',
      '- shop: the payment sandbox rejects amounts under 50 cents',
      '- blog: images must be under 1 MB',
      '',
      '## User Preferences',
      '',
      '- (none yet)',
      '',
      '## Durable Decisions & Context',
      '',
      '- The shop deploys with wrangler from /home/dev/shop only',
      '- workshop notes are unrelated',
      '',
    ].join('\n'),
  );
});
afterAll(() => cleanup());

const start = (cwd: string, source = 'startup', session = 'ffffffff-0000-4000-8000-00000000000f', extra: Record<string, string> = {}) =>
  runHookProcess(['hook', 'session-start'], claudePayload.sessionStart({ session_id: session, transcript_path: join(root, 'current.jsonl'), cwd, source }), env(extra));

describe('moon hook session-start', () => {
  test('Claude Code startup: the project\'s last sessions, newest first, with outcomes, decisions, changed files and MEMORY.md lines', async () => {
    const run = await start('/home/dev/shop');
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const context = readAdditionalContext(run.stdout, 'SessionStart');
    expect(context.startsWith(`${HISTORY_FRAME_OPEN}\n`)).toBe(true);
    expect(context.endsWith(`\n${HISTORY_FRAME_CLOSE}`)).toBe(true);
    expect(context).toContain('Recent work in project "shop" (/home/dev/shop):');
    const order = [NEW, TREE, MID, OLD].map((id) => context.indexOf(`session ${id.slice(0, 8)}`));
    expect(order.every((at) => at > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(context).not.toContain(BLOG.slice(0, 8));
    expect(context).toContain('2026-02-20 01:00–01:20 UTC');
    expect(context).toContain('"Please look into the wrangler problem in the shop checkout"');
    expect(context).toContain('Decision: We decided to pin wrangler to 3.x instead of latest.');
    expect(context).toContain('Outcome: We decided to pin wrangler to 3.x instead of latest. The wrangler problem is fixed');
    expect(context).toContain('Changed: wrangler.toml');
    expect(context).toContain('From MEMORY.md, lines about shop:');
    expect(context).toContain('- shop: the payment sandbox rejects amounts under 50 cents');
    expect(context).toContain('- The shop deploys with wrangler from /home/dev/shop only');
    expect(context).not.toContain('workshop');
    expect(context).not.toContain('blog: images');
    expect(countHookTokens(context)).toBeLessThanOrEqual(1500);
  });

  test('a cwd inside the project, or in one of its worktrees, is the project', async () => {
    for (const cwd of ['/home/dev/shop/src/lib', '/home/dev/shop/.claude/worktrees/agent-9/src']) {
      const run = await start(cwd);
      expect(run.stderr).toBe('');
      const context = readAdditionalContext(run.stdout, 'SessionStart');
      expect(context).toContain('Recent work in project "shop" (/home/dev/shop):');
      expect(context).toContain(`session ${NEW.slice(0, 8)}`);
    }
  });

  test('nothing known about the folder: no output at all, exit 0', async () => {
    for (const cwd of ['/home/dev/unknown-project', '/srv/elsewhere']) {
      const run = await start(cwd);
      expect(run).toMatchObject({ code: 0, stdout: '', stderr: '' });
    }
  });

  test('resume leaves the resumed session out (it is in the context already); compact puts its own last decisions first', async () => {
    const resumed = readAdditionalContext((await start('/home/dev/shop', 'resume', NEW)).stdout, 'SessionStart');
    expect(resumed).not.toContain(`session ${NEW.slice(0, 8)}`);
    expect(resumed).toContain(`session ${MID.slice(0, 8)}`);
    expect(resumed).not.toContain('before compaction');

    const compacted = readAdditionalContext((await start('/home/dev/shop', 'compact', NEW)).stdout, 'SessionStart');
    const own = compacted.indexOf(`This session (${NEW.slice(0, 8)}) before compaction`);
    expect(own).toBeGreaterThan(0);
    expect(compacted.indexOf('Decision: We decided to pin wrangler to 3.x', own)).toBeGreaterThan(own);
    expect(compacted.indexOf('Earlier sessions in this project, newest first:')).toBeGreaterThan(own);
    expect(compacted).not.toContain(`session ${NEW.slice(0, 8)}`);
  });

  test('Codex SessionStart (transcript_path null) gets the same JSON', async () => {
    const run = await runHookProcess(
      ['hook', 'session-start'],
      codexPayload.sessionStart({ session_id: '019c0000-0000-7000-8000-000000000001', transcript_path: null, cwd: '/home/dev/blog', source: 'startup' }),
      env(),
    );
    expect(run.stderr).toBe('');
    const context = readAdditionalContext(run.stdout, 'SessionStart');
    expect(context).toContain('Recent work in project "blog" (/home/dev/blog):');
    expect(context).toContain('- blog: images must be under 1 MB');
    expect(context).not.toContain('shop');
  });

  test('the budget holds, counted with the tokenizer (the hook estimates from above); a small budget keeps the newest first; 0 turns it off', async () => {
    for (const budget of [200, 300, 600]) {
      const run = await start('/home/dev/shop', 'startup', undefined, { MOON_HOOKS_SESSION_START_BUDGET_TOKENS: String(budget) });
      expect(run.stderr).toBe('');
      const context = readAdditionalContext(run.stdout, 'SessionStart');
      expect(countHookTokens(context)).toBeLessThanOrEqual(budget);
      expect(context).toContain(`session ${NEW.slice(0, 8)}`);
    }
    const tight = readAdditionalContext((await start('/home/dev/shop', 'startup', undefined, { MOON_HOOKS_SESSION_START_BUDGET_TOKENS: '200' })).stdout, 'SessionStart');
    expect(tight).not.toContain(`session ${OLD.slice(0, 8)}`);
    const off = await start('/home/dev/shop', 'startup', undefined, { MOON_HOOKS_SESSION_START_BUDGET_TOKENS: '0' });
    expect(off).toMatchObject({ code: 0, stdout: '', stderr: '' });
    // Too small for even the frame and one session: nothing, rather than a frame with nothing in it.
    const tiny = await start('/home/dev/shop', 'startup', undefined, { MOON_HOOKS_SESSION_START_BUDGET_TOKENS: '20' });
    expect(tiny).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  test('tokens injected are counted per hook per day and shown by moon status', async () => {
    const status = await spawnMoon(['status', '--json'], { MOON_HOME: home });
    const report = JSON.parse(status.stdout) as { hooks: { days: { day: string; event: string; runs: number; injections: number; tokens: number }[] } };
    const line = report.hooks.days.find((item) => item.event === 'session-start');
    expect(line?.injections).toBeGreaterThan(0);
    expect(line?.tokens).toBeGreaterThan(100);
    expect(line?.runs).toBeGreaterThan(line?.injections ?? 0);
    const text = await spawnMoon(['status'], { MOON_HOME: home });
    expect(text.stdout).toMatch(/^hooks: tokens injected per hook per day\n {2}\d{4}-\d{2}-\d{2}: session-start \d+ tokens \(\d+\/\d+ runs\)/m);
  });
});
