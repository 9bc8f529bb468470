import { describe, expect, it } from 'vitest';
import { describeOutcomeHead, findMeaningfulLine, formatDuration, summarizeOutcome } from '../../src/normalize/outcome.js';
import { renderProjection } from '../../src/project/index.js';
import { buildBasicDoc, makeEntry } from './fixture.js';

const none = { exitCode: null, durationMs: null, status: null };

/** vitest's own output shape: a RUN banner, blank lines, then the file results. */
const VITEST_OUTPUT = `
 RUN  v3.2.4 /home/dev/shop

 ✓ test/invoice.test.ts (4 tests) 12ms
 ✓ test/cart.test.ts (3 tests) 8ms

 Test Files  2 passed (2)
      Tests  7 passed (7)`;

describe('formatDuration', () => {
  it('uses the unit a reader would say', () => {
    expect(formatDuration(0)).toBe('0 ms');
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(1000)).toBe('1 s');
    expect(formatDuration(3240)).toBe('3.2 s');
    expect(formatDuration(14_800)).toBe('14.8 s');
    expect(formatDuration(59_960)).toBe('1 min');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(formatDuration(120_000)).toBe('2 min');
    expect(formatDuration(3_780_000)).toBe('1 h 3 min');
    expect(formatDuration(7_200_000)).toBe('2 h');
    expect(formatDuration(Number.NaN)).toBe('');
  });
});

