import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { makeTempDir, spawnMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';
import { claudePayload, codexPayload, codexRollout, runHookProcess } from './hook-helpers.js';

/**
 * stop, pre-compact and session-end capture the transcript the payload names (snapshot + index): Claude Code
 * gives its path; Codex may give null, and the rollout is found by session id under the source roots.
 * session-end returns at once and a detached process does the work, then exits.
 */
let root: string;
let home: string;
let cleanup: () => void;
const CLAUDE_ID = '7b7b7b7b-2222-4333-8444-555566667777';
const CODEX_ID = '019c9d3e-5b2a-7e4d-c6f7-3a9b0c1d2e4f';

beforeAll(() => {
  const temp = makeTempDir('moon-hook-capture-');
  cleanup = temp.cleanup;
  root = temp.path;
  // No index yet: the first capture makes it.
  home = join(root, 'home');
});
afterAll(() => cleanup());

async function recall(query: string): Promise<RecallResult> {
  const run = await spawnMoon(['recall', query, '--json'], { MOON_HOME: home });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as RecallResult;
}

/** Sessions recall finds for the query; none while the index does not exist yet (a detached capture makes it). */
async function recalledSessions(query: string): Promise<string[]> {
  const run = await spawnMoon(['recall', query, '--json'], { MOON_HOME: home });
  if (run.code !== 0) return [];
  return (JSON.parse(run.stdout) as RecallResult).matches.map((match) => match.metadata.session_id);
}

async function eventually(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('capture hooks', () => {
  test('Claude Code Stop returns at once and a detached process indexes the transcript (making the index); PreCompact indexes the turns since before it returns', async () => {
    const folder = join(root, 'claude', 'projects', '-home-dev-glaze');
    mkdirSync(folder, { recursive: true });
    const transcript = join(folder, `${CLAUDE_ID}.jsonl`);
    writeFileSync(
      transcript,
      claudeSession({
        sessionId: CLAUDE_ID,
        cwd: '/home/dev/glaze',
        turns: [
          { role: 'user', at: '2026-02-22T01:00:00Z', id: 'g1', text: 'The celadon glaze crawls on the test tiles, why?' },
          { role: 'assistant', at: '2026-02-22T01:02:00Z', id: 'g2', text: 'Crawling comes from dust under the glaze: wipe the bisque first.' },
        ],
      }),
    );
    const stop = await runHookProcess(['hook', 'stop'], claudePayload.stop({ session_id: CLAUDE_ID, transcript_path: transcript, cwd: '/home/dev/glaze' }), { MOON_HOME: home });
    expect(stop).toMatchObject({ code: 0, stdout: '', stderr: '' });
    await eventually(async () => (await recalledSessions('celadon')).includes(CLAUDE_ID));
    expect(await recalledSessions('celadon')).toEqual([CLAUDE_ID]);
    // The detached capture counts the Stop run it took over.
    await eventually(async () => {
      const state = JSON.parse(readFileSync(join(home, 'state', 'hooks.json'), 'utf8')) as { days: Record<string, Record<string, { runs: number }>> };
      return Object.values(state.days).some((day) => (day.stop?.runs ?? 0) >= 1);
    });

    appendFileSync(
      transcript,
      claudeSession({
        sessionId: CLAUDE_ID,
        cwd: '/home/dev/glaze',
        turns: [
          { role: 'user', at: '2026-02-22T01:30:00Z', id: 'g3', text: 'And the pinholes in the tenmoku?' },
          { role: 'assistant', at: '2026-02-22T01:31:00Z', id: 'g4', text: 'Pinholes in tenmoku: hold the peak temperature ten minutes longer.' },
        ],
      }).replace('"parentUuid":null', '"parentUuid":"g2"'),
    );
    const compact = await runHookProcess(
      ['hook', 'pre-compact'],
      claudePayload.preCompact({ session_id: CLAUDE_ID, transcript_path: transcript, cwd: '/home/dev/glaze', trigger: 'auto' }),
      { MOON_HOME: home },
    );
    expect(compact).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect((await recall('tenmoku pinholes')).matches[0]?.metadata.session_id).toBe(CLAUDE_ID);
  });

  test('Codex Stop and PreCompact with transcript_path null: the rollout is found by session id under the configured roots', async () => {
    const codexRoot = join(root, 'codex-sessions');
    const day = join(codexRoot, '2026', '02', '23');
    mkdirSync(day, { recursive: true });
    // Older day folders are searched after the newest.
    mkdirSync(join(codexRoot, '2026', '01', '05'), { recursive: true });
    writeFileSync(join(codexRoot, '2026', '01', '05', 'rollout-2026-01-05T08-00-00-019c0000-0000-7000-8000-0000000000aa.jsonl'), '');
    const rollout = join(day, `rollout-2026-02-23T09-00-00-${CODEX_ID}.jsonl`);
    writeFileSync(
      rollout,
      codexRollout({
        sessionId: CODEX_ID,
        cwd: '/home/dev/ledger-api',
        turns: [
          { role: 'user', at: '2026-02-23T09:00:05Z', text: 'Add idempotency keys to the refund endpoint' },
          { role: 'assistant', at: '2026-02-23T09:04:00Z', text: 'Refunds now take an idempotency key; a replay returns the first result.' },
        ],
      }),
    );
    const env = { MOON_HOME: home, MOON_SOURCES: codexRoot };
    const stop = await runHookProcess(['hook', 'stop'], codexPayload.stop({ session_id: CODEX_ID, transcript_path: null, cwd: '/home/dev/ledger-api' }), env);
    expect(stop).toMatchObject({ code: 0, stdout: '', stderr: '' });
    await eventually(async () => (await recalledSessions('idempotency refund'))[0] === CODEX_ID);

    appendFileSync(
      rollout,
      `${JSON.stringify({ timestamp: '2026-02-23T09:10:00Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The chargeback webhook is verified with the signing secret too.' }] } })}\n`,
    );
    const compact = await runHookProcess(['hook', 'pre-compact'], codexPayload.preCompact({ session_id: CODEX_ID, transcript_path: null, cwd: '/home/dev/ledger-api', trigger: 'manual' }), env);
    expect(compact).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect((await recall('chargeback webhook')).matches[0]?.metadata.session_id).toBe(CODEX_ID);
  });

  test('SessionEnd returns at once; the detached process indexes the transcript and is gone afterwards', async () => {
    const id = '8c8c8c8c-3333-4444-8555-666677778888';
    const folder = join(root, 'claude', 'projects', '-home-dev-loom');
    mkdirSync(folder, { recursive: true });
    const transcript = join(folder, `${id}.jsonl`);
    writeFileSync(
      transcript,
      claudeSession({
        sessionId: id,
        cwd: '/home/dev/loom',
        turns: [
          { role: 'user', at: '2026-02-24T04:00:00Z', text: 'The warp threads on the jacquard loom keep snapping' },
          { role: 'assistant', at: '2026-02-24T04:05:00Z', text: 'Lower the jacquard warp tension to 30 cN; the snapping stops.' },
        ],
      }),
    );
    const end = await runHookProcess(
      ['hook', 'session-end'],
      claudePayload.sessionEnd({ session_id: id, transcript_path: transcript, cwd: '/home/dev/loom', reason: 'prompt_input_exit' }),
      { MOON_HOME: home },
    );
    expect(end).toMatchObject({ code: 0, stdout: '', stderr: '' });
    // Claude Code kills SessionEnd hooks after 1.5 s: the hook itself is a process start and a spawn.
    expect(end.ms).toBeLessThan(1_500);
    await eventually(async () => (await recall('jacquard warp')).matches.some((match) => match.metadata.session_id === id));
    // No helper left behind once its work is done.
    if (process.platform !== 'win32') {
      await eventually(async () => !execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).includes(transcript), 10_000);
    }
    // The session's facts are folded for the next session start in its project, and kept in the index.
    const db = new Database(join(home, 'moon.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT namespace FROM fact_folds').pluck().all()).toContain('path:/home/dev/loom');
    } finally {
      db.close();
    }
    const status = JSON.parse((await spawnMoon(['status', '--json'], { MOON_HOME: home })).stdout) as { hooks: { days: { event: string; runs: number; tokens: number }[] } };
    const runs = Object.fromEntries(status.hooks.days.map((line) => [line.event, line.runs]));
    expect(runs).toMatchObject({ stop: 2, 'pre-compact': 2, 'session-end': 1 });
    expect(status.hooks.days.every((line) => line.tokens === 0)).toBe(true);
  });
});
