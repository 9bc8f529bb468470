import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { TailScan } from '../../src/usage/tail.js';
import { readSessionUsage, readTranscriptUsage } from '../../src/usage/read-session-usage.js';
import { REPO, makeTempDir } from '../helpers/cli.js';

const FIXTURES = join(REPO, 'test', 'fixtures');
const USAGE = join(REPO, 'test', 'usage', 'fixtures');
const NOW = Date.parse('2026-06-01T00:00:00Z');
const secs = (iso: string): number => Math.floor(Date.parse(iso) / 1000);

let dir: string;
let cleanup: () => void;
beforeAll(() => {
  const temp = makeTempDir('moon-usage-');
  dir = temp.path;
  cleanup = temp.cleanup;
});
afterAll(() => cleanup());

let fileCount = 0;
function writeLines(lines: readonly unknown[], options: { name?: string; folder?: string; tail?: string } = {}): string {
  const folder = options.folder ?? dir;
  mkdirSync(folder, { recursive: true });
  fileCount += 1;
  const path = join(folder, options.name ?? `t${fileCount}.jsonl`);
  writeFileSync(path, `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n${options.tail ?? ''}`);
  return path;
}

function claudeUser(sessionId: string, at: string, text: string): unknown {
  return { type: 'user', sessionId, cwd: '/home/dev/app', timestamp: at, uuid: `u-${at}`, message: { role: 'user', content: text } };
}

function claudeAssistant(sessionId: string, at: string, usage: Record<string, number>, model = 'claude-sonnet-4-5-20250929', extra: Record<string, unknown> = {}): unknown {
  return {
    type: 'assistant',
    sessionId,
    cwd: '/home/dev/app',
    timestamp: at,
    uuid: `a-${at}`,
    ...extra,
    message: { id: `msg-${at}`, role: 'assistant', model, content: [{ type: 'text', text: 'ok' }], usage },
  };
}

describe('readSessionUsage on the real fixtures', () => {
  test('Claude Code: the last assistant line, input + cache writes + cache reads + output, model window 200k', () => {
    const scans: TailScan[] = [];
    const path = join(FIXTURES, 'claude-code', 'real-compaction-compact-boundary.jsonl');
    const snapshot = readSessionUsage(path, 'claude-code', NOW, { onScan: (scan) => scans.push(scan) });
    expect(snapshot).toEqual({
      session_id: '624a4a58-b34c-462d-a70d-13421c8125a8',
      used_tokens: 13 + 3114 + 92025 + 631,
      max_tokens: 200_000,
      usage_ratio: (13 + 3114 + 92025 + 631) / 200_000,
      captured_at_epoch_secs: secs('2026-01-07T21:11:12.637Z'),
      provider: 'anthropic',
      model: 'claude-sonnet-4-5-20250929',
    });
    // 2.6 MB transcript: only its tail is read.
    expect(scans[0]!.bytesRead).toBeLessThanOrEqual(256 * 1024);
    expect(scans[0]!.reachedStart).toBe(false);
  });

  test('Claude Code: an inline sidechain measures the Task agent, not the session, and is passed over', () => {
    const snapshot = readSessionUsage(join(USAGE, 'sidechain-inline-task-agent.jsonl'), 'claude-code', NOW);
    expect(snapshot).toMatchObject({ session_id: 'df749439-8556-41bf-9965-9f49cf38bf2a', used_tokens: 18_064, model: 'claude-sonnet-4-20250514' });
    expect(snapshot!.captured_at_epoch_secs).toBe(secs('2025-07-03T15:50:07.875Z'));
  });

  test('Claude Code: a subagent transcript is measured on its own lines, under the id moon gives it', () => {
    const snapshot = readSessionUsage(join(USAGE, 'agent-aef063ba534d73153.jsonl'), 'claude-code', NOW);
    expect(snapshot).toMatchObject({
      session_id: 'ef958aa1-0e93-49f0-bb71-150f63befcd1:agent-aef063ba534d73153',
      used_tokens: 28_812,
      max_tokens: 200_000,
      model: 'claude-opus-4-7',
    });
  });

  test('Codex: last_token_usage.total_tokens against the stated model_context_window', () => {
    const snapshot = readSessionUsage(join(FIXTURES, 'codex', 'real-redacted-compacted-long-019c8a59.jsonl'), 'codex', NOW);
    expect(snapshot).toEqual({
      session_id: '019c8a59-e9dd-71f0-9ae3-4079fe9726a9',
      used_tokens: 162_366,
      max_tokens: 258_400,
      usage_ratio: 162_366 / 258_400,
      captured_at_epoch_secs: secs('2026-02-24T12:09:44.233Z'),
      provider: 'openai',
      model: 'gpt-5.3-codex',
    });
    const short = readSessionUsage(join(USAGE, 'real-redacted-short-dangling-call-019c8a70.jsonl'), 'codex', NOW);
    expect(short).toMatchObject({ session_id: '019c8a70-dda7-7f33-98ea-f30553347322', used_tokens: 34_900, max_tokens: 258_400 });
  });

  test('Codex: without a stated window the model’s comes from the table', () => {
    const snapshot = readSessionUsage(join(USAGE, 'synthetic-spawn-agent-subagent.jsonl'), 'codex', NOW);
    expect(snapshot).toMatchObject({ session_id: 'spawn-test-uuid', used_tokens: 5200, max_tokens: 272_000, model: 'gpt-5.4', provider: 'openai' });
  });

  test('OpenClaw / pi: the last assistant usage (totalTokens), model and provider from the message', () => {
    const snapshot = readSessionUsage(join(FIXTURES, 'pi', 'real-legacy-v1-with-compaction.jsonl'), 'openclaw', NOW);
    expect(snapshot).toMatchObject({
      session_id: 'ffae836b-9420-4060-ac13-7745215f90ff',
      used_tokens: 168_018,
      max_tokens: 200_000,
      provider: 'anthropic',
      model: 'claude-opus-4-5',
    });
  });

  test('OpenClaw / pi: a reply that failed is passed over for the one before it', () => {
    const snapshot = readSessionUsage(join(USAGE, 'synthetic-v3-error-toolresult-string-content.jsonl'), 'openclaw', NOW);
    expect(snapshot).toMatchObject({ session_id: 'error-session', used_tokens: 10, provider: 'acme', model: 'alpha', max_tokens: 200_000 });
  });
});