describe('summarizeOutcome', () => {
  it('states exit code and duration, then the first meaningful line', () => {
    const outcome = { result: VITEST_OUTPUT, exitCode: 0, durationMs: 14_800, status: 'completed' };
    expect(summarizeOutcome(outcome)).toBe('exit 0 in 14.8 s: ✓ test/invoice.test.ts (4 tests) 12ms');
    expect(summarizeOutcome({ ...outcome, result: 'Error: expected 3 items, got 2', exitCode: 1, durationMs: 3200 })).toBe(
      'exit 1 in 3.2 s: Error: expected 3 items, got 2',
    );
    expect(summarizeOutcome({ result: null, exitCode: 0, durationMs: 850, status: null })).toBe('exit 0 in 850 ms');
  });

  it('reads failures and interruptions from the status when no exit code is stated', () => {
    // Claude Code tool_result with is_error: true (test/fixtures/claude-code/synthetic-streaming-split-text.jsonl).
    expect(summarizeOutcome({ ...none, result: 'FAIL cart.test.ts\n  expected 3 items, got 2', status: 'error' })).toBe('error: FAIL cart.test.ts');
    expect(summarizeOutcome({ ...none, result: 'permission denied', status: 'failed' })).toBe('error: permission denied');
    expect(summarizeOutcome({ ...none, result: null, status: 'interrupted' })).toBe('interrupted');
    expect(summarizeOutcome({ ...none, result: '', status: 'cancelled', durationMs: 125_000 })).toBe('interrupted in 2 min 5 s');
    expect(summarizeOutcome({ ...none, result: 'done', status: 'completed' })).toBe('done');
    // test/fixtures/claude-code/real-scrubbed-api-error-thinking.jsonl: a failed WebFetch, tagged in its text.
    expect(summarizeOutcome({ ...none, result: '[error] Request failed with status code 403' })).toBe('error: Request failed with status code 403');
  });

  it('prefers the stated exit code over one printed in the text, and scrapes only when none is stated', () => {
    const printed = 'error[E0432]: unresolved import `better_sqlite3`\nexit code: 101';
    expect(summarizeOutcome({ ...none, result: printed, exitCode: 2 })).toBe('exit 2: error[E0432]: unresolved import `better_sqlite3`');
    expect(summarizeOutcome({ ...none, result: printed })).toBe('exit 101: error[E0432]: unresolved import `better_sqlite3`');
    expect(summarizeOutcome({ ...none, result: 'Process exited with code 2' })).toBe('exit 2');
  });

  it('skips frames: npm script echoes, banners, exit trailers, rules', () => {
    expect(findMeaningfulLine('\n> shop@1.0.0 test\n> vitest run\n\n---\n ✓ test/cart.test.ts (3 tests)')).toBe('✓ test/cart.test.ts (3 tests)');
    expect(findMeaningfulLine('Exit code: 0\nWall time: 1.2 seconds\nOutput:\nhello')).toBe('hello');
    expect(findMeaningfulLine('====\n\n')).toBe('');
    // test/fixtures/pi/real-legacy-v1-with-compaction.jsonl: a failed `npm run check`.
    expect(findMeaningfulLine('[error]\n> pi-monorepo@0.0.3 check\n> biome check --write .\n\npackages/coding-agent/src/core/agent-session.ts:16:22 lint/correctness/noUnusedImports')).toBe(
      'packages/coding-agent/src/core/agent-session.ts:16:22 lint/correctness/noUnusedImports',
    );
    expect(summarizeOutcome({ ...none, result: '====' })).toBe('====');
    expect(summarizeOutcome({ ...none, result: '   ' })).toBe('(empty result)');
    expect(summarizeOutcome({ ...none, result: null })).toBe('(no result)');
  });

  it('bounds the phrase and stays fast on megabytes of output', () => {
    expect(Array.from(summarizeOutcome({ ...none, result: 'x'.repeat(500), exitCode: 0 }, 40))).toHaveLength(40);
    const huge = `${'\n'.repeat(2_000_000)}${'-'.repeat(2_000_000)}`;
    const started = performance.now();
    expect(summarizeOutcome({ ...none, result: huge, exitCode: 0 })).toBe('exit 0');
    expect(summarizeOutcome({ ...none, result: `${'exit '.repeat(400_000)}` })).toBeTypeOf('string');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('describes only the stated part for Tool Activity', () => {
    expect(describeOutcomeHead({ exitCode: 0, durationMs: 14_800, status: 'completed' })).toBe('exit 0 in 14.8 s');
    expect(describeOutcomeHead({ exitCode: null, durationMs: null, status: 'error' })).toBe('error');
    expect(describeOutcomeHead(none)).toBeNull();
  });
});

describe('outcomes in the projection', () => {
  it('shows the structured outcome in the Timeline and before the result in Tool Activity', () => {
    const doc = buildBasicDoc();
    const run = makeEntry({
      line: 15,
      ts: Date.parse('2026-04-04T16:21:00Z'),
      role: 'tool',
      toolName: 'exec_command',
      toolTarget: 'npm test',
      text: 'npm test',
      priority: 'normal',
      result: VITEST_OUTPUT,
      exitCode: 0,
      durationMs: 14_800,
      status: 'completed',
    });
    const failed = makeEntry({
      line: 16,
      ts: Date.parse('2026-04-04T16:22:00Z'),
      role: 'tool',
      toolName: 'exec_command',
      toolTarget: 'npm run lint',
      text: 'npm run lint',
      priority: 'normal',
      result: 'src/cart.ts:3:1 error no-unused-vars',
      exitCode: 1,
      durationMs: 3200,
    });
    const output = renderProjection({ ...doc, entries: [...doc.entries, run, failed] });
    expect(output).toContain('| tool:exec_command | `npm test` → exit 0 in 14.8 s: ✓ test/invoice.test.ts (4 tests) 12ms |');
    expect(output).toContain('| tool:exec_command | `npm run lint` → exit 1 in 3.2 s: src/cart.ts:3:1 error no-unused-vars |');
    expect(output).toContain('- [16:21:00Z] **normal** `npm test` → exit 0 in 14.8 s: RUN v3.2.4 /home/dev/shop ✓ test/invoice.test.ts');
    // A test run is an outcome even though it changes nothing; a failed lint is not a test run.
    expect(output).toContain('- `npm test` → exit 0 in 14.8 s: ✓ test/invoice.test.ts (4 tests) 12ms');
    expect(output).not.toContain('- `npm run lint` →');
  });
});
