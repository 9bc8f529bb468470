import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeTempDir, spawnMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';
import { claudePayload, codexPayload, readAdditionalContext, runHookProcess } from './hook-helpers.js';

/**
 * Every hook fails open: whatever goes wrong, exit 0, exactly one line on stderr, nothing on stdout — the agent
 * is never blocked or broken by moon. And a hook never waits long on another process holding the index.
 */
let root: string;
let home: string;
let sources: string;
let cleanup: () => void;
const SESSION = '6a6a6a6a-1111-4222-8333-444455556666';

beforeAll(async () => {
  const temp = makeTempDir('moon-hook-open-');
  cleanup = temp.cleanup;
  root = temp.path;
  home = join(root, 'home');
  sources = join(root, 'sources');
  mkdirSync(sources);
  writeFileSync(
    join(sources, `${SESSION}.jsonl`),
    claudeSession({
      sessionId: SESSION,
      cwd: '/home/dev/kiln',
      turns: [
        { role: 'user', at: '2026-02-02T02:00:00Z', text: 'Why does the kiln controller overshoot by ten degrees?' },
        { role: 'assistant', at: '2026-02-02T02:10:00Z', text: 'We decided to lower the PID gain; the overshoot is fixed.' },
      ],
    }),
  );
  const run = await spawnMoon(['index', sources], { MOON_HOME: home });
  expect(run.code, run.stderr).toBe(0);
});
afterAll(() => cleanup());

