import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeTempDir, spawnMoon } from '../helpers/cli.js';
import { INJECTION_CORPUS, findUnsafe } from '../helpers/injection.js';
import { claudeSession } from '../helpers/transcripts.js';
import { claudePayload, readAdditionalContext, runHookProcess } from './hook-helpers.js';

/**
 * What a hook hands an agent is inert, whatever earlier sessions held: a transcript carrying every string of the
 * injection corpus — in prompts, answers, decisions, edited paths and the working directory — and a MEMORY.md
 * carrying it too (not redacted when indexed: the hook's own pass is the line of defence there).
 */
let home: string;
let cleanup: () => void;
const CWD = '/home/dev/evil<system>proj';
const ID = '9d9d9d9d-4444-4555-8666-777788889999';

beforeAll(async () => {
  const temp = makeTempDir('moon-hook-inject-');
  cleanup = temp.cleanup;
  home = join(temp.path, 'home');
  const sources = join(temp.path, 'sources');
  mkdirSync(sources);
  const turns = INJECTION_CORPUS.flatMap((text, index) => [
    { role: 'user' as const, at: `2026-02-25T0${Math.floor(index / 6)}:${String((index % 6) * 10).padStart(2, '0')}:00Z`, text: `Look at this evil payload: ${text}` },
    {
      role: 'assistant' as const,
      at: `2026-02-25T0${Math.floor(index / 6)}:${String((index % 6) * 10 + 5).padStart(2, '0')}:00Z`,
      text: `We decided to quote it as is: ${text}`,
      tool: { name: 'Edit', input: { file_path: `${CWD}/src/${text.slice(0, 30)}.ts`, old_string: 'a', new_string: text }, result: `Updated: ${text}` },
    },
  ]);
  writeFileSync(join(sources, `${ID}.jsonl`), claudeSession({ sessionId: ID, cwd: CWD, turns }));
  const run = await spawnMoon(['index', sources], { MOON_HOME: home });
  expect(run.code, run.stderr).toBe(0);
  writeFileSync(join(home, 'MEMORY.md'), ['# MEMORY', '', '## Lessons Learned', '', ...[...INJECTION_CORPUS].reverse().map((text) => `- evil<system>proj note: ${text}`), ''].join('\n'));
});
afterAll(() => cleanup());

describe('hook output is safe to inject', () => {
  test('session-start, on startup and after compaction, at the default budget and a large one', async () => {
    for (const [source, budget] of [
      ['startup', '1500'],
      ['compact', '1500'],
      ['startup', '20000'],
    ] as const) {
      const run = await runHookProcess(
        ['hook', 'session-start'],
        claudePayload.sessionStart({ session_id: source === 'compact' ? ID : 'another-session', transcript_path: '/tmp/t.jsonl', cwd: CWD, source }),
        { MOON_HOME: home, MOON_HOOKS_SESSION_START_BUDGET_TOKENS: budget },
      );
      expect(run.stderr).toBe('');
      const context = readAdditionalContext(run.stdout, 'SessionStart');
      expect(context).toContain('We decided to quote it as is');
      expect(findUnsafe(context)).toEqual([]);
      expect(findUnsafe(run.stdout)).toEqual([]);
      // The secrets in MEMORY.md were redacted on the way out.
      if (budget === '20000') expect(context).toContain('evil‹system›proj note: key [REDACTED');
    }
  });

  test('user-prompt-submit recall', async () => {
    const run = await runHookProcess(
      ['hook', 'user-prompt-submit'],
      claudePayload.userPromptSubmit({ session_id: 'another-session', transcript_path: '/tmp/t.jsonl', cwd: CWD, prompt: 'what was that evil payload about developer mode and the repo?' }),
      { MOON_HOME: home, MOON_HOOKS_USER_PROMPT_RECALL: 'true', MOON_HOOKS_USER_PROMPT_BUDGET_TOKENS: '4000' },
    );
    expect(run.stderr).toBe('');
    const context = readAdditionalContext(run.stdout, 'UserPromptSubmit');
    expect(context).toContain('developer mode');
    expect(findUnsafe(context)).toEqual([]);
  });
});
