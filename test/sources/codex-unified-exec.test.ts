import { describe, expect, test } from 'vitest';
import { codexSource } from '../../src/sources/codex.js';
import type { RawRecord } from '../../src/sources/source.js';
import { countRoles, entryByKey, fixturePath, loadRecords, mergeWhole, parseFixture, parseInChunks } from './parse-helpers.js';

const FIXTURE = 'codex/synthetic-unified-exec.jsonl';

describe('codex 0.12x rollout: unified exec, patch and search events, reasoning', () => {
  const chunk = parseFixture(codexSource, FIXTURE);

  test('one entry per message, reasoning summary, call and search; echoes and polls are no entries', () => {
    expect(chunk.session).toMatchObject({
      id: '019d8a3f-5b10-7d2c-8e9f-0a1b2c3d4e5f',
      project: 'billing-service',
      branch: 'fix/retry-timers',
    });
    expect(countRoles(chunk.entries)).toEqual({ user: 1, assistant: 3, tool: 4 });
    expect(chunk.entries.map((entry) => entry.toolName ?? entry.kind ?? entry.role)).toEqual([
      'user',
      'reasoning',
      'exec_command',
      'assistant',
      'apply_patch',
      'web_search',
      'exec_command',
      'assistant',
    ]);
    expect(chunk.entries.some((entry) => entry.toolName === 'write_stdin')).toBe(false);
  });

  test('the reasoning item is an assistant entry of kind reasoning; its agent_reasoning event is an echo', () => {
    expect(entryByKey(chunk.entries, 'm:L6')).toMatchObject({
      role: 'assistant',
      kind: 'reasoning',
      text: expect.stringContaining('The hang may come from real timers in withRetry()'),
    });
    expect(JSON.stringify(chunk.entries)).not.toContain('SYNTHETIC-ENCRYPTED');
  });

  test('exec_command and its two write_stdin polls are one transaction: output in order, exit code, duration', () => {
    const exec = entryByKey(chunk.entries, 'tool:call_ExecRetry01');
    expect(exec).toMatchObject({
      text: 'npm test -- test/retry.test.ts',
      toolTarget: 'npm test -- test/retry.test.ts',
      exitCode: 1,
      // exec_command_end states the real duration; the polls' wall times only cover the time spent waiting.
      durationMs: 52_418,
      status: 'failed',
      resultId: 'L10',
    });
    expect(exec.result).toBe(
      [
        '> billing-service@2.3.0 test',
        '> vitest run test/retry.test.ts',
        ' ❯ test/retry.test.ts (3 tests | 1 running)',
        '   ↓ backoff > retries three times [waiting on a 30000ms delay]',
        ' ✗ test/retry.test.ts > backoff > retries three times 5000ms',
        '   Error: Test timed out in 5000ms.',
        '',
        ' Test Files  1 failed (1)',
        '      Tests  1 failed | 2 passed (3)',
      ].join('\n'),
    );
    expect(exec.result).not.toMatch(/Chunk ID|Wall time|Process (running|exited)|Original token count/);
  });

  test('an exec_command_end before the output gives the outcome; the output item adds nothing twice', () => {
    expect(entryByKey(chunk.entries, 'tool:call_ExecRetry02')).toMatchObject({
      exitCode: 0,
      durationMs: 1834,
      status: 'completed',
      result: expect.stringContaining('Tests  3 passed (3)'),
    });
  });

  test('apply_patch is its diff; patch_apply_end and the wrapped output complete it', () => {
    const patch = entryByKey(chunk.entries, 'tool:call_PatchRetry01');
    expect(patch).toMatchObject({
      toolName: 'apply_patch',
      toolTarget: 'test/retry.test.ts',
      result: 'Success. Updated the following files:\nM test/retry.test.ts',
      exitCode: 0,
      durationMs: 100,
      status: 'completed',
    });
    expect(patch.text.split('\n')[0]).toBe('Update File: test/retry.test.ts');
    expect(patch.text).toContain('+     await vi.runAllTimersAsync();');
    expect(patch.text).toContain("- import { describe, expect, it } from 'vitest';");
  });

  test('web_search_call and its web_search_end event are one search', () => {
    const searches = chunk.entries.filter((entry) => entry.toolName === 'web_search');
    expect(searches).toEqual([
      expect.objectContaining({
        text: 'vitest runAllTimersAsync rejects unhandled rejection fake timers',
        status: 'completed',
        line: 23,
      }),
    ]);
  });

  test('echo events are counted as duplicates or skipped; nothing is an orphan', () => {
    // user, reasoning, two agent messages and the search echo; two outputs that repeated an end event's output
    expect(chunk.duplicates).toBe(7);
    expect(chunk.skipped).toEqual({
      turn_context: 1,
      'event_msg:task_started': 1,
      'event_msg:exec_command_begin': 2,
      'event_msg:patch_apply_begin': 1,
      'event_msg:web_search_begin': 1,
      'event_msg:token_count': 1,
      'event_msg:task_complete': 1,
    });
    expect(chunk.usage).toEqual([expect.objectContaining({ used_tokens: 19_112, max_tokens: 272_000 })]);
  });

  test('the carry forgets finished processes and polls', () => {
    expect(chunk.carry).toMatchObject({ processes: [], polls: [], pending: [] });
  });
});

