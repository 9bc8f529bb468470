import { describe, expect, test } from 'vitest';
import { claudeCodeSource } from '../../src/sources/claude-code.js';
import type { RawRecord } from '../../src/sources/source.js';
import { countRoles, entryByKey, loadRecords, parseFixture } from './parse-helpers.js';

const WORKTREES = 'claude-code/real-worktrees-session-with-subagents';
const MAIN_SESSION = 'ef958aa1-0e93-49f0-bb71-150f63befcd1';

/** Distinct message.id + requestId of assistant records that hold a non-empty text block. */
function countTextMessages(records: readonly RawRecord[]): number {
  const keys = new Set<string>();
  for (const { value } of records) {
    const record = value as { type?: string; requestId?: string; message?: { id?: string; content?: unknown } };
    if (record?.type !== 'assistant' || !Array.isArray(record.message?.content)) continue;
    const hasText = (record.message.content as { type?: string; text?: string }[]).some(
      (block) => block?.type === 'text' && (block.text ?? '').trim() !== '',
    );
    if (hasText) keys.add(`${record.message.id}:${record.requestId}`);
  }
  return keys.size;
}

describe('claude code: main transcript with subagents', () => {
  const chunk = parseFixture(claudeCodeSource, `${WORKTREES}/${MAIN_SESSION}.jsonl`);

  test('session facts come from the records', () => {
    expect(chunk.session).toMatchObject({
      id: MAIN_SESSION,
      source: 'claude-code',
      cwd: '-experiments/worktrees',
      project: 'worktrees',
      branch: 'master',
      parentSessionId: null,
      startMs: Date.parse('2026-04-18T13:10:51.686Z'),
    });
    expect(chunk.session.endMs).toBeGreaterThan(chunk.session.startMs!);
    expect(chunk.fork).toBe(false);
  });

  test('entries by role: 4 prompts, 8 assistant texts, 40 tool calls, 2 recaps', () => {
    expect(countRoles(chunk.entries)).toEqual({ user: 4, assistant: 8, tool: 40, system: 2 });
  });

  test('one assistant entry per message.id + requestId with text', () => {
    const records = loadRecords(`${WORKTREES}/${MAIN_SESSION}.jsonl`);
    expect(chunk.entries.filter((entry) => entry.role === 'assistant')).toHaveLength(countTextMessages(records));
  });

  test('a tool call is one entry carrying its result', () => {
    const bash = entryByKey(chunk.entries, 'tool:toolu_01EF5USXVKgAdkiavtVPk5zb');
    expect(bash).toMatchObject({
      id: '53204f50-dc97-4ef8-842f-8a698f12a62b',
      role: 'tool',
      toolName: 'Bash',
      text: 'git status && git log --oneline -5 && git branch -a && ls',
      toolTarget: 'git status && git log --oneline -5 && git branch -a && ls',
      resultId: '6ae56fa4-d10b-4c3f-841e-db599e8a768c',
      line: 15,
      seq: 15000,
    });
    expect(bash.result).toMatch(/^On branch master/);
    expect(chunk.entries.filter((entry) => entry.role === 'tool').every((entry) => entry.result !== null)).toBe(true);
  });

  test('tool_reference blocks in a result become readable markers', () => {
    expect(entryByKey(chunk.entries, 'tool:toolu_01VwcbFQdxaTPyNq4izG9y91').result).toBe('[tool_reference: TaskUpdate]');
  });

  test('thinking, meta prompts and bookkeeping records are counted, not entries', () => {
    expect(chunk.skipped).toEqual({
      'permission-mode': 8,
      attachment: 49,
      'file-history-snapshot': 3,
      thinking: 14,
      'last-prompt': 7,
      'system:stop_hook_summary': 2,
      'system:turn_duration': 2,
      'user:meta': 1,
    });
    expect(chunk.entries.some((entry) => entry.text.includes('signature'))).toBe(false);
  });

  test('usage of the latest assistant message counts fresh and cached input', () => {
    expect(chunk.usage).toHaveLength(1);
    expect(chunk.usage[0]).toMatchObject({ session_id: MAIN_SESSION, max_tokens: 200_000, provider: 'anthropic' });
    expect(chunk.usage[0]!.used_tokens).toBe(66_603);
    expect(chunk.usage[0]!.usage_ratio).toBeCloseTo(66_603 / 200_000);
  });
});

