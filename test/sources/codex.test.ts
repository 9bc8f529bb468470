import { describe, expect, test } from 'vitest';
import { codexSource } from '../../src/sources/codex.js';
import type { RawRecord } from '../../src/sources/source.js';
import { countRoles, entryByKey, parseFixture } from './parse-helpers.js';

function records(values: unknown[]): RawRecord[] {
  return values.map((value, index) => ({ line: index + 1, start: index * 100, end: index * 100 + 100, value }));
}

const at = (second: number): string => `2026-03-01T10:00:${String(second).padStart(2, '0')}.000Z`;
const meta = { timestamp: at(0), type: 'session_meta', payload: { id: 'sess-1', cwd: '/w/app', model_provider: 'openai' } };
const userItem = (text: string, second: number) => ({
  timestamp: at(second),
  type: 'response_item',
  payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
});
const userEvent = (text: string, second: number) => ({
  timestamp: at(second),
  type: 'event_msg',
  payload: { type: 'user_message', message: text },
});

describe('codex: one of each tool shape', () => {
  const chunk = parseFixture(codexSource, 'codex/synthetic-tool-variants-unknown-type.jsonl');

  test('session facts come from session_meta', () => {
    expect(chunk.session).toMatchObject({
      id: '11111111-1111-4111-8111-111111111111',
      source: 'codex',
      cwd: '/workspace/synthetic-project',
      project: 'synthetic-project',
      branch: null,
      startMs: Date.parse('2026-01-02T03:04:05.000Z'),
      endMs: Date.parse('2026-01-02T03:04:16.000Z'),
    });
  });

  test('event_msg echoes of response_item messages are dropped, whichever came first wins', () => {
    expect(countRoles(chunk.entries)).toEqual({ user: 1, tool: 3, assistant: 2 });
    expect(chunk.duplicates).toBe(2);
    // The user's event_msg (line 3) came before its response_item (line 4); the agent's likewise (12 before 13).
    const messages = chunk.entries.filter((entry) => entry.role !== 'tool' && entry.kind === null);
    expect(messages.map((entry) => entry.id)).toEqual(['L3', 'L12']);
    expect(entryByKey(chunk.entries, 'm:L3').text).toBe('List the synthetic files.');
  });

  test('function_call, custom_tool_call and MCP calls pair with their outputs by call_id', () => {
    expect(entryByKey(chunk.entries, 'tool:call-structured-001')).toMatchObject({
      id: 'call-structured-001',
      toolName: 'exec_command',
      text: 'find . -maxdepth 1 -type f',
      toolTarget: 'find . -maxdepth 1 -type f',
      result: './alpha.txt\n./beta.txt',
      resultId: 'L7',
      line: 6,
      seq: 6000,
    });
    expect(entryByKey(chunk.entries, 'tool:call-custom-001')).toMatchObject({
      toolName: 'apply_patch',
      text: 'Add File: gamma.txt\n+ synthetic',
      toolTarget: 'gamma.txt',
      result: 'Done!',
    });
    expect(entryByKey(chunk.entries, 'tool:call-mcp-001')).toMatchObject({
      toolName: 'mcp__synthetic__lookup',
      text: 'query: fixture',
      toolTarget: 'fixture',
      // A JSON result reads as key: value lines, like every other structured output.
      result: 'status: ok',
    });
  });

  test('a reasoning summary is an assistant entry of kind reasoning; its encrypted content is dropped', () => {
    expect(entryByKey(chunk.entries, 'm:L5')).toMatchObject({
      role: 'assistant',
      kind: 'reasoning',
      text: 'I will inspect the synthetic directory.',
    });
    expect(JSON.stringify(chunk)).not.toContain('SYNTHETIC_ENCRYPTED_CONTENT');
  });

  test('unknown record types are counted, never entries', () => {
    expect(chunk.skipped).toEqual({ turn_context: 1, future_synthetic_record: 1 });
  });
});

describe('codex: a file with only event_msg messages', () => {
  test('the event_msg is the entry', () => {
    const chunk = parseFixture(codexSource, 'codex/synthetic-malformed-trailing-line.jsonl');
    expect(chunk.session).toMatchObject({ id: '66666666-6666-4666-8666-666666666666', project: 'synthetic-project' });
    expect(chunk.entries).toHaveLength(1);
    expect(chunk.entries[0]).toMatchObject({
      id: 'L2',
      key: 'm:L2',
      role: 'user',
      text: 'Safe line before malformed input.',
      ts: Date.parse('2026-02-01T00:00:01.000Z'),
    });
    expect(chunk.duplicates).toBe(0);
  });
});

