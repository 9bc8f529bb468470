import { describe, expect, test } from 'vitest';
import { claudeCodeSource } from '../../src/sources/claude-code.js';
import { codexSource } from '../../src/sources/codex.js';
import { openclawSource } from '../../src/sources/openclaw.js';
import { nameProjectByFolder } from '../../src/sources/path-names.js';
import type { ParsedChunk, Source } from '../../src/sources/source.js';
import { describeChunkFaults, measureOutput, toRecords } from './records.js';

/**
 * Extreme shapes no generator reaches by chance: JSON nested 10k levels deep, 100k content blocks, a 2 MB text,
 * a cwd of a hundred thousand folders. Each is built at test time; parse must return, well-typed and bounded.
 */

const DEPTH = 10_000;
const CLAUDE_PATH = '/home/me/.claude/projects/-home-me-repo/sess.jsonl';
const CODEX_PATH = '/home/me/.codex/sessions/2026/02/21/rollout-x.jsonl';
const OPENCLAW_PATH = '/home/me/.openclaw/agents/main/sessions/s.jsonl';
const TS = '2026-02-21T10:00:00.000Z';

/**
 * JSON text of a leaf wrapped DEPTH times, built as text: JSON.stringify recurses and cannot write it, while
 * JSON.parse (what the line reader uses) reads it.
 */
const SHAPES: [string, string, string][] = [
  ['objects', '{"a":', '}'],
  ['arrays', '[', ']'],
  ['content wrappers', '{"content":[', ']}'],
  ['typed content blocks', '{"type":"tool_result","content":[', ']}'],
];

function expectSound(chunk: ParsedChunk, inputChars: number): void {
  expect(describeChunkFaults(chunk)).toEqual([]);
  expect(measureOutput(chunk)).toBeLessThanOrEqual(8 * inputChars + 10_000);
}

function parseValues(source: Source, values: unknown[], path: string): ParsedChunk {
  return source.parse(toRecords(values), { path, carry: null });
}

describe.each(SHAPES)('JSON nested %s 10k levels deep', (_shape, open, close) => {
  const text = `${open.repeat(DEPTH)}"the leaf"${close.repeat(DEPTH)}`;
  const deep = JSON.parse(text) as unknown;
  const size = text.length;

  test('claude-code: as a tool input, a tool result and a toolUseResult', () => {
    const values = [
      { type: 'assistant', uuid: 'a1', sessionId: 's', timestamp: TS, message: { id: 'm1', content: [{ type: 'tool_use', id: 't1', name: 'Deep', input: deep }] } },
      { type: 'user', uuid: 'u1', sessionId: 's', timestamp: TS, toolUseResult: deep, message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: [deep] }] } },
      { type: 'user', uuid: 'u2', sessionId: 's', timestamp: TS, message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: text }] } },
    ];
    expectSound(parseValues(claudeCodeSource, values, CLAUDE_PATH), 3 * size);
  });

  test('codex: as call arguments, an output object and an output JSON string', () => {
    const values = [
      { type: 'session_meta', timestamp: TS, payload: { id: 'sess', cwd: '/repo' } },
      { type: 'response_item', timestamp: TS, payload: { type: 'function_call', call_id: 'c1', name: 'deep', arguments: text } },
      { type: 'response_item', timestamp: TS, payload: { type: 'function_call_output', call_id: 'c1', output: deep } },
      { type: 'response_item', timestamp: TS, payload: { type: 'function_call', call_id: 'c2', name: 'deep', arguments: deep } },
      { type: 'response_item', timestamp: TS, payload: { type: 'function_call_output', call_id: 'c2', output: text } },
      { type: 'response_item', timestamp: TS, payload: { type: 'message', role: 'user', content: deep } },
    ];
    expectSound(parseValues(codexSource, values, CODEX_PATH), 5 * size);
  });

  test('openclaw: as tool arguments, a tool result and a bash output', () => {
    const values = [
      { type: 'session', version: 3, id: 'sess', cwd: '/repo', timestamp: TS },
      { type: 'message', id: 'm1', timestamp: TS, message: { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'deep', arguments: deep }] } },
      { type: 'message', id: 'm2', timestamp: TS, message: { role: 'toolResult', toolCallId: 'c1', content: deep } },
      { type: 'message', id: 'm3', timestamp: TS, message: { role: 'bashExecution', command: 'ls', output: deep } },
    ];
    expectSound(parseValues(openclawSource, values, OPENCLAW_PATH), 3 * size);
  });
});