describe('claude code: subagent transcripts are their own sessions', () => {
  test.each([
    ['agent-aef063ba534d73153', { user: 1, assistant: 3, tool: 6 }, {}],
    ['agent-a52886dc180afb356', { user: 1, assistant: 8, tool: 17 }, { 'user:meta': 1 }],
  ])('%s', (agent, roles, skipped) => {
    const chunk = parseFixture(claudeCodeSource, `${WORKTREES}/${MAIN_SESSION}/subagents/${agent}.jsonl`);
    expect(chunk.session.id).toBe(`${MAIN_SESSION}:${agent}`);
    expect(chunk.session.parentSessionId).toBe(MAIN_SESSION);
    expect(countRoles(chunk.entries)).toEqual(roles);
    expect(chunk.skipped).toEqual(skipped);
    // Within its own session a subagent's records are the main line, not a side branch.
    expect(chunk.entries.every((entry) => entry.sidechain === false && entry.sessionId === chunk.session.id)).toBe(true);
  });

  test('a worktree subagent reports its own cwd and branch, and its parent repo as project', () => {
    const chunk = parseFixture(claudeCodeSource, `${WORKTREES}/${MAIN_SESSION}/subagents/agent-a52886dc180afb356.jsonl`);
    expect(chunk.session).toMatchObject({
      cwd: '-experiments/worktrees/.claude/worktrees/agent-a52886dc',
      project: 'worktrees',
      branch: 'worktree-agent-a4ca7529',
    });
  });
});

describe('claude code: inline sidechain (2025 Task agent)', () => {
  const chunk = parseFixture(claudeCodeSource, 'claude-code/sidechain-inline-task-agent.jsonl');

  test('sidechain records stay in the main session, flagged', () => {
    expect(chunk.session.id).toBe('df749439-8556-41bf-9965-9f49cf38bf2a');
    expect(chunk.session.parentSessionId).toBeNull();
    expect(countRoles(chunk.entries)).toEqual({ tool: 3, user: 1, assistant: 3 });
    const task = entryByKey(chunk.entries, 'tool:toolu_01VJzVGXqdaUe6AYX6CAJUHz');
    expect(task).toMatchObject({ toolName: 'Task', sidechain: false, result: null });
    expect(task.text).toMatch(/^description: Debug failing test output\nprompt: I need to debug/);
    expect(chunk.entries.filter((entry) => entry.sidechain)).toHaveLength(6);
  });

  test('a call whose result never came is dangling', () => {
    const read = entryByKey(chunk.entries, 'tool:toolu_01FwpdD58c3rYax9Ykk4ikeV');
    expect(read).toMatchObject({
      toolName: 'Read',
      toolTarget: '/Users/dain/workspace/claude-code-log/claude_code_log/templates/transcript.html',
      result: null,
      resultId: null,
    });
    expect(entryByKey(chunk.entries, 'tool:toolu_013Mv3kjZRQqkAwzzYC2BQaD').result).toMatch(/Tests for the collapsible/);
  });
});

describe('claude code: compaction', () => {
  test('compact_boundary and the continuation summary become anchors, not entries', () => {
    const chunk = parseFixture(claudeCodeSource, 'claude-code/synthetic-compact-after-rewind.jsonl');
    expect(chunk.anchors).toEqual([
      {
        id: 'cb',
        sessionId: 's1',
        ts: Date.parse('2025-07-01T10:30:00.000Z'),
        line: 9,
        note: 'Conversation compacted (auto, 150000)',
        originId: 'b2a2',
      },
      {
        id: 'cs',
        sessionId: 's1',
        ts: Date.parse('2025-07-01T10:30:01.000Z'),
        line: 10,
        note: 'This session is being continued from a previous conversation that ran out of context. Summary: the user asked for a plan.',
        originId: 'cb',
      },
    ]);
    expect(countRoles(chunk.entries)).toEqual({ user: 5, assistant: 5 });
    expect(chunk.entries.some((entry) => entry.text.includes('being continued'))).toBe(false);
    // Both branches of the rewind are kept: the transcript records what was said, not which branch won.
    expect(chunk.entries.map((entry) => entry.id)).toEqual([
      'u1', 'a1', 'b1u', 'b1a', 'b2u', 'b2a', 'b2u2', 'b2a2', 'p1u', 'p1a',
    ]);
    expect(entryByKey(chunk.entries, 'u:b2u').parentId).toBe('a1');
    expect(chunk.session).toMatchObject({
      id: 's1',
      cwd: '/tmp',
      project: 'tmp',
      startMs: Date.parse('2025-07-01T10:00:00.000Z'),
      endMs: Date.parse('2025-07-01T10:41:00.000Z'),
    });
  });

  test('a real mid-file compaction', () => {
    const chunk = parseFixture(claudeCodeSource, 'claude-code/real-compaction-compact-boundary.jsonl');
    expect(chunk.anchors.map(({ id, line, note, originId }) => ({ id, line, note: note.slice(0, 40), originId }))).toEqual([
      {
        id: '0ef6aa04-0891-4fae-8565-2dae6810816f',
        line: 158,
        note: 'Conversation compacted (auto, 155979)',
        originId: 'c199c148-d599-4171-a83b-3589965168df',
      },
      {
        id: 'b91fc334-09f7-4841-a69d-8b9a5bd625a3',
        line: 159,
        note: 'This session is being continued from a p',
        originId: '0ef6aa04-0891-4fae-8565-2dae6810816f',
      },
    ]);
    expect(countRoles(chunk.entries)).toEqual({ user: 19, assistant: 29, tool: 48 });
    // queue-operation records later in the file are not the fork marker.
    expect(chunk.fork).toBe(false);
    expect(chunk.skipped['queue-operation']).toBe(2);
    expect(chunk.session.branch).toBe('conversations');
  });
});

