import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { claudePayload, countHookTokens, readAdditionalContext, runHookProcess } from './hook-helpers.js';

/** user-prompt-submit: off by default; on, a small recall for the prompt from this project, bounded and framed. */
let home: string;
let cleanup: () => void;

beforeAll(async () => {
  const temp = makeTempDir('moon-hook-prompt-');
  cleanup = temp.cleanup;
  home = join(temp.path, 'home');
  const run = await spawnMoon(['index', join(REPO, 'examples')], { MOON_HOME: home });
  expect(run.code, run.stderr).toBe(0);
});
afterAll(() => cleanup());

const prompt = (text: string, cwd = '/home/dev/shop') =>
  claudePayload.userPromptSubmit({ session_id: 'current-one', transcript_path: '/tmp/current.jsonl', cwd, prompt: text });
const on = { MOON_HOOKS_USER_PROMPT_RECALL: 'true' };

describe('moon hook user-prompt-submit', () => {
  test('off by default: nothing on stdout or stderr, and the run is counted', async () => {
    const run = await runHookProcess(['hook', 'user-prompt-submit'], prompt('how do we set the stripe webhook secret?'), { MOON_HOME: home });
    expect(run).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  test('on: the project\'s earlier sessions that mention the prompt, within hooks.user_prompt_budget_tokens', async () => {
    const run = await runHookProcess(['hook', 'user-prompt-submit'], prompt('how do we set the stripe webhook secret?'), { MOON_HOME: home, ...on });
    expect(run.stderr).toBe('');
    const context = readAdditionalContext(run.stdout, 'UserPromptSubmit');
    expect(context).toContain('Earlier sessions in project "shop"');
    expect(context).toMatch(/STRIPE_WEBHOOK_SECRET|webhook/i);
    expect(context).not.toContain('ledger-api');
    expect(countHookTokens(context)).toBeLessThanOrEqual(400);
    const small = await runHookProcess(['hook', 'user-prompt-submit'], prompt('how do we set the stripe webhook secret?'), {
      MOON_HOME: home,
      ...on,
      MOON_HOOKS_USER_PROMPT_BUDGET_TOKENS: '150',
    });
    expect(countHookTokens(readAdditionalContext(small.stdout, 'UserPromptSubmit'))).toBeLessThanOrEqual(150);
  });

  test('nothing for a prompt too short to search, a slash command, or words no session has', async () => {
    for (const text of ['ok', '/compact', 'thanks!', 'zyxwvut qqqqqq plover']) {
      const run = await runHookProcess(['hook', 'user-prompt-submit'], prompt(text), { MOON_HOME: home, ...on });
      expect(run, text).toMatchObject({ code: 0, stdout: '', stderr: '' });
    }
  });

  test('a payload without a prompt fails open', async () => {
    const run = await runHookProcess(['hook', 'user-prompt-submit'], JSON.stringify({ session_id: 's', cwd: '/home/dev/shop', hook_event_name: 'UserPromptSubmit' }), { MOON_HOME: home, ...on });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^moon hook user-prompt-submit: the UserPromptSubmit payload has no "prompt"\n$/);
  });
});
