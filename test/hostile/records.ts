import fc from 'fast-check';
import { expect } from 'vitest';
import { ROLES, type Entry } from '../../src/model.js';
import type { ParsedChunk, RawRecord, Source } from '../../src/sources/source.js';
import { mergeWhole, parseInChunks } from '../sources/parse-helpers.js';

/**
 * Record-shaped hostile inputs: objects with the keys each transcript format uses, where any field may instead
 * hold a value of the wrong type (numbers where strings go, arrays where objects go, null) or be missing. Ids come
 * from small pools, so duplicate ids, results before their calls and results for unknown calls happen often.
 */

/** Any JSON value, shallow enough to keep a run fast. */
export const anyJson = fc.jsonValue({ maxDepth: 3 });

/** The intended arbitrary most of the time, otherwise a wrong-typed value or nothing at all. */
export function maybe<T>(intended: fc.Arbitrary<T>): fc.Arbitrary<T | unknown> {
  return fc.oneof(
    { weight: 10, arbitrary: intended },
    { weight: 1, arbitrary: anyJson },
    { weight: 1, arbitrary: fc.constant(null) },
  );
}

const ids = fc.constantFrom('a', 'b', 'c', 'call_1', 'call_2', '', 'toString', '__proto__');
const names = fc.constantFrom('Bash', 'Edit', 'Write', 'MultiEdit', 'TodoWrite', 'shell', 'exec_command', 'apply_patch', 'write_stdin', 'read', 'edit', '');
const texts = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    'Exit code 2\nboom',
    'Exit code: 0\nWall time: 1.5 seconds\nOutput:\nok',
    'Process running with session ID 7\nOutput:\nwaiting',
    '*** Begin Patch\n*** Update File: a.ts\n-old\n+new\n*** End Patch',
    '{"success":true,"message":"sent"}',
    'Links: [{"title":"x","url":"y"}]',
    '{"output":"hi","metadata":{"exit_code":1,"duration_seconds":1e308}}',
    '[REDACTED_TEXT len=3 sha=ab]',
  ),
);
const timestamps = fc.oneof(
  fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString()),
  fc.integer(),
  fc.double(),
  fc.constantFrom('2026-02-31T00:00:00Z', '0000-01-01', '9999-12-31T23:59:60Z', '1e400', '-1', 'yesterday'),
);
const inputs = fc.oneof(
  fc.dictionary(fc.constantFrom('command', 'cmd', 'file_path', 'path', 'old_string', 'new_string', 'content', 'edits', 'todos', 'session_id', 'chars', 'input', 'url'), maybe(texts), { maxKeys: 4 }),
  texts,
  anyJson,
);
const contents = fc.oneof(texts, fc.array(maybe(fc.record({ type: maybe(fc.constantFrom('text', 'image', 'output_text', 'tool_reference')), text: maybe(texts) }, { requiredKeys: [] })), { maxLength: 4 }), anyJson);

const claudeBlock = fc.oneof(
  fc.record({ type: fc.constant('text'), text: maybe(texts) }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('tool_use'), id: maybe(ids), name: maybe(names), input: maybe(inputs) }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('tool_result'), tool_use_id: maybe(ids), content: maybe(contents), is_error: maybe(fc.boolean()) }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constantFrom('thinking', 'server_tool_use', 'web_search_tool_result'), tool_use_id: maybe(ids), id: maybe(ids) }, { requiredKeys: ['type'] }),
  texts,
  anyJson,
);