describe('codex: subagent spawning', () => {
  const chunk = parseFixture(codexSource, 'codex/synthetic-spawn-agent-subagent.jsonl');

  test('spawn and wait calls without outputs are dangling tool entries', () => {
    expect(chunk.session).toMatchObject({ id: 'spawn-test-uuid', branch: 'main', project: 'project' });
    expect(countRoles(chunk.entries)).toEqual({ user: 1, tool: 3 });
    expect(entryByKey(chunk.entries, 'tool:call_skill1').result).toBe('ok');
    expect(entryByKey(chunk.entries, 'tool:call_spawn1')).toMatchObject({
      toolName: 'spawn_agent',
      text: 'agent_type: explorer\nmessage: review code',
      result: null,
    });
    expect(entryByKey(chunk.entries, 'tool:call_wait1').result).toBeNull();
  });

  test('a token_count without a known context window gives no usage snapshot', () => {
    expect(chunk.usage).toEqual([]);
    expect(chunk.skipped['event_msg:token_count']).toBe(1);
    expect(chunk.skipped['event_msg:collab_agent_spawn_end']).toBe(1);
  });
});

describe('codex: real short session ending in a dangling call', () => {
  const chunk = parseFixture(codexSource, 'codex/real-redacted-short-dangling-call-019c8a70.jsonl');

  test('developer messages are system entries; echoes are dropped', () => {
    expect(chunk.session).toMatchObject({
      id: '019c8a70-dda7-7f33-98ea-f30553347322',
      branch: 'main',
      cwd: '/redacted/path/da0ba47443',
      startMs: Date.parse('2026-02-23T12:19:42.561Z'),
      endMs: Date.parse('2026-02-23T12:19:52.689Z'),
    });
    expect(countRoles(chunk.entries)).toEqual({ system: 4, user: 4, assistant: 2, tool: 1 });
    // The agent_reasoning event came first; the reasoning item is its echo.
    expect(chunk.entries.filter((entry) => entry.kind === 'reasoning')).toHaveLength(1);
    expect(chunk.duplicates).toBe(3);
  });

  test('the last call has no output', () => {
    const call = entryByKey(chunk.entries, 'tool:call_UtYwHmwWekzvq83m8Rb9K8jJ');
    expect(call).toMatchObject({ toolName: 'exec_command', result: null, line: 18 });
    expect(chunk.entries.at(-1)).toBe(call);
  });

  test('token_count gives a usage snapshot against the model context window', () => {
    expect(chunk.usage).toEqual([
      {
        session_id: '019c8a70-dda7-7f33-98ea-f30553347322',
        used_tokens: 34_900,
        max_tokens: 258_400,
        usage_ratio: 34_900 / 258_400,
        captured_at_epoch_secs: Math.floor(Date.parse('2026-02-23T12:19:52.689Z') / 1000),
        provider: 'openai',
      },
    ]);
  });
});

describe('codex: real long session with compaction', () => {
  const chunk = parseFixture(codexSource, 'codex/real-redacted-compacted-long-019c8a59.jsonl');

  test('every message is counted once: 255 agent, 38 user and 199 reasoning echoes are dropped', () => {
    expect(countRoles(chunk.entries)).toEqual({ system: 45, user: 46, assistant: 255 + 199, tool: 372 });
    expect(chunk.duplicates).toBe(255 + 38 + 199);
  });

  test('199 reasoning summaries are entries; the 20 encrypted-only ones are skipped', () => {
    const reasoning = chunk.entries.filter((entry) => entry.kind === 'reasoning');
    expect(reasoning).toHaveLength(199);
    expect(reasoning.every((entry) => entry.role === 'assistant')).toBe(true);
    expect(chunk.skipped.reasoning).toBe(20);
  });

  test('all 365 calls pair with outputs; web searches are tool entries with their query', () => {
    const calls = chunk.entries.filter((entry) => entry.role === 'tool' && entry.toolName !== 'web_search');
    expect(calls).toHaveLength(365);
    expect(calls.every((entry) => entry.result !== null)).toBe(true);
    const searches = chunk.entries.filter((entry) => entry.toolName === 'web_search');
    expect(searches).toHaveLength(7);
    expect(searches[0]).toMatchObject({
      id: 'L41',
      key: 'tool:L41',
      text: '[REDACTED_QUERY len=34 sha=3bfc6233]',
      toolTarget: '[REDACTED_QUERY len=34 sha=3bfc6233]',
    });
  });

  test('the compacted record is an anchor pointing at the entry before it', () => {
    expect(chunk.anchors).toEqual([
      {
        id: 'L1788',
        sessionId: '019c8a59-e9dd-71f0-9ae3-4079fe9726a9',
        ts: Date.parse('2026-02-24T09:51:48.878Z'),
        line: 1788,
        note: '[REDACTED_MESSAGE len=0 sha=e3b0c442]',
        originId: 'call_87RiNjhfuAGXTgASxa05Xr4g',
      },
    ]);
    expect(chunk.skipped['event_msg:context_compacted']).toBe(1);
  });

  test('the latest token_count is the usage snapshot', () => {
    expect(chunk.usage).toHaveLength(1);
    expect(chunk.usage[0]).toMatchObject({
      used_tokens: 162_366,
      max_tokens: 258_400,
      captured_at_epoch_secs: Math.floor(Date.parse('2026-02-24T12:09:44.233Z') / 1000),
    });
  });
});

