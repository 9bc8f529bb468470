import { describe, expect, test } from 'vitest';
import { readCodexOutput } from '../../src/sources/codex-output.js';

describe('codex tool outputs: wrapper and header become text plus outcome', () => {
  test('the JSON wrapper of shell and apply_patch outputs is unwrapped', () => {
    const raw = JSON.stringify({
      output: '> ledger-api@1.8.2 test\n> vitest run\n\n Tests  213 passed (213)\n',
      metadata: { exit_code: 0, duration_seconds: 14.8 },
    });
    expect(readCodexOutput(raw)).toEqual({
      text: '> ledger-api@1.8.2 test\n> vitest run\n\n Tests  213 passed (213)',
      exitCode: 0,
      durationMs: 14_800,
      runningSession: null,
    });
  });

  test('a failing command keeps its exit code', () => {
    const raw = JSON.stringify({ output: 'bash: nope: command not found\n', metadata: { exit_code: 127, duration_seconds: 0 } });
    expect(readCodexOutput(raw)).toMatchObject({ text: 'bash: nope: command not found', exitCode: 127, durationMs: 0 });
  });

  test('the plain-text header of newer CLIs is outcome, not output', () => {
    expect(readCodexOutput('Exit code: 0\nWall time: 1.2 seconds\nOutput:\nok\n')).toEqual({
      text: 'ok',
      exitCode: 0,
      durationMs: 1200,
      runningSession: null,
    });
    expect(readCodexOutput('Process exited with code 2\nWall time: 43.5 seconds\nOutput:\nrun 4 failed\n')).toMatchObject({
      text: 'run 4 failed',
      exitCode: 2,
      durationMs: 43_500,
    });
    expect(readCodexOutput('Exit code: 1\nWall time: 0.3 seconds\nTotal output lines: 2\nOutput:\na\nb')).toMatchObject({
      text: 'a\nb',
      exitCode: 1,
    });
  });

  test('a unified exec chunk header names the running process', () => {
    const raw =
      'Chunk ID: 3f2a9c\nWall time: 10.0021 seconds\nProcess running with session ID 48230\nOriginal token count: 17\nOutput:\n\n> app@1.0.0 test\n';
    expect(readCodexOutput(raw)).toEqual({ text: '> app@1.0.0 test', exitCode: null, durationMs: 10_002, runningSession: '48230' });
  });

  test('a header alone (the process printed nothing) leaves empty text', () => {
    expect(readCodexOutput('Process exited with code 0')).toEqual({ text: '', exitCode: 0, durationMs: null, runningSession: null });
  });

  test('output that only looks like a header further down is left alone', () => {
    const text = 'first line\nExit code: 3\nOutput:\nmore';
    expect(readCodexOutput(text)).toEqual({ text, exitCode: null, durationMs: null, runningSession: null });
    const late = 'Exit code: 0\nsomething else\nOutput:\nx';
    expect(readCodexOutput(late).text).toBe(late);
  });

  test('JSON results and content blocks become readable text', () => {
    expect(readCodexOutput('{"status":"ok","rows":3}').text).toBe('status: ok\nrows: 3');
    expect(readCodexOutput('{"content":[{"type":"text","text":"two budgets"}],"isError":false}').text).toBe('two budgets');
    expect(readCodexOutput([{ type: 'output_text', text: 'Done!' }]).text).toBe('Done!');
    expect(readCodexOutput('{not json').text).toBe('{not json');
  });

  test('long runs of newlines cost linear time', () => {
    const raw = `Output:\n${'\n'.repeat(200_000)}x${'\n'.repeat(200_000)}`;
    const started = performance.now();
    expect(readCodexOutput(raw).text).toBe('x');
    expect(performance.now() - started).toBeLessThan(500);
  });
});