export const claudeRecord = fc.record(
  {
    type: maybe(fc.constantFrom('user', 'assistant', 'system', 'summary', 'custom-title', 'queue-operation', 'attachment')),
    uuid: maybe(ids),
    parentUuid: maybe(ids),
    sessionId: maybe(fc.constantFrom('s1', 's2')),
    requestId: maybe(ids),
    timestamp: maybe(timestamps),
    cwd: maybe(fc.constantFrom('/home/me/repo', '/home/me/repo/.claude/worktrees/x', '', '/')),
    isSidechain: maybe(fc.boolean()),
    agentId: maybe(ids),
    isMeta: maybe(fc.boolean()),
    isCompactSummary: maybe(fc.boolean()),
    subtype: maybe(fc.constantFrom('compact_boundary', 'away_summary', 'local_command')),
    content: maybe(texts),
    summary: maybe(texts),
    leafUuid: maybe(ids),
    customTitle: maybe(texts),
    compactMetadata: maybe(fc.record({ trigger: maybe(texts), preTokens: maybe(fc.integer()) }, { requiredKeys: [] })),
    toolUseResult: maybe(fc.record({ stdout: maybe(texts), interrupted: maybe(fc.boolean()), status: maybe(texts), totalDurationMs: maybe(fc.double()), durationSeconds: maybe(fc.double()), returnCodeInterpretation: maybe(texts), success: maybe(fc.boolean()) }, { requiredKeys: [] })),
    message: maybe(
      fc.record(
        {
          id: maybe(ids),
          role: maybe(fc.constantFrom('user', 'assistant')),
          content: maybe(fc.oneof(texts, fc.array(claudeBlock, { maxLength: 5 }))),
          usage: maybe(fc.record({ input_tokens: maybe(fc.double()), cache_read_input_tokens: maybe(fc.integer()) }, { requiredKeys: [] })),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);

const codexPayload = fc.record(
  {
    type: maybe(fc.constantFrom('message', 'function_call', 'custom_tool_call', 'local_shell_call', 'function_call_output', 'custom_tool_call_output', 'web_search_call', 'reasoning', 'user_message', 'agent_message', 'agent_reasoning', 'exec_command_end', 'patch_apply_end', 'mcp_tool_call_end', 'web_search_end', 'token_count', 'task_started')),
    role: maybe(fc.constantFrom('user', 'assistant', 'developer', 'system', 'tool')),
    content: maybe(contents),
    summary: maybe(contents),
    message: maybe(texts),
    text: maybe(texts),
    id: maybe(ids),
    call_id: maybe(ids),
    name: maybe(names),
    arguments: maybe(fc.oneof(texts, inputs.map((value) => JSON.stringify(value)))),
    input: maybe(inputs),
    output: maybe(fc.oneof(texts, contents)),
    action: maybe(fc.record({ query: maybe(texts), queries: maybe(fc.array(texts, { maxLength: 3 })), command: maybe(fc.array(texts, { maxLength: 3 })) }, { requiredKeys: [] })),
    exit_code: maybe(fc.oneof(fc.integer(), fc.double())),
    duration: maybe(fc.record({ secs: maybe(fc.double()), nanos: maybe(fc.double()) }, { requiredKeys: [] })),
    duration_ms: maybe(fc.double()),
    aggregated_output: maybe(texts),
    success: maybe(fc.boolean()),
    status: maybe(texts),
    result: maybe(anyJson),
    query: maybe(texts),
    cwd: maybe(fc.constantFrom('/home/me/repo', '')),
    git: maybe(fc.record({ branch: maybe(texts) }, { requiredKeys: [] })),
    model_context_window: maybe(fc.oneof(fc.integer(), fc.double())),
    info: maybe(fc.record({ model_context_window: maybe(fc.double()), last_token_usage: maybe(fc.record({ total_tokens: maybe(fc.double()), input_tokens: maybe(fc.integer()) }, { requiredKeys: [] })) }, { requiredKeys: [] })),
    source: maybe(fc.record({ subagent: maybe(fc.record({ thread_spawn: maybe(fc.record({ parent_thread_id: maybe(ids) }, { requiredKeys: [] })) }, { requiredKeys: [] })) }, { requiredKeys: [] })),
  },
  { requiredKeys: [] },
);

export const codexRecord = fc.record(
  {
    type: maybe(fc.constantFrom('session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted')),
    timestamp: maybe(timestamps),
    payload: maybe(codexPayload),
  },
  { requiredKeys: [] },
);

const openclawBlock = fc.oneof(
  fc.record({ type: fc.constant('text'), text: maybe(texts) }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('toolCall'), id: maybe(ids), name: maybe(names), arguments: maybe(inputs) }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constantFrom('thinking', 'image'), text: maybe(texts) }, { requiredKeys: ['type'] }),
  texts,
  anyJson,
);

export const openclawRecord = fc.record(
  {
    type: maybe(fc.constantFrom('session', 'message', 'compaction', 'model_change', 'custom')),
    id: maybe(ids),
    parentId: maybe(ids),
    version: maybe(fc.constantFrom(1, 3)),
    cwd: maybe(fc.constantFrom('/home/me/repo', '')),
    timestamp: maybe(timestamps),
    summary: maybe(texts),
    firstKeptEntryId: maybe(ids),
    firstKeptEntryIndex: maybe(fc.oneof(fc.integer({ min: -2, max: 12 }), fc.double())),
    message: maybe(
      fc.record(
        {
          role: maybe(fc.constantFrom('user', 'assistant', 'toolResult', 'bashExecution', 'system')),
          content: maybe(fc.oneof(texts, fc.array(openclawBlock, { maxLength: 5 }))),
          toolCallId: maybe(ids),
          isError: maybe(fc.boolean()),
          errorMessage: maybe(texts),
          command: maybe(texts),
          output: maybe(fc.oneof(texts, contents)),
          exitCode: maybe(fc.oneof(fc.integer(), fc.double())),
          cancelled: maybe(fc.boolean()),
          truncated: maybe(fc.boolean()),
          timestamp: maybe(timestamps),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);

/** Length of a value's JSON text; a value nested too deep for JSON.stringify counts as one character. */
function measureJson(value: unknown): number {
  try {
    return (JSON.stringify(value) ?? 'null').length;
  } catch {
    return 1;
  }
}

/** Values as the line reader hands them over: one per line, in file order. */
export function toRecords(values: readonly unknown[]): RawRecord[] {
  let offset = 0;
  return values.map((value, index) => {
    const start = offset;
    offset += measureJson(value) + 1;
    return { line: index + 1, start, end: offset, value };
  });
}

const isText = (value: unknown): boolean => typeof value === 'string';
const isTextOrNull = (value: unknown): boolean => value === null || typeof value === 'string';
const isFiniteOrNull = (value: unknown): boolean => value === null || (typeof value === 'number' && Number.isFinite(value));

/** Every way an entry can break the model's types; [] for a well-formed one. */
export function describeEntryFaults(entry: Entry): string[] {
  const faults: string[] = [];
  const check = (ok: boolean, field: string) => {
    if (!ok) faults.push(`${field}=${String((entry as unknown as Record<string, unknown>)[field])}`);
  };
  for (const field of ['id', 'key', 'sessionId', 'text'] as const) check(isText(entry[field]), field);
  for (const field of ['toolName', 'toolTarget', 'result', 'resultId', 'parentId', 'status'] as const) check(isTextOrNull(entry[field]), field);
  check(Number.isFinite(entry.seq), 'seq');
  check(Number.isInteger(entry.line) && entry.line > 0, 'line');
  for (const field of ['ts', 'exitCode', 'durationMs'] as const) check(isFiniteOrNull(entry[field]), field);
  check(ROLES.includes(entry.role), 'role');
  check(typeof entry.sidechain === 'boolean', 'sidechain');
  check(entry.kind === null || entry.kind === 'reasoning' || entry.kind === 'recap', 'kind');
  check(entry.priority === null || entry.priority === 'high' || entry.priority === 'normal', 'priority');
  check(entry.key !== '' && entry.id !== '', 'key');
  return faults;
}

/** Faults of a whole chunk: its entries, result patches, anchors, usage and session fields. */
export function describeChunkFaults(chunk: ParsedChunk): string[] {
  const faults = chunk.entries.flatMap((entry) => describeEntryFaults(entry).map((fault) => `${entry.key}: ${fault}`));
  for (const patch of chunk.results) {
    if (!isTextOrNull(patch.result) || !isText(patch.key)) faults.push(`patch ${patch.key}: result`);
    for (const field of ['exitCode', 'durationMs'] as const) {
      if (patch[field] !== undefined && !isFiniteOrNull(patch[field])) faults.push(`patch ${patch.key}: ${field}=${patch[field]}`);
    }
  }
  for (const anchor of chunk.anchors) {
    if (!isText(anchor.id) || !isText(anchor.note) || !isTextOrNull(anchor.originId) || !isFiniteOrNull(anchor.ts)) {
      faults.push(`anchor ${anchor.id}`);
    }
  }
  for (const usage of chunk.usage) {
    for (const field of ['used_tokens', 'max_tokens', 'usage_ratio', 'captured_at_epoch_secs'] as const) {
      if (!Number.isFinite(usage[field])) faults.push(`usage ${field}=${usage[field]}`);
    }
  }
  const session = chunk.session;
  if (!isText(session.id) || session.id === '') faults.push('session id');
  for (const field of ['project', 'cwd', 'branch', 'parentSessionId', 'title', 'agentType', 'agentDescription'] as const) {
    if (!isTextOrNull(session[field])) faults.push(`session ${field}`);
  }
  if (!isFiniteOrNull(session.startMs) || !isFiniteOrNull(session.endMs)) faults.push('session time range');
  for (const [kind, count] of Object.entries(chunk.skipped)) {
    if (!Number.isInteger(count) || count <= 0) faults.push(`skipped ${kind}=${count}`);
  }
  JSON.stringify(chunk.carry); // the carry must stay serialisable
  return faults;
}

/** Characters of text a chunk carries: what the store will hold. */
export function measureOutput(chunk: ParsedChunk): number {
  let total = 0;
  for (const entry of chunk.entries) total += entry.text.length + (entry.result?.length ?? 0) + (entry.toolTarget?.length ?? 0);
  for (const patch of chunk.results) total += patch.result?.length ?? 0;
  for (const anchor of chunk.anchors) total += anchor.note.length;
  return total;
}

/** Parsing cut at `cuts` (each chunk with the carry the last one left) ends as parsing the file whole does. */
export function expectChunkedLikeWhole(source: Source, values: readonly unknown[], path: string, cuts: number[]): void {
  const records = toRecords(values);
  const whole = mergeWhole(source.parse(records, { path, carry: null }));
  const merged = parseInChunks(source, records, path, cuts);
  expect(merged.session).toEqual(whole.session);
  expect(merged.entries).toEqual(whole.entries);
  expect(merged.anchors).toEqual(whole.anchors);
  expect(merged.skipped).toEqual(whole.skipped);
  expect(merged.duplicates).toBe(whole.duplicates);
  expect(merged.fork).toBe(whole.fork);
  expect(merged.lastUsage).toEqual(whole.lastUsage);
}