describe('codex unified exec across chunks', () => {
  const records = loadRecords(FIXTURE);
  const path = fixturePath(FIXTURE);
  const whole = mergeWhole(codexSource.parse(records, { path, carry: null }));

  test('every single cut, and one record per chunk, parse like the whole file', () => {
    const plans = [...records.map((_, index) => [index]), records.map((_, index) => index)];
    for (const cuts of plans) {
      const merged = parseInChunks(codexSource, records, path, cuts);
      expect(merged.entries, `cuts ${cuts.join(',')}`).toEqual(whole.entries);
      expect(merged.duplicates, `cuts ${cuts.join(',')}`).toBe(whole.duplicates);
      expect(merged.skipped, `cuts ${cuts.join(',')}`).toEqual(whole.skipped);
    }
  });

  test('a cut between exec_command and write_stdin sends the polls as appended results of the stored call', () => {
    const cut = records.findIndex((record) => JSON.stringify(record.value).includes('call_PollRetry01'));
    const first = codexSource.parse(records.slice(0, cut), { path, carry: null });
    const second = codexSource.parse(records.slice(cut), { path, carry: JSON.parse(JSON.stringify(first.carry)) });
    expect(entryByKey(first.entries, 'tool:call_ExecRetry01')).toMatchObject({
      result: '> billing-service@2.3.0 test\n> vitest run test/retry.test.ts',
      status: 'running',
      exitCode: null,
    });
    const patches = second.results.filter((patch) => patch.key === 'tool:call_ExecRetry01');
    expect(patches.map((patch) => [patch.result?.split('\n')[0] ?? null, patch.append ?? false])).toEqual([
      [' ❯ test/retry.test.ts (3 tests | 1 running)', true],
      [null, false],
      [' ✗ test/retry.test.ts > backoff > retries three times 5000ms', true],
    ]);
    expect(patches[1]).toMatchObject({ exitCode: 1, durationMs: 52_418, status: 'failed' });
    expect(second.entries.map((entry) => entry.toolName)).not.toContain('write_stdin');
  });
});

describe('codex unified exec: shapes beyond the fixture', () => {
  const at = (second: number): string => `2026-04-14T08:00:${String(second).padStart(2, '0')}.000Z`;
  const item = (second: number, payload: object) => ({ timestamp: at(second), type: 'response_item', payload });
  const exec = (id: string, cmd: string, second: number) =>
    item(second, { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd }), call_id: id });
  const stdin = (id: string, session: number, chars: string, second: number) =>
    item(second, { type: 'function_call', name: 'write_stdin', arguments: JSON.stringify({ session_id: session, chars }), call_id: id });
  const output = (id: string, text: string, second: number) =>
    item(second, { type: 'function_call_output', call_id: id, output: text });
  const parse = (values: unknown[]) =>
    codexSource.parse(
      values.map((value, index): RawRecord => ({ line: index + 1, start: index, end: index + 1, value })),
      { path: '/x/rollout-a.jsonl', carry: null },
    );

  test('input a poll sends is kept on the transaction; without an end event the duration runs to the exit', () => {
    const chunk = parse([
      exec('c1', 'npm init', 0),
      output('c1', 'Chunk ID: a\nWall time: 1.0 seconds\nProcess running with session ID 7\nOutput:\npackage name: (app)\n', 1),
      stdin('p1', 7, 'billing\n', 5),
      output('p1', 'Chunk ID: b\nWall time: 0.5 seconds\nProcess running with session ID 7\nOutput:\nversion: (1.0.0)\n', 6),
      stdin('p2', 7, '\u0003', 8),
      output('p2', 'Chunk ID: c\nWall time: 0.2 seconds\nProcess exited with code 130\nOutput:\n', 9),
    ]);
    expect(chunk.entries).toHaveLength(1);
    expect(chunk.entries[0]).toMatchObject({
      result: 'package name: (app)\n[stdin] billing⏎\nversion: (1.0.0)\n[stdin] ^C',
      exitCode: 130,
      status: 'failed',
      // from the process start (first output at 1 s minus its 1 s wall time) to the exit at 9 s
      durationMs: 9000,
    });
  });

  test('a session id reused by a later process belongs to the newer exec_command', () => {
    const running = (id: string) => `Chunk ID: ${id}\nWall time: 1.0 seconds\nProcess running with session ID 7\nOutput:\n`;
    const chunk = parse([
      exec('c1', 'npm run dev', 0),
      output('c1', running('a'), 1),
      exec('c2', 'npm run watch', 2),
      output('c2', running('b'), 3),
      stdin('p1', 7, '', 4),
      output('p1', 'Chunk ID: c\nWall time: 1.0 seconds\nProcess running with session ID 7\nOutput:\nwatching\n', 5),
    ]);
    expect(chunk.entries.map((entry) => [entry.id, entry.result])).toEqual([
      ['c1', ''],
      ['c2', 'watching'],
    ]);
  });

  test('a poll of a process never seen (its start is not in the file) stays an entry of its own', () => {
    const chunk = parse([stdin('p9', 99, '', 1), output('p9', 'Chunk ID: z\nWall time: 1.0 seconds\nProcess exited with code 0\nOutput:\nbye\n', 2)]);
    expect(chunk.entries).toEqual([
      expect.objectContaining({ toolName: 'write_stdin', result: 'bye', exitCode: 0, durationMs: 1000, status: 'completed' }),
    ]);
  });

  test('an exec_command that finishes within its first yield is complete at once', () => {
    const chunk = parse([exec('c1', 'ls', 0), output('c1', 'Chunk ID: a\nWall time: 0.0102 seconds\nProcess exited with code 0\nOriginal token count: 2\nOutput:\na.ts\n', 1)]);
    expect(chunk.entries[0]).toMatchObject({ result: 'a.ts', exitCode: 0, durationMs: 10, status: 'completed' });
    expect((chunk.carry as { processes?: unknown[] }).processes ?? []).toEqual([]);
  });
});