describe('claude code: odd records', () => {
  const chunk = parseFixture(claudeCodeSource, 'claude-code/edge-cases-odd-records.jsonl');

  test('non-objects, records without type and malformed messages are counted, never thrown', () => {
    expect(chunk.skipped).toEqual({ 'non-object': 3, 'missing-type': 1, 'malformed:user': 1, 'user:empty': 1 });
    expect(countRoles(chunk.entries)).toEqual({ user: 7, assistant: 2, tool: 3 });
  });

  test('a summary record is the session title, not a compaction anchor', () => {
    expect(chunk.anchors).toEqual([]);
    expect(chunk.session.title).toMatch(/^Tested various edge cases/);
  });

  test('an error result is marked; a result hidden under a misspelt key leaves its call dangling', () => {
    expect(entryByKey(chunk.entries, 'tool:tool_edge_001')).toMatchObject({
      toolName: 'FailingTool',
      text: 'test_param: This tool will fail to demonstrate error handling',
      result: '[error] Error: Tool execution failed with error: Command not found',
      resultId: 'edge_005',
      status: 'error',
    });
    const edit = entryByKey(chunk.entries, 'tool:tool_edge_002');
    expect(edit).toMatchObject({ toolName: 'MultiEdit', toolTarget: '/tmp/complex_example.py', result: null });
    // The edits read as the diff they make: the code written is findable by its identifiers.
    expect(edit.text.startsWith('Update File: /tmp/complex_example.py\n+ #!/usr/bin/env python3\n')).toBe(true);
    expect(edit.text).toContain('+ def process_data(items: List[Dict[str, Any]]) -> None:');
  });

  test('a bare string in a content array is text', () => {
    expect(entryByKey(chunk.entries, 'u:edge_010')).toMatchObject({ text: 'wow error', line: 18 });
  });

  test('text and tool_use blocks of one record keep their block order in seq', () => {
    expect(entryByKey(chunk.entries, 'msg:edge_009:req_edge_003').seq).toBe(9000);
    expect(entryByKey(chunk.entries, 'tool:tool_edge_002').seq).toBe(9001);
  });
});

describe('claude code: streaming-split assistant messages', () => {
  const chunk = parseFixture(claudeCodeSource, 'claude-code/synthetic-streaming-split-text.jsonl');

  test('text blocks of one message.id + requestId merge into one entry, across tool calls', () => {
    const assistants = chunk.entries.filter((entry) => entry.role === 'assistant');
    expect(assistants).toHaveLength(2);
    expect(assistants[0]).toMatchObject({
      key: 'msg:msg_1:req_1',
      id: 's-a2',
      line: 3,
      seq: 3000,
      parentId: 's-a1',
      text: 'Let me run the cart tests first.\n\nThe quantity merge drops duplicates.',
      ts: Date.parse('2026-03-02T10:00:02.000Z'),
    });
    expect(assistants[1]).toMatchObject({
      key: 'msg:msg_2:req_2',
      text: 'Fixed: the cart no longer de-duplicates items.\n\nRun `npm test` again to confirm.',
    });
  });

  test('tool calls of the message are separate entries with their results', () => {
    expect(entryByKey(chunk.entries, 'tool:toolu_run')).toMatchObject({
      id: 's-a3',
      toolName: 'Bash',
      text: 'npm test -- cart',
      result: '[error] FAIL cart.test.ts\n  expected 3 items, got 2',
      resultId: 's-r1',
      status: 'error',
    });
    expect(entryByKey(chunk.entries, 'tool:toolu_edit')).toMatchObject({
      toolTarget: '/home/dev/shop/src/cart.ts',
      text: 'Update File: /home/dev/shop/src/cart.ts\n- new Set(items)\n+ items',
      result: 'The file /home/dev/shop/src/cart.ts has been updated.',
    });
  });

  test('entries are in seq order and images are counted', () => {
    expect(chunk.entries.map((entry) => entry.seq)).toEqual([1000, 3000, 4000, 7000, 9000, 10000]);
    expect(chunk.skipped).toEqual({ thinking: 1, 'user:image': 1 });
    expect(entryByKey(chunk.entries, 'u:s-u2').text).toBe('thanks');
  });

  test('usage is input plus cache tokens of the latest message', () => {
    expect(chunk.usage).toEqual([
      {
        session_id: 'stream-1',
        used_tokens: 21_505,
        max_tokens: 200_000,
        usage_ratio: 21_505 / 200_000,
        captured_at_epoch_secs: Date.parse('2026-03-02T10:00:15.000Z') / 1000,
        provider: 'anthropic',
      },
    ]);
  });
});