describe('huge arrays and texts', () => {
  const BLOCKS = 100_000;

  test('claude-code: an assistant message of 100k content blocks and a user message of 100k tool results', () => {
    const texts = Array.from({ length: BLOCKS }, (_, index) => ({ type: 'text', text: `block ${index}` }));
    const calls = Array.from({ length: BLOCKS }, (_, index) => ({ type: 'tool_use', id: `t${index % 300}`, name: 'Bash', input: { command: 'ls' } }));
    const results = Array.from({ length: BLOCKS }, (_, index) => ({ type: 'tool_result', tool_use_id: `t${index % 300}`, content: 'ok' }));
    const values = [
      { type: 'assistant', uuid: 'a1', sessionId: 's', timestamp: TS, message: { id: 'm1', content: texts } },
      { type: 'assistant', uuid: 'a2', sessionId: 's', timestamp: TS, message: { id: 'm2', content: calls } },
      { type: 'user', uuid: 'u1', sessionId: 's', timestamp: TS, message: { content: results } },
    ];
    const chunk = parseValues(claudeCodeSource, values, CLAUDE_PATH);
    expectSound(chunk, JSON.stringify(values).length);
    expect(chunk.entries.filter((entry) => entry.role === 'tool')).toHaveLength(300);
  });

  test('codex: a message of 100k content blocks and 100k queries', () => {
    const blocks = Array.from({ length: BLOCKS }, (_, index) => ({ type: 'input_text', text: `block ${index}` }));
    const queries = Array.from({ length: BLOCKS }, (_, index) => `query ${index}`);
    const values = [
      { type: 'session_meta', timestamp: TS, payload: { id: 'sess' } },
      { type: 'response_item', timestamp: TS, payload: { type: 'message', role: 'user', content: blocks } },
      { type: 'response_item', timestamp: TS, payload: { type: 'web_search_call', action: { queries } } },
      { type: 'response_item', timestamp: TS, payload: { type: 'reasoning', summary: blocks } },
    ];
    expectSound(parseValues(codexSource, values, CODEX_PATH), JSON.stringify(values).length);
  });

  test('openclaw: an assistant message of 20k tool calls and a result of 100k blocks', () => {
    const calls = Array.from({ length: BLOCKS / 5 }, (_, index) => ({ type: 'toolCall', id: `c${index}`, name: 'read', arguments: { path: `f${index}` } }));
    const blocks = Array.from({ length: BLOCKS }, (_, index) => ({ type: 'text', text: `line ${index}` }));
    const values = [
      { type: 'session', version: 3, id: 'sess', timestamp: TS },
      { type: 'message', id: 'm1', timestamp: TS, message: { role: 'assistant', content: calls } },
      { type: 'message', id: 'm2', timestamp: TS, message: { role: 'toolResult', toolCallId: 'c7', content: blocks } },
    ];
    expectSound(parseValues(openclawSource, values, OPENCLAW_PATH), JSON.stringify(values).length);
  });

  test('a 2 MB text, a 2 MB Edit and a 2 MB apply_patch stay proportional (edits bounded)', () => {
    const big = 'word '.repeat(400_000);
    const claude = parseValues(
      claudeCodeSource,
      [
        { type: 'user', uuid: 'u1', sessionId: 's', timestamp: TS, message: { content: big } },
        { type: 'assistant', uuid: 'a1', sessionId: 's', timestamp: TS, message: { id: 'm', content: [{ type: 'tool_use', id: 't', name: 'Edit', input: { file_path: 'a.ts', old_string: big, new_string: big.replaceAll(' ', '\n') } }] } },
      ],
      CLAUDE_PATH,
    );
    expect(describeChunkFaults(claude)).toEqual([]);
    expect(claude.entries.find((entry) => entry.role === 'tool')!.text.length).toBeLessThan(20_000);
    const patch = `*** Begin Patch\n*** Update File: a.ts\n${'+line\n'.repeat(400_000)}*** End Patch`;
    const codex = parseValues(
      codexSource,
      [{ type: 'response_item', timestamp: TS, payload: { type: 'custom_tool_call', call_id: 'p', name: 'apply_patch', input: patch } }],
      CODEX_PATH,
    );
    expect(codex.entries[0]!.text.length).toBeLessThan(20_000);
  });

  test('a cwd of 100k folders names its project in one pass', () => {
    const cwd = '/a'.repeat(100_000);
    const values = [{ type: 'user', uuid: 'u1', sessionId: 's', cwd, timestamp: TS, message: { content: 'hello there' } }];
    const chunk = parseValues(claudeCodeSource, values, '/home/me/.claude/projects/-a-a-a/s.jsonl');
    expect(chunk.session.project).toBe('a');
    expect(nameProjectByFolder('-home-me-repo', '/home/me/repo/.claude/worktrees/x')).toBe('repo');
    expect(nameProjectByFolder('-home-me-repo', '/home/me/repository')).toBeNull();
    expect(nameProjectByFolder('-home-me-repo', '/home/me')).toBeNull();
    expect(nameProjectByFolder(`-${'a-'.repeat(49_999)}a`, cwd)).toBe('a');
  });
});
