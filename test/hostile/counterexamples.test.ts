import { describe, expect, test } from 'vitest';
import { claudeCodeSource } from '../../src/sources/claude-code.js';
import { codexSource } from '../../src/sources/codex.js';
import { openclawSource } from '../../src/sources/openclaw.js';
import type { Source } from '../../src/sources/source.js';
import { describeChunkFaults, expectChunkedLikeWhole, toRecords } from './records.js';

/**
 * Inputs the property tests in sources.test.ts once shrank to, kept as fixed cases so each stays fixed whatever
 * seed a run draws.
 */

const CLAUDE = '/home/me/.claude/projects/-home-me-repo/sess.jsonl';
const CODEX = '/home/me/.codex/sessions/2026/02/21/rollout-x.jsonl';
const OPENCLAW = '/home/me/.openclaw/agents/main/sessions/s.jsonl';

const WELL_TYPED: [string, Source, string, unknown[]][] = [
  ['codex: a context window of 5e-324 tokens', codexSource, CODEX, [
    { type: 'event_msg', timestamp: 1, payload: { type: 'token_count', info: { model_context_window: 5e-324, last_token_usage: { total_tokens: 8.881784197001252e-16 } } } },
  ]],
  ['codex: a context window of 5e-324 tokens and one token used', codexSource, CODEX, [
    { type: 'event_msg', timestamp: 5e-324, payload: { type: 'token_count', info: { model_context_window: 5e-324, last_token_usage: { input_tokens: 1 } } } },
  ]],
  ['codex: a duration of 1.8e305 seconds', codexSource, CODEX, [
    { type: 'response_item', payload: { type: 'local_shell_call', id: 'call_1' } },
    { type: 'event_msg', payload: { type: 'mcp_tool_call_end', call_id: 'call_1', duration: { secs: 1.797693134862316e305 } } },
  ]],
  ['openclaw: an infinite exit code', openclawSource, OPENCLAW, [
    { type: 'message', message: { role: 'bashExecution', exitCode: Number.POSITIVE_INFINITY } },
  ]],
  ['openclaw: a negative infinite exit code', openclawSource, OPENCLAW, [
    { type: 'message', message: { role: 'bashExecution', exitCode: Number.NEGATIVE_INFINITY } },
  ]],
];

describe('parse stays well-typed on', () => {
  test.each(WELL_TYPED)('%s', (_name, source, path, values) => {
    for (const carry of [null, {}, [], 0, '']) {
      expect(describeChunkFaults(source.parse(toRecords(values), { path, carry }))).toEqual([]);
    }
  });
});

const CHUNKED: [string, Source, string, unknown[], number[]][] = [
  ['claude: a thinking block naming a call id', claudeCodeSource, CLAUDE, [
    { type: 'user', sessionId: 's1' },
    { type: 'assistant', message: { content: [{ type: 'tool_use', id: 'c' }, { type: 'thinking', tool_use_id: 'c' }] } },
    { type: 'assistant', message: { content: [{ type: 'thinking', tool_use_id: 'c' }] } },
  ], [2]],
  ['claude: two results for one call', claudeCodeSource, CLAUDE, [
    { message: { content: [{ type: 'tool_use', id: 'b' }] }, type: 'assistant', sessionId: 's1' },
    { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'b' }, { type: 'tool_result', tool_use_id: 'b' }] } },
  ], [1]],
  ['codex: a web search end then an MCP end for one call id', codexSource, CODEX, [
    { type: 'session_meta', payload: { id: 'sess' } },
    { type: 'event_msg', payload: { type: 'web_search_end', call_id: 'c', query: '\u0000' } },
    { type: 'event_msg', payload: { type: 'mcp_tool_call_end', call_id: 'c' } },
  ], [2]],
  ['codex: a web search call with id toString ended by exec_command_end', codexSource, CODEX, [
    { type: 'session_meta', payload: { id: 'sess' } },
    { type: 'response_item', payload: { type: 'web_search_call', id: 'toString' } },
    { type: 'event_msg', payload: { type: 'exec_command_end', call_id: 'toString' } },
  ], [2]],
  ['codex: a web search call answered by a custom tool output', codexSource, CODEX, [
    { type: 'session_meta', payload: { id: 'sess' } },
    { type: 'response_item', payload: { type: 'web_search_call', id: 'a' } },
    { type: 'response_item', payload: { type: 'custom_tool_call_output', call_id: 'a' } },
  ], [2]],
  ['codex: a web search call ended by patch_apply_end', codexSource, CODEX, [
    { type: 'session_meta', payload: { id: 'sess' } },
    { type: 'response_item', payload: { type: 'web_search_call', id: 'b' } },
    { type: 'event_msg', payload: { type: 'patch_apply_end', call_id: 'b' } },
  ], [2]],
  ['claude: a record of type toString', claudeCodeSource, CLAUDE, [{ type: 'user', sessionId: 's1' }, { type: 'toString' }], []],
  ['openclaw: a record of type valueOf', openclawSource, OPENCLAW, [{ type: 'session', id: 'sess' }, { type: 'valueOf' }], []],
  ['codex: a record of type __proto__', codexSource, CODEX, [{ type: 'session_meta', payload: { id: 'sess' } }, JSON.parse('{"type":"__proto__"}')], [1]],
];

describe('chunked parsing equals whole-file parsing on', () => {
  test.each(CHUNKED)('%s', (_name, source, path, values, cuts) => {
    expectChunkedLikeWhole(source, values, path, cuts);
  });
});

test('skipped counts name what the transcript said, Object.prototype names included', () => {
  const values = [{ type: 'session_meta', payload: { id: 'sess' } }, { type: 'toString' }, JSON.parse('{"type":"__proto__"}'), { type: 'toString' }];
  const chunk = codexSource.parse(toRecords(values), { path: CODEX, carry: null });
  expect(JSON.stringify(chunk.skipped)).toBe('{"toString":2,"__proto__":1}');
});