describe('readSessionUsage on written transcripts', () => {
  test('Claude Code: one API message split over lines reports the last line’s final counts', () => {
    const path = writeLines([
      claudeUser('split', '2026-03-01T10:00:00Z', 'hello'),
      claudeAssistant('split', '2026-03-01T10:00:01Z', { input_tokens: 10, cache_read_input_tokens: 50_000, output_tokens: 1 }),
      claudeAssistant('split', '2026-03-01T10:00:02Z', { input_tokens: 10, cache_read_input_tokens: 50_000, output_tokens: 900 }),
    ]);
    expect(readSessionUsage(path, 'claude-code', NOW)).toMatchObject({ used_tokens: 50_910, captured_at_epoch_secs: secs('2026-03-01T10:00:02Z') });
  });

  test('Claude Code: the harness’s <synthetic> error message and all-zero usage are not usage', () => {
    const path = writeLines([
      claudeAssistant('synth', '2026-03-01T10:00:01Z', { input_tokens: 5, cache_creation_input_tokens: 70_000, output_tokens: 100 }),
      claudeAssistant('synth', '2026-03-01T10:00:02Z', { input_tokens: 0, output_tokens: 0 }, '<synthetic>'),
      claudeAssistant('synth', '2026-03-01T10:00:03Z', { input_tokens: 0, output_tokens: 0 }),
    ]);
    expect(readSessionUsage(path, 'claude-code', NOW)).toMatchObject({ used_tokens: 70_105, model: 'claude-sonnet-4-5-20250929' });
  });

  test('Claude Code: a 1M-context variant by name, or by holding more than 200k tokens at once', () => {
    const named = writeLines([claudeAssistant('long', '2026-03-01T10:00:01Z', { input_tokens: 150_000 }, 'claude-sonnet-4-5[1m]')]);
    expect(readSessionUsage(named, 'claude-code', NOW)).toMatchObject({ max_tokens: 1_000_000, usage_ratio: 0.15 });
    const inferred = writeLines([claudeAssistant('long2', '2026-03-01T10:00:01Z', { input_tokens: 10, cache_read_input_tokens: 420_000 })]);
    expect(readSessionUsage(inferred, 'claude-code', NOW)).toMatchObject({ max_tokens: 1_000_000 });
  });

  test('an unknown model gets the documented default window; a ratio over 1.0 is kept', () => {
    const path = writeLines([
      { type: 'session', version: 3, id: 'oc-unknown', timestamp: '2026-03-01T10:00:00Z', cwd: '/w' },
      { type: 'message', id: 'm1', timestamp: '2026-03-01T10:00:05Z', message: { role: 'assistant', content: [], model: 'mystery-9000', provider: 'acme', usage: { input: 180_000, output: 40_000, cacheRead: 0, cacheWrite: 0 } } },
    ]);
    expect(readSessionUsage(path, 'openclaw', NOW)).toMatchObject({ session_id: 'oc-unknown', used_tokens: 220_000, max_tokens: 200_000, usage_ratio: 1.1, model: 'mystery-9000' });
  });

  test('a transcript without any usage field is null', () => {
    const path = writeLines([claudeUser('none', '2026-03-01T10:00:00Z', 'hi'), { type: 'assistant', sessionId: 'none', timestamp: '2026-03-01T10:00:01Z', message: { role: 'assistant', content: [] } }]);
    expect(readSessionUsage(path, 'claude-code', NOW)).toBeNull();
    expect(readTranscriptUsage(path, 'claude-code', NOW)).toEqual({ sessionId: 'none', snapshot: null });
    expect(readSessionUsage(join(FIXTURES, 'codex', 'synthetic-malformed-trailing-line.jsonl'), 'codex', NOW)).toBeNull();
  });

  test('a malformed (half-written) last line is skipped and the usage before it is used', () => {
    const path = writeLines(
      [claudeUser('torn', '2026-03-01T10:00:00Z', 'hi'), claudeAssistant('torn', '2026-03-01T10:00:01Z', { input_tokens: 1234 })],
      { tail: '{"type":"assistant","sessionId":"torn","message":{"usage":{"input_tokens":99999' },
    );
    expect(readSessionUsage(path, 'claude-code', NOW)).toMatchObject({ session_id: 'torn', used_tokens: 1234 });
  });

  test('a huge transcript with usage only near its end is read from the tail only', () => {
    const filler = 'x'.repeat(2000);
    const lines: unknown[] = [claudeUser('huge-end', '2026-03-01T09:00:00Z', 'start')];
    for (let i = 0; i < 3000; i += 1) lines.push(claudeUser('huge-end', '2026-03-01T09:30:00Z', `${filler} ${i}`));
    lines.push(claudeAssistant('huge-end', '2026-03-01T10:00:00Z', { input_tokens: 4242 }));
    lines.push(claudeUser('huge-end', '2026-03-01T10:01:00Z', 'after'));
    const path = writeLines(lines);
    const scans: TailScan[] = [];
    expect(readSessionUsage(path, 'claude-code', NOW, { onScan: (scan) => scans.push(scan) })).toMatchObject({ used_tokens: 4242 });
    expect(scans[0]!.bytesRead).toBeLessThanOrEqual(256 * 1024);
  });

  test('when the tail holds no usage the read widens until it finds the last one', () => {
    const filler = 'y'.repeat(2000);
    const lines: unknown[] = [
      claudeAssistant('huge-start', '2026-03-01T09:00:00Z', { input_tokens: 1 }),
      claudeAssistant('huge-start', '2026-03-01T09:00:01Z', { input_tokens: 777 }),
    ];
    for (let i = 0; i < 3000; i += 1) lines.push(claudeUser('huge-start', '2026-03-01T09:30:00Z', `${filler} ${i}`));
    const path = writeLines(lines);
    const scans: TailScan[] = [];
    expect(readSessionUsage(path, 'claude-code', NOW, { onScan: (scan) => scans.push(scan) })).toMatchObject({ used_tokens: 777 });
    expect(scans[0]!.reachedStart).toBe(true);
  });

  test('a line longer than the read window is reassembled across reads', () => {
    const big = claudeAssistant('wide', '2026-03-01T10:00:00Z', { input_tokens: 31_337 }, 'claude-opus-4-7', { note: 'z'.repeat(50_000) });
    const path = writeLines([claudeUser('wide', '2026-03-01T09:00:00Z', 'go'), big, claudeUser('wide', '2026-03-01T10:01:00Z', 'z'.repeat(20_000))]);
    expect(readSessionUsage(path, 'claude-code', NOW, { initialBytes: 4096, growth: 2 })).toMatchObject({ used_tokens: 31_337, model: 'claude-opus-4-7' });
  });

  test('Codex: the model of the turn the count belongs to; a window from task_started; total usage only without last', () => {
    const path = writeLines([
      { timestamp: '2026-03-01T10:00:00Z', type: 'session_meta', payload: { id: 'cx-1', cwd: '/w', model_provider: 'azure' } },
      { timestamp: '2026-03-01T10:00:01Z', type: 'event_msg', payload: { type: 'task_started', model_context_window: 190_000 } },
      { timestamp: '2026-03-01T10:00:02Z', type: 'turn_context', payload: { cwd: '/w', model: 'gpt-5-codex' } },
      { timestamp: '2026-03-01T10:00:03Z', type: 'event_msg', payload: { type: 'token_count', info: null } },
      { timestamp: '2026-03-01T10:00:04Z', type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: { input_tokens: 9000, output_tokens: 500 } } } },
      { timestamp: '2026-03-01T10:00:05Z', type: 'turn_context', payload: { cwd: '/w', model: 'gpt-4.1' } },
    ]);
    expect(readSessionUsage(path, 'codex', NOW)).toEqual({
      session_id: 'cx-1',
      used_tokens: 9500,
      max_tokens: 190_000,
      usage_ratio: 9500 / 190_000,
      captured_at_epoch_secs: secs('2026-03-01T10:00:04Z'),
      provider: 'azure',
      model: 'gpt-5-codex',
    });
  });

  test('OpenClaw: sessions.json beside the transcript gives the window, and the count when the transcript has none', () => {
    const folder = join(dir, 'agents', 'main', 'sessions');
    const withUsage = writeLines(
      [
        { type: 'session', version: 3, id: 'oc-a', timestamp: '2026-03-01T10:00:00Z', cwd: '/w' },
        { type: 'message', id: 'm1', timestamp: '2026-03-01T10:00:05Z', message: { role: 'assistant', content: [], model: 'gpt-5.2', usage: { input: 40_000, output: 2000, cacheRead: 8000, cacheWrite: 0 } } },
      ],
      { folder, name: 'oc-a.jsonl' },
    );
    const withoutUsage = writeLines([{ type: 'session', version: 3, id: 'oc-b', timestamp: '2026-03-01T10:00:00Z', cwd: '/w' }], { folder, name: 'oc-b.jsonl' });
    writeFileSync(
      join(folder, 'sessions.json'),
      JSON.stringify({
        'agent:main:main': { sessionId: 'oc-a', updatedAt: Date.parse('2026-03-01T10:00:06Z'), contextTokens: 100_000, totalTokens: 49_000, model: 'gpt-5.2', modelProvider: 'openai' },
        'agent:main:other': { sessionId: 'oc-b', updatedAt: Date.parse('2026-03-01T11:00:00Z'), contextTokens: 64_000, totalTokens: 16_000, totalTokensFresh: true, model: 'llama3', modelProvider: 'ollama' },
      }),
    );
    expect(readSessionUsage(withUsage, 'openclaw', NOW)).toMatchObject({ session_id: 'oc-a', used_tokens: 50_000, max_tokens: 100_000, provider: 'openai', model: 'gpt-5.2' });
    expect(readSessionUsage(withoutUsage, 'openclaw', NOW)).toEqual({
      session_id: 'oc-b',
      used_tokens: 16_000,
      max_tokens: 64_000,
      usage_ratio: 0.25,
      captured_at_epoch_secs: secs('2026-03-01T11:00:00Z'),
      provider: 'ollama',
      model: 'llama3',
    });
    // A count the gateway marked stale is not used.
    writeFileSync(join(folder, 'sessions.json'), JSON.stringify({ k: { sessionId: 'oc-b', totalTokens: 16_000, totalTokensFresh: false, contextTokens: 64_000 } }));
    expect(readSessionUsage(withoutUsage, 'openclaw', NOW)).toBeNull();
  });

  test('a record without a time is captured at now; hostile counts count nothing', () => {
    const path = writeLines([
      { type: 'assistant', sessionId: 'no-time', message: { role: 'assistant', model: 'claude-opus-4-7', usage: { input_tokens: 100, cache_read_input_tokens: -5, output_tokens: 'lots' } } },
    ]);
    expect(readSessionUsage(path, 'claude-code', NOW)).toMatchObject({ used_tokens: 100, captured_at_epoch_secs: NOW / 1000 });
  });

  test('an unreadable path is MoonError(unreadable) naming it', () => {
    expect(() => readSessionUsage(join(dir, 'missing.jsonl'), 'codex', NOW)).toThrow(/missing\.jsonl: cannot read \(ENOENT\)/);
  });
});
