import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { codexSource } from '../../src/sources/codex.js';
import { readJsonl } from '../../src/sources/jsonl.js';
import type { RawRecord } from '../../src/sources/source.js';
import { makeTempDir, REPO, runMoon } from '../helpers/cli.js';
import { entryByKey, fixturePath } from './parse-helpers.js';

const EXAMPLE_DIR = join(REPO, 'examples', 'codex', '2026', '02', '21');
const EXAMPLE = join(EXAMPLE_DIR, readdirSync(EXAMPLE_DIR).find((name) => name.endsWith('.jsonl'))!);
const FIXTURES = readdirSync(fixturePath('codex'))
  .filter((name) => name.endsWith('.jsonl'))
  .map((name) => fixturePath(`codex/${name}`));

function parseFile(path: string) {
  return codexSource.parse(readJsonl(path, { acceptUnterminated: true }).records, { path, carry: null });
}

describe('codex: no JSON or header noise reaches an entry', () => {
  test.each([...FIXTURES, EXAMPLE])('%s', (path) => {
    const chunk = parseFile(path);
    expect(chunk.entries.length).toBeGreaterThan(0);
    for (const entry of chunk.entries) {
      for (const value of [entry.text, entry.result ?? '']) {
        expect(value, entry.key).not.toContain('{"');
        expect(value, entry.key).not.toContain('\\n');
        expect(value, entry.key).not.toContain('\\"');
        expect(value, entry.key).not.toMatch(/^(Chunk ID|Wall time|Exit code|Process exited with code|Process running)/m);
      }
    }
  });
});

describe('codex: the bundled example reads as what happened', () => {
  const chunk = parseFile(EXAMPLE);

  test('the wrapped `npm test` output is the test output, with exit code and duration', () => {
    expect(entryByKey(chunk.entries, 'tool:call_Flaky04')).toMatchObject({
      toolName: 'shell',
      text: 'npm test',
      exitCode: 0,
      durationMs: 14_800,
      status: 'completed',
      result: expect.stringMatching(/^> ledger-api@1\.8\.2 test\n> vitest run\n\n ✓ test\/invoice\.test\.ts/),
    });
  });

  test('header outputs keep only what the command printed', () => {
    expect(entryByKey(chunk.entries, 'tool:call_Flaky01')).toMatchObject({
      result: 'run 4 failed\nrun 9 failed',
      exitCode: 0,
      durationMs: 43_500,
    });
    expect(entryByKey(chunk.entries, 'tool:call_Flaky06')).toMatchObject({ exitCode: 0, durationMs: null });
  });

  test('the apply_patch call is its diff, so the code it added is found', () => {
    const patch = entryByKey(chunk.entries, 'tool:call_Flaky03');
    expect(patch).toMatchObject({
      toolName: 'apply_patch',
      toolTarget: 'test/invoice.test.ts',
      result: 'Success. Updated the following files:\nM test/invoice.test.ts',
      exitCode: 0,
    });
    expect(patch.text.split('\n')[0]).toBe('Update File: test/invoice.test.ts');
    expect(patch.text).toContain("+     vi.setSystemTime(new Date('2026-01-29T13:30:00Z'));");
  });

  test('the reasoning summary is a reasoning entry', () => {
    expect(chunk.entries.filter((entry) => entry.kind === 'reasoning').map((entry) => entry.text)).toEqual([
      '**Reproducing the flake**',
    ]);
  });

  describe('through the CLI', () => {
    const temp = makeTempDir('moon-codex-example-');
    afterAll(() => temp.cleanup());

    test('`recall setSystemTime --tool apply_patch` finds the patch that added it', async () => {
      const env = { MOON_HOME: join(temp.path, 'home') };
      expect((await runMoon(['index', EXAMPLE_DIR], env)).code).toBe(0);
      const run = await runMoon(['recall', 'setSystemTime', '--tool', 'apply_patch', '--json'], env);
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout) as RecallResult;
      expect(result.matches).toHaveLength(1);
      expect(result.matches[0]!.metadata.tools).toContain('apply_patch');
      expect(result.matches[0]!.snippet).toContain('vi.setSystemTime');

      const tests = JSON.parse((await runMoon(['recall', 'vitest run', '--json'], env)).stdout) as RecallResult;
      expect(tests.matches[0]!.snippet).toContain('> ledger-api@1.8.2 test > vitest run');
      expect(tests.matches[0]!.snippet).not.toContain('{"output"');
    });
  });
});