describe('codex: echo dedupe rules', () => {
  test('the same prompt sent twice is two entries; each echo is dropped once', () => {
    const chunk = codexSource.parse(
      records([meta, userItem('continue', 1), userEvent('continue', 2), userItem('continue', 3), userEvent('continue', 4)]),
      { path: '/x/rollout.jsonl', carry: null },
    );
    expect(chunk.entries.map((entry) => entry.id)).toEqual(['L2', 'L4']);
    expect(chunk.duplicates).toBe(2);
  });

  test('an echo holding only the typed text of a message with images is still an echo', () => {
    const withImage = {
      timestamp: at(1),
      type: 'response_item',
      payload: {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'what is wrong here?' },
          { type: 'input_text', text: '<image name=[Image #1]>' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
          { type: 'input_text', text: '</image>' },
        ],
      },
    };
    const chunk = codexSource.parse(records([meta, withImage, userEvent('what is wrong here?', 2)]), {
      path: '/x/rollout.jsonl',
      carry: null,
    });
    expect(chunk.entries).toHaveLength(1);
    expect(chunk.entries[0]!.text).toBe('what is wrong here?\n<image name=[Image #1]>\n</image>');
    expect(chunk.duplicates).toBe(1);
  });

  test('a user echo does not swallow an assistant message with the same text', () => {
    const agent = { timestamp: at(2), type: 'event_msg', payload: { type: 'agent_message', message: 'ok' } };
    const chunk = codexSource.parse(records([meta, userItem('ok', 1), agent]), { path: '/x/r.jsonl', carry: null });
    expect(countRoles(chunk.entries)).toEqual({ user: 1, assistant: 1 });
  });

  test('an echo in the next chunk is recognised through the carry', () => {
    const all = records([meta, userItem('deploy it', 1), userEvent('deploy it', 2)]);
    const first = codexSource.parse(all.slice(0, 2), { path: '/x/r.jsonl', carry: null });
    const second = codexSource.parse(all.slice(2), { path: '/x/r.jsonl', carry: JSON.parse(JSON.stringify(first.carry)) });
    expect(first.entries).toHaveLength(1);
    expect(second.entries).toHaveLength(0);
    expect(second.duplicates).toBe(1);
    expect(second.session.id).toBe('sess-1');
  });
});

describe('codex: other shapes', () => {
  test('shell argv calls show the script; subagent rollouts name their parent thread', () => {
    const subMeta = {
      timestamp: at(0),
      type: 'session_meta',
      payload: {
        id: 'child-1',
        cwd: '/w/app',
        source: { subagent: { thread_spawn: { parent_thread_id: 'parent-1', depth: 1 } } },
      },
    };
    const shell = {
      timestamp: at(1),
      type: 'response_item',
      payload: {
        type: 'function_call',
        name: 'shell',
        arguments: JSON.stringify({ command: ['bash', '-lc', 'npm test'], workdir: '/w/app' }),
        call_id: 'c1',
      },
    };
    const output = {
      timestamp: at(2),
      type: 'response_item',
      payload: { type: 'function_call_output', call_id: 'c1', output: 'ok' },
    };
    const chunk = codexSource.parse(records([subMeta, shell, output, 'garbage', { type: 'event_msg' }]), {
      path: '/x/r.jsonl',
      carry: null,
    });
    expect(chunk.session.parentSessionId).toBe('parent-1');
    expect(chunk.entries[0]).toMatchObject({ text: 'npm test', toolTarget: 'npm test', result: 'ok', resultId: 'L3' });
    expect(chunk.skipped).toEqual({ 'non-object': 1, event_msg: 1 });
  });

  test('without session_meta the id comes from the rollout file name', () => {
    const chunk = codexSource.parse(records([userEvent('hi', 1)]), {
      path: '/h/.codex/sessions/2026/03/01/rollout-2026-03-01T10-00-00-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
      carry: null,
    });
    expect(chunk.session.id).toBe('019c8a59-e9dd-71f0-9ae3-4079fe9726a9');
  });
});
