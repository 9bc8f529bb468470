import { describe, expect, test } from 'vitest';
import { openclawSource } from '../../src/sources/openclaw.js';
import type { RawRecord } from '../../src/sources/source.js';
import { countRoles, entryByKey, parseFixture } from './parse-helpers.js';

describe('openclaw: v3 tree with branching, compaction and an unknown entry', () => {
  const chunk = parseFixture(openclawSource, 'pi/synthetic-v3-branching-compaction-unknown-entry.jsonl');

  test('session facts come from the header', () => {
    expect(chunk.session).toMatchObject({
      id: 'fixture-session',
      source: 'openclaw',
      cwd: '/fixture',
      project: 'fixture',
      branch: null,
      startMs: Date.parse('2026-01-01T00:00:00.000Z'),
      endMs: Date.parse('2026-01-01T00:00:08.000Z'),
    });
  });

  test('entries keep their ids and tree parents; both branches are kept', () => {
    expect(chunk.entries.map((entry) => [entry.key, entry.id, entry.parentId])).toEqual([
      ['m:e1', 'e1', null],
      ['tool:call-1', 'e3', 'e2'],
      ['m:e6', 'e6', 'e5'],
      ['tool:call-2', 'e7', 'e2'],
    ]);
    expect(entryByKey(chunk.entries, 'm:e1')).toMatchObject({ role: 'user', text: 'sanitized', seq: 2000 });
  });

  test('a toolCall pairs with its toolResult; a call with empty arguments reads as its name', () => {
    expect(entryByKey(chunk.entries, 'tool:call-1')).toMatchObject({
      toolName: 'read',
      text: 'read',
      toolTarget: null,
      result: 'redacted fixture',
      resultId: 'e4',
    });
    expect(entryByKey(chunk.entries, 'tool:call-2').result).toBeNull();
  });

  test('compaction is an anchor pointing at the first kept entry', () => {
    expect(chunk.anchors).toEqual([
      {
        id: 'e5',
        sessionId: 'fixture-session',
        ts: Date.parse('2026-01-01T00:00:05.000Z'),
        line: 6,
        note: 'sanitized',
        originId: 'e3',
      },
    ]);
  });

  test('model changes and future entry types are counted', () => {
    expect(chunk.skipped).toEqual({ model_change: 1, future_entry: 1 });
    expect(JSON.stringify(chunk.entries)).not.toContain('ignored');
  });
});

describe('openclaw: errors', () => {
  const chunk = parseFixture(openclawSource, 'pi/synthetic-v3-error-toolresult-string-content.jsonl');

  test('an error toolResult with string content is the marked result of its call', () => {
    expect(entryByKey(chunk.entries, 'tool:call-a')).toMatchObject({
      id: 'g1',
      toolName: 'read',
      result: '[error] PRIVATE_TOOL_BODY',
      resultId: 'r1',
    });
  });

  test('an assistant turn that failed with no content says what went wrong', () => {
    expect(entryByKey(chunk.entries, 'm:g2')).toMatchObject({
      role: 'assistant',
      text: '429 rate limit from https://api.example.com/v1/chat?key=PRIVATE (see /home/dev/logs/x)',
    });
    expect(countRoles(chunk.entries)).toEqual({ tool: 1, assistant: 1 });
  });
});

describe('openclaw: subagent tool results', () => {
  const chunk = parseFixture(openclawSource, 'pi/synthetic-v3-subagent-tool-results.jsonl');

  test('empty result content pairs as an empty (or error-marked) result; the last call dangles', () => {
    expect(chunk.entries.map((entry) => [entry.key, entry.toolName, entry.result])).toEqual([
      ['tool:call-1', 'subagent', '[error]'],
      ['tool:call-2', 'subagent_wait', ''],
      ['tool:call-3', 'subagent', null],
    ]);
    expect(chunk.skipped).toEqual({ custom: 1 });
  });
});