describe('codex: apply_patch in every shape is a diff', () => {
  const body = '*** Begin Patch\n*** Add File: src/clock.ts\n+export const now = () => Date.now();\n*** End Patch';
  const diff = 'Add File: src/clock.ts\n+ export const now = () => Date.now();';
  const call = (payload: object): RawRecord => ({
    line: 1,
    start: 0,
    end: 1,
    value: { timestamp: '2026-03-01T10:00:00.000Z', type: 'response_item', payload: { call_id: 'c1', ...payload } },
  });
  const parseCall = (payload: object) => codexSource.parse([call(payload)], { path: '/x/r.jsonl', carry: null }).entries[0]!;

  test.each([
    ['custom_tool_call input', { type: 'custom_tool_call', name: 'apply_patch', input: body }],
    ['function_call {"input"}', { type: 'function_call', name: 'apply_patch', arguments: JSON.stringify({ input: body }) }],
    ['shell argv', { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['apply_patch', body] }) }],
    [
      'shell heredoc',
      { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', `apply_patch <<'EOF'\n${body}\nEOF\n`] }) },
    ],
    ['exec_command heredoc', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: `cd app && apply_patch <<'PATCH'\n${body}\nPATCH` }) }],
    ['local_shell_call', { type: 'local_shell_call', action: { type: 'exec', command: ['apply_patch', body] } }],
  ])('%s', (_shape, payload) => {
    expect(parseCall(payload)).toMatchObject({ toolName: 'apply_patch', text: diff, toolTarget: 'src/clock.ts' });
  });

  test('a command that only mentions a patch is still the command', () => {
    const entry = parseCall({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: "grep -n '*** Begin Patch' notes.md" }) });
    expect(entry).toMatchObject({ toolName: 'exec_command', text: "grep -n '*** Begin Patch' notes.md" });
  });
});

describe('codex: end events complete calls from an earlier chunk', () => {
  const at = (second: number): string => `2026-03-01T10:00:${String(second).padStart(2, '0')}.000Z`;
  const record = (line: number, type: string, payload: object): RawRecord => ({
    line,
    start: line,
    end: line + 1,
    value: { timestamp: at(line), type, payload },
  });
  const records = [
    record(1, 'response_item', { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"make"}', call_id: 'c1' }),
    record(2, 'event_msg', {
      type: 'exec_command_end',
      call_id: 'c1',
      aggregated_output: 'built\n',
      exit_code: 2,
      duration: { secs: 3, nanos: 500_000_000 },
    }),
    record(3, 'response_item', { type: 'function_call_output', call_id: 'c1', output: 'Exit code: 2\nWall time: 3.5 seconds\nOutput:\nbuilt\n' }),
    record(4, 'event_msg', { type: 'exec_command_end', call_id: 'user-shell-1', aggregated_output: 'x', exit_code: 0 }),
  ];

  test('the event brings the output and outcome; the later output item adds nothing twice', () => {
    const first = codexSource.parse(records.slice(0, 1), { path: '/x/r.jsonl', carry: null });
    const second = codexSource.parse(records.slice(1), { path: '/x/r.jsonl', carry: JSON.parse(JSON.stringify(first.carry)) });
    expect(second.results).toEqual([
      { key: 'tool:c1', result: 'built', resultId: null, exitCode: 2, durationMs: 3500, status: 'failed' },
      { key: 'tool:c1', result: null, resultId: 'L3', exitCode: 2, durationMs: 3500, status: 'failed' },
    ]);
    expect(second.duplicates).toBe(1);
    // A user's own `!cmd` has no call in the rollout: its end event is skipped, not an orphan result.
    expect(second.skipped).toEqual({ 'event_msg:exec_command_end': 1 });
  });
});