describe('claude code: fork sessions (seed 002)', () => {
  test('a file whose first record is a queue-operation is a fork', () => {
    const chunk = parseFixture(claudeCodeSource, 'claude-code/synthetic-fork-queue-operation.jsonl');
    expect(chunk.fork).toBe(true);
    expect(chunk.session).toMatchObject({ id: 'fork-1', cwd: '/home/dev/app', branch: 'main', project: 'app' });
    expect(chunk.skipped).toEqual({ 'queue-operation': 2 });
    expect(countRoles(chunk.entries)).toEqual({ user: 1, assistant: 1 });
  });

  test('the fork verdict survives into later chunks through the carry', () => {
    const records = loadRecords('claude-code/synthetic-fork-queue-operation.jsonl');
    const path = '/x/fork-1.jsonl';
    const first = claudeCodeSource.parse(records.slice(0, 1), { path, carry: null });
    const second = claudeCodeSource.parse(records.slice(1), { path, carry: first.carry });
    expect(first.fork).toBe(true);
    expect(second.fork).toBe(true);
  });

  test('a queue-operation in a later chunk does not make a session a fork', () => {
    const records = loadRecords('claude-code/synthetic-fork-queue-operation.jsonl');
    const path = '/x/fork-1.jsonl';
    const first = claudeCodeSource.parse(records.slice(2, 3), { path, carry: null });
    const second = claudeCodeSource.parse(records.slice(0, 2), { path, carry: first.carry });
    expect(second.fork).toBe(false);
  });
});

describe('claude code: session id fallbacks', () => {
  test('without sessionId the file name stem is the id, and the project folder names the project', () => {
    const records: RawRecord[] = [
      { line: 1, start: 0, end: 10, value: { type: 'user', uuid: 'x1', message: { role: 'user', content: 'hello' } } },
    ];
    const chunk = claudeCodeSource.parse(records, {
      path: '/home/dev/.claude/projects/-home-dev-shop/abc-123.jsonl',
      carry: null,
    });
    expect(chunk.session).toMatchObject({ id: 'abc-123', project: '-home-dev-shop', cwd: null });
    expect(chunk.entries[0]).toMatchObject({ id: 'x1', key: 'u:x1', sessionId: 'abc-123', ts: null });
  });

  test('parse does not change the carry it was given', () => {
    const records = loadRecords('claude-code/synthetic-streaming-split-text.jsonl');
    const first = claudeCodeSource.parse(records.slice(0, 3), { path: '/x/s.jsonl', carry: null });
    const frozen = JSON.stringify(first.carry);
    claudeCodeSource.parse(records.slice(3), { path: '/x/s.jsonl', carry: first.carry });
    expect(JSON.stringify(first.carry)).toBe(frozen);
  });
});

describe('claude code: a message continued long after it left the carry', () => {
  const assistant = (line: number, id: string, text: string): RawRecord => ({
    line,
    start: 0,
    end: 0,
    value: {
      type: 'assistant',
      sessionId: 'late-1',
      uuid: `u${line}`,
      requestId: `req_${id}`,
      timestamp: `2026-03-03T10:00:${String(line).padStart(2, '0')}.000Z`,
      message: { id, role: 'assistant', content: [{ type: 'text', text }] },
    },
  });

  test('its late text still continues the same key, so nothing stored is lost', () => {
    const early = Array.from({ length: 20 }, (_, index) => assistant(index + 1, `M${index}`, `text ${index}`));
    const first = claudeCodeSource.parse(early, { path: '/x/late-1.jsonl', carry: null });
    expect(first.carry).toMatchObject({ open: expect.any(Array) });
    expect((first.carry as { open: unknown[] }).open).toHaveLength(16);
    const second = claudeCodeSource.parse([assistant(21, 'M0', 'late'), assistant(22, 'M19', 'more')], {
      path: '/x/late-1.jsonl',
      carry: JSON.parse(JSON.stringify(first.carry)),
    });
    expect(second.entries.map((entry) => [entry.key, entry.id, entry.seq, entry.text])).toEqual([
      ['msg:M19:req_M19', 'u20', 20000, 'more'],
      // Evicted from the carry: the key still matches; the store keeps the first record's id and seq.
      ['msg:M0:req_M0', 'u21', 21000, 'late'],
    ]);
  });
});