describe('openclaw: legacy pi v1 session', () => {
  const chunk = parseFixture(openclawSource, 'pi/real-legacy-v1-with-compaction.jsonl');

  test('session facts come from the header without a version', () => {
    expect(chunk.session).toMatchObject({
      id: 'ffae836b-9420-4060-ac13-7745215f90ff',
      cwd: '/Users/badlogic/workspaces/pi-mono',
      project: 'pi-mono',
      // The first entry predates the header: this session was branched from an earlier one.
      startMs: Date.parse('2025-12-08T22:41:05.306Z'),
      endMs: Date.parse('2025-12-09T01:26:35.570Z'),
    });
  });

  test('entries without ids get line ids; 454 calls, 448 results, 3 bash executions', () => {
    expect(countRoles(chunk.entries)).toEqual({ user: 55, assistant: 268, tool: 457 });
    const calls = chunk.entries.filter((entry) => entry.key.startsWith('tool:'));
    expect(calls).toHaveLength(454);
    expect(calls.filter((entry) => entry.result === null).map((entry) => entry.line)).toEqual([374, 386, 386, 386, 628, 678]);
    expect(entryByKey(chunk.entries, 'tool:toolu_018AGG1WjGWVfUR2Sibzkh2Q')).toMatchObject({
      id: 'L3',
      seq: 3001,
      toolName: 'read',
      toolTarget: '/Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/tui/tui-renderer.ts',
      resultId: 'L5',
    });
    expect(chunk.skipped).toEqual({ thinking_level_change: 5, thinking: 49, model_change: 5 });
  });

  test('bashExecution is a bash tool entry with its output', () => {
    expect(entryByKey(chunk.entries, 'bash:L640')).toMatchObject({
      role: 'tool',
      toolName: 'bash',
      text: 'ls',
      toolTarget: 'ls',
      resultId: 'L640',
    });
    expect(entryByKey(chunk.entries, 'bash:L640').result).toMatch(/^AGENTS\.md\nbiome\.json/);
  });

  test('v1 compactions point at the kept entry by file index (header = 0)', () => {
    expect(chunk.anchors.map(({ id, line, originId }) => ({ id, line, originId }))).toEqual([
      { id: 'L360', line: 360, originId: 'L294' },
      { id: 'L629', line: 629, originId: 'L552' },
    ]);
    expect(entryByKey(chunk.entries, 'm:L294')).toMatchObject({
      role: 'user',
      text: "i reviwed what we have, it's good. continue",
    });
    expect(chunk.anchors[0]!.note).toMatch(/^# Context Checkpoint: Coding Agent Refactoring/);
  });

  test('aborted and failed turns keep their error message', () => {
    expect(entryByKey(chunk.entries, 'm:L91').text).toBe('Request was aborted.');
    expect(entryByKey(chunk.entries, 'm:L848').text).toMatch(/^400 \{"type":"error"/);
  });
});

describe('openclaw: carry', () => {
  const header = { type: 'session', version: 3, id: 's-9', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w/app' };
  const call = {
    type: 'message',
    id: 'a1',
    parentId: null,
    timestamp: '2026-01-01T00:00:01.000Z',
    message: { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: 'make' } }] },
  };
  const result = {
    type: 'message',
    id: 'r1',
    parentId: 'a1',
    timestamp: '2026-01-01T00:00:02.000Z',
    message: { role: 'toolResult', toolCallId: 'c1', content: [{ type: 'text', text: 'built' }], isError: false },
  };
  const records: RawRecord[] = [header, call, result].map((value, index) => ({ line: index + 1, start: 0, end: 0, value }));

  test('a result in a later chunk is a patch for the earlier call', () => {
    const first = openclawSource.parse(records.slice(0, 2), { path: '/x/s.jsonl', carry: null });
    const second = openclawSource.parse(records.slice(2), { path: '/x/s.jsonl', carry: first.carry });
    expect(first.entries[0]).toMatchObject({ key: 'tool:c1', text: 'make', result: null });
    expect(second.entries).toEqual([]);
    expect(second.results).toEqual([{ key: 'tool:c1', result: 'built', resultId: 'r1' }]);
    expect(second.session).toMatchObject({ id: 's-9', cwd: '/w/app', startMs: Date.parse(header.timestamp) });
  });

  test('a result for a call nobody made is counted, not patched', () => {
    const chunk = openclawSource.parse(records.slice(2), { path: '/h/.openclaw/agents/main/sessions/x.jsonl', carry: null });
    expect(chunk.results).toEqual([]);
    expect(chunk.skipped).toEqual({ 'orphan-tool-result': 1 });
    // No header yet: the file name is the id and the agent folder the project.
    expect(chunk.session).toMatchObject({ id: 'x', project: 'main' });
  });
});