function expectFailedOpen(run: { code: number; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(run.code).toBe(0);
  expect(run.stdout).toBe('');
  const lines = run.stderr.split('\n');
  expect(lines.at(-1)).toBe('');
  expect(lines.slice(0, -1), run.stderr).toHaveLength(1);
  expect(run.stderr).toMatch(/^moon hook \S+: /);
  expect(run.stderr).toMatch(pattern);
}

const start = (cwd = '/home/dev/kiln') =>
  claudePayload.sessionStart({ session_id: 'new-session', transcript_path: join(root, 'new.jsonl'), cwd, source: 'startup' });

describe('hooks fail open', () => {
  test('garbage, empty, non-object and wrongly typed stdin', async () => {
    const cases: [string | null, RegExp][] = [
      ['this is not json {', /not JSON/],
      ['', /no hook payload on stdin/],
      [null, /no hook payload on stdin/],
      ['   \n', /no hook payload on stdin/],
      ['[1, 2]', /an array, not a JSON object/],
      ['null', /null, not a JSON object/],
      ['"SessionStart"', /a string, not a JSON object/],
      [JSON.stringify({ session_id: 's', cwd: 42, hook_event_name: 'SessionStart' }), /"cwd" must be a string, got number/],
      [JSON.stringify({ session_id: ['s'], cwd: '/home/dev/kiln', hook_event_name: 'SessionStart' }), /"session_id" must be a string, got an array/],
      [JSON.stringify({ session_id: 's', hook_event_name: 'SessionStart', source: 'startup' }), /no "cwd"/],
      [claudePayload.stop({ session_id: 's', transcript_path: '/x.jsonl', cwd: '/home/dev/kiln' }), /payload is for "Stop", but this is `moon hook session-start`/],
      [`${start()}\u0000\u001b[31m`, /not JSON/],
    ];
    for (const [stdin, pattern] of cases) {
      expectFailedOpen(await runHookProcess(['hook', 'session-start'], stdin, { MOON_HOME: home }), pattern);
    }
  });

  test('an unknown or missing event, extra words, a missing index, a bad config', async () => {
    expectFailedOpen(await runHookProcess(['hook', 'post-tool-use'], start(), { MOON_HOME: home }), /unknown hook event "post-tool-use"/);
    const missing = await runHookProcess(['hook'], start(), { MOON_HOME: home });
    expect(missing).toMatchObject({ code: 0, stdout: '' });
    expect(missing.stderr).toMatch(/^moon hook: no hook event: `moon hook <event>` takes one of session-start, stop, pre-compact, session-end, user-prompt-submit\n$/);
    const extra = await runHookProcess(['hook', 'session-start', '--verbose', 'more'], start(), { MOON_HOME: home });
    expect(extra.stderr).toBe('');
    expect(readAdditionalContext(extra.stdout, 'SessionStart')).toContain('kiln');
    const empty = join(root, 'empty-home');
    expectFailedOpen(await runHookProcess(['hook', 'session-start'], start(), { MOON_HOME: empty }), /no index at .*moon\.db \(run `moon index` first\)/);
    const broken = join(root, 'broken-home');
    mkdirSync(broken);
    writeFileSync(join(broken, 'moon.toml'), '[hooks]\nsession_start_budget_tokens = "lots"\n');
    expectFailedOpen(await runHookProcess(['hook', 'session-start'], start(), { MOON_HOME: broken }), /hooks\.session_start_budget_tokens/);
    expectFailedOpen(await runHookProcess(['hook', 'session-start'], start(), { MOON_HOME: home, MOON_HOOKS_SESSION_START_BUDGET_TOKENS: 'x' }), /MOON_HOOKS_SESSION_START_BUDGET_TOKENS/);
  });

  test('capture hooks: a transcript that does not exist, a Codex session that cannot be found', async () => {
    expectFailedOpen(
      await runHookProcess(['hook', 'stop'], claudePayload.stop({ session_id: 's', transcript_path: join(root, 'gone.jsonl'), cwd: '/x' }), { MOON_HOME: home }),
      /the transcript the hook names does not exist: .*gone\.jsonl/,
    );
    expectFailedOpen(
      await runHookProcess(['hook', 'pre-compact'], codexPayload.preCompact({ session_id: '019c0000-dead-7000-8000-000000000000', transcript_path: null, cwd: '/x', trigger: 'auto' }), {
        MOON_HOME: home,
        MOON_SOURCES: sources,
      }),
      /no transcript for session 019c0000-dead-7000-8000-000000000000 under /,
    );
    expectFailedOpen(
      await runHookProcess(['hook', 'session-end'], JSON.stringify({ hook_event_name: 'SessionEnd', reason: 'other', cwd: '/x' }), { MOON_HOME: home }),
      /neither transcript_path nor session_id/,
    );
  });

  test('a failure is counted, and moon status shows the last one', async () => {
    const status = JSON.parse((await spawnMoon(['status', '--json'], { MOON_HOME: home })).stdout) as {
      hooks: { last_failure: { event: string; message: string } | null; days: { event: string; failures: number }[] };
    };
    expect(status.hooks.last_failure?.message).toBeTruthy();
    expect(status.hooks.days.find((line) => line.event === 'session-start')?.failures).toBeGreaterThan(5);
    const text = (await spawnMoon(['status'], { MOON_HOME: home })).stdout;
    expect(text).toMatch(/^ {2}last failure: \S+ at \d{4}-.* — .+$/m);
  });

  test('another process writing the index: session-start answers at once; stop hands the capture to a detached process', async () => {
    const db = new Database(join(home, 'moon.db'));
    db.pragma('busy_timeout = 100');
    db.exec('BEGIN IMMEDIATE');
    try {
      const started = await runHookProcess(['hook', 'session-start'], start(), { MOON_HOME: home });
      expect(started.stderr).toBe('');
      expect(readAdditionalContext(started.stdout, 'SessionStart')).toContain('lower the PID gain');
      expect(started.ms).toBeLessThan(5_000);

      const later = join(sources, `${SESSION}-later.jsonl`);
      writeFileSync(
        later,
        claudeSession({
          sessionId: 'busy-index-session',
          cwd: '/home/dev/kiln',
          turns: [
            { role: 'user', at: '2026-02-03T02:00:00Z', text: 'Log the thermocouple readings every second' },
            { role: 'assistant', at: '2026-02-03T02:10:00Z', text: 'The thermocouple readings are logged every second now.' },
          ],
        }),
      );
      const stop = await runHookProcess(['hook', 'stop'], claudePayload.stop({ session_id: 'busy-index-session', transcript_path: later, cwd: '/home/dev/kiln' }), { MOON_HOME: home });
      expect(stop).toMatchObject({ code: 0, stdout: '', stderr: '' });
      // Waited its share (a few seconds), not index.lock_timeout_ms.
      expect(stop.ms).toBeLessThan(15_000);
    } finally {
      db.exec('ROLLBACK');
      db.close();
    }
    // The detached process was waiting for the lock: now it indexes the transcript.
    const deadline = Date.now() + 30_000;
    let found = false;
    while (!found && Date.now() < deadline) {
      const recall = await spawnMoon(['recall', 'thermocouple', '--json'], { MOON_HOME: home });
      found = recall.stdout.includes('busy-index-session');
      if (!found) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(found).toBe(true);
  });
});
