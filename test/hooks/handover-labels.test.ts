import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { claudePayload, countHookTokens, readAdditionalContext, runHookProcess } from './hook-helpers.js';

/**
 * The handover of the bundled examples' shop project, as a new session gets it: every line true to its label — no
 * user request, command banner or outcome called a decision, no label said twice — within the default budget.
 */
let temp: { path: string; cleanup: () => void };
let env: Record<string, string>;

beforeAll(async () => {
  temp = makeTempDir('moon-handover-');
  const sources = join(temp.path, 'examples');
  cpSync(join(REPO, 'examples'), sources, { recursive: true });
  mkdirSync(join(temp.path, 'home'));
  env = { MOON_HOME: join(temp.path, 'home'), MOON_INDEX_WORKERS: '0' };
  const indexed = await spawnMoon(['index', sources], env);
  expect(indexed.code, indexed.stderr).toBe(0);
}, 120_000);

afterAll(() => temp?.cleanup());

test('the shop handover: decisions are decisions, each said once, and it fits the default 1,500 tokens', async () => {
  const run = await runHookProcess(
    ['hook', 'session-start'],
    claudePayload.sessionStart({ session_id: 'new-session', transcript_path: join(temp.path, 'none.jsonl'), cwd: '/home/dev/shop', source: 'startup' }),
    env,
  );
  expect(run.code).toBe(0);
  const text = readAdditionalContext(run.stdout, 'SessionStart');
  const decisions = text.split('\n').filter((line) => /\bdecision\b.*:|^\s*Decision:/i.test(line));
  expect(decisions.length).toBeGreaterThan(0);
  expect(text).toContain('Decision: STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set with `wrangler secret put`');
  expect(text).not.toMatch(/Decision: Decision:|decision[^:\n]*: Decision:/i);
  for (const line of decisions) {
    expect(line, 'a user request').not.toMatch(/Decision: Let's get/);
    expect(line, 'a command and its output').not.toMatch(/→|⛅/);
    expect(line, 'an outcome').not.toMatch(/Decision: (?:Done|Fixed|fixed|Added|Deployed)\b/);
  }
  expect(countHookTokens(text)).toBeLessThanOrEqual(1500);
}, 60_000);
