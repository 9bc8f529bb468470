import { createEntry, type Entry } from '../model.js';
import { ChunkBuilder, type ChunkCarry, restoreCarry } from './chunk-builder.js';
import { isObject, type JsonObject, str } from './json-value.js';
import { nameProject, takeFileStem } from './path-names.js';
import type { ParsedChunk, RawRecord, Source, SourceContext } from './source.js';
import { parseTimestamp } from './timestamp.js';
import { describeToolCall, stringifyToolOutput } from './tool-input.js';

/**
 * OpenClaw / pi session files: `~/.openclaw/agents/<agent>/sessions/*.jsonl` (and pi's own
 * `~/.pi/agent/sessions/...`). Line 1 is a `session` header; every later line is an entry. Version 3 entries form
 * a tree (`id` / `parentId`); legacy version 1 files (no `version` in the header) have entries without ids.
 */

interface OpenClawCarry extends ChunkCarry {
  sessionId: string | null;
  /** Records seen so far: a v1 compaction points back by record index (`firstKeptEntryIndex`). */
  recordCount: number;
  /** Every record so far sat on line index + 1 (no malformed lines), so an index from an earlier chunk maps to a line. */
  gapless: boolean;
  /** The first `session` header was read (with or without an id); a later one belongs to another session. */
  headerSeen?: boolean;
}

export const openclawSource: Source = {
  name: 'openclaw',
  label: 'OpenClaw',
  fileName: /\.jsonl$/,
  detect: detectOpenClaw,
  parse: parseOpenClaw,
};

function detectOpenClaw(head: readonly unknown[]): boolean {
  const first = head[0];
  if (!isObject(first) || first.type !== 'session' || typeof first.id !== 'string') return false;
  if (!('cwd' in first) && !('timestamp' in first)) return false;
  // Everything after the header is an entry with its own type; a message entry wraps a role-bearing message.
  return head
    .slice(1)
    .every(
      (record) =>
        isObject(record) &&
        typeof record.type === 'string' &&
        (record.type !== 'message' || (isObject(record.message) && typeof record.message.role === 'string')),
    );
}

function freshCarry(): OpenClawCarry {
  return { v: 1, sessionId: null, cwd: null, startMs: null, endMs: null, recordCount: 0, gapless: true, pending: [] };
}

/** `~/.openclaw/agents/<agent>/sessions/`: without a cwd, the agent is the closest thing to a project. */
function agentFolder(path: string): string | null {
  return /[\\/]agents[\\/]([^\\/]+)[\\/]sessions[\\/]/.exec(path)?.[1] ?? null;
}

class OpenClawChunk extends ChunkBuilder<OpenClawCarry> {
  readonly calls = new Map<string, Entry>();
  /** Line of each record of this chunk by its index in the file (v1 compactions point back by index). */
  readonly lineByIndex = new Map<number, number>();

  constructor(
    state: OpenClawCarry,
    sessionId: string,
    readonly firstIndex: number,
  ) {
    super(state, sessionId);
  }

  protected findCall(key: string): Entry | undefined {
    return this.calls.get(key);
  }

  /** Keys are unique in a session: a second entry with the id of an earlier one is a duplicate record. */
  push(entry: Entry): boolean {
    if (this.keys.has(entry.key) || this.wasEmitted(entry.key)) {
      this.duplicates += 1;
      return false;
    }
    this.keys.add(entry.key);
    this.entries.push(entry);
    return true;
  }

  private readonly keys = new Set<string>();
}

function parseOpenClaw(records: readonly RawRecord[], context: SourceContext): ParsedChunk {
  const state = restoreCarry(context.carry, freshCarry);
  const header = records.find((record) => isObject(record.value) && record.value.type === 'session')?.value;
  if (isObject(header) && !state.headerSeen && state.sessionId === null) {
    state.sessionId = str(header.id);
    state.cwd = str(header.cwd);
    state.headerSeen = true;
  }
  const sessionId = state.sessionId ?? takeFileStem(context.path);
  const chunk = new OpenClawChunk(state, sessionId, state.recordCount);
  records.forEach((record, offset) => chunk.lineByIndex.set(state.recordCount + offset, record.line));

  records.forEach((record, offset) => parseOpenClawRecord(chunk, record, state.recordCount + offset));
  chunk.entries.sort((x, y) => x.seq - y.seq);

  records.forEach((record, offset) => {
    if (record.line !== state.recordCount + offset + 1) state.gapless = false;
  });
  state.recordCount += records.length;
  return chunk.finish(
    {
      source: 'openclaw',
      path: context.path,
      project: nameProject(state.cwd) ?? agentFolder(context.path),
      branch: null,
      parentSessionId: null,
    },
    false,
  );
}

function parseOpenClawRecord(chunk: OpenClawChunk, record: RawRecord, index: number): void {
  const value = record.value;
  if (!isObject(value)) {
    chunk.skip('non-object');
    return;
  }
  const message = isObject(value.message) ? value.message : null;
  // The entry's ISO timestamp is when it was written; message.timestamp (epoch ms) is a fallback.
  const ts = parseTimestamp(value.timestamp) ?? parseTimestamp(message?.timestamp);
  chunk.track(ts);
  const type = typeof value.type === 'string' ? value.type : null;
  if (type === 'session') return;
  if (type === 'compaction') {
    chunk.anchors.push({
      id: str(value.id) ?? `L${record.line}`,
      sessionId: chunk.sessionId,
      ts,
      line: record.line,
      note: typeof value.summary === 'string' ? value.summary : '',
      originId: str(value.firstKeptEntryId) ?? keptEntryOfV1(chunk, value.firstKeptEntryIndex, index),
    });
    return;
  }
  if (type !== 'message') {
    chunk.skip(type ?? 'missing-type');
    return;
  }
  if (message === null) {
    chunk.skip('malformed:message');
    return;
  }
  const base = {
    id: str(value.id) ?? `L${record.line}`,
    sessionId: chunk.sessionId,
    line: record.line,
    ts,
    priority: null,
    parentId: str(value.parentId),
    sidechain: false,
  };
  switch (message.role) {
    case 'user':
      addUserMessage(chunk, record, base, message);
      return;
    case 'assistant':
      addAssistantMessage(chunk, record, base, message);
      return;
    case 'toolResult':
      attachToolResult(chunk, base.id, message);
      return;
    case 'bashExecution':
      addBashExecution(chunk, record, base, message);
      return;
    default:
      chunk.skip(`message:${typeof message.role === 'string' ? message.role : 'unknown'}`);
  }
}

type EntryBase = Pick<Entry, 'id' | 'sessionId' | 'line' | 'ts' | 'priority' | 'parentId' | 'sidechain'>;

/**
 * Legacy v1 compactions name the first kept entry by its index in the file (the header is index 0); entries had
 * no ids then, so the kept entry's id is its line-derived `L<line>`.
 */
function keptEntryOfV1(chunk: OpenClawChunk, index: unknown, compactionIndex: number): string | null {
  // A compaction keeps entries written before it; an index at or past itself is not one (and whether it resolved
  // would depend on where the file was cut into chunks).
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 1 || index >= compactionIndex) return null;
  const line = chunk.lineByIndex.get(index) ?? (index < chunk.firstIndex && chunk.state.gapless ? index + 1 : null);
  return line === null ? null : `L${line}`;
}

function contentBlocks(content: unknown): unknown[] {
  if (typeof content === 'string') return [content];
  return Array.isArray(content) ? content : [];
}

function blockText(block: unknown): string | null {
  if (typeof block === 'string') return block;
  return isObject(block) && block.type === 'text' && typeof block.text === 'string' ? block.text : null;
}

function addUserMessage(chunk: OpenClawChunk, record: RawRecord, base: EntryBase, message: JsonObject): void {
  const texts: string[] = [];
  let first = -1;
  contentBlocks(message.content).forEach((block, index) => {
    const text = blockText(block);
    if (text === null) {
      chunk.skip(isObject(block) && typeof block.type === 'string' ? `user:${block.type}` : 'user:unknown-block');
    } else if (text.trim() !== '') {
      if (first < 0) first = index;
      texts.push(text);
    }
  });
  if (texts.length === 0) {
    chunk.skip('user:empty');
    return;
  }
  chunk.push(messageEntry(base, record.line * 1000 + first, 'user', texts.join('\n\n')));
}

function addAssistantMessage(chunk: OpenClawChunk, record: RawRecord, base: EntryBase, message: JsonObject): void {
  const texts: string[] = [];
  let first = -1;
  const tools: Entry[] = [];
  contentBlocks(message.content).forEach((block, index) => {
    const text = blockText(block);
    if (text !== null) {
      if (text.trim() === '') return;
      if (first < 0) first = index;
      texts.push(text);
    } else if (isObject(block) && block.type === 'toolCall') {
      const tool = toolCallEntry(chunk, record, base, block, index);
      if (tool) tools.push(tool);
    } else if (isObject(block) && block.type === 'thinking') {
      chunk.skip('thinking');
    } else {
      chunk.skip(isObject(block) && typeof block.type === 'string' ? `assistant:${block.type}` : 'assistant:unknown-block');
    }
  });
  // A failed or aborted turn has no content, only errorMessage; it still says what happened.
  if (texts.length === 0 && tools.length === 0 && typeof message.errorMessage === 'string' && message.errorMessage) {
    texts.push(message.errorMessage);
    first = 0;
  }
  if (texts.length > 0) {
    chunk.push(messageEntry(base, record.line * 1000 + first, 'assistant', texts.join('\n\n')));
  } else if (tools.length === 0) {
    chunk.skip('assistant:empty');
  }
  for (const tool of tools) chunk.push(tool);
}

function messageEntry(base: EntryBase, seq: number, role: 'user' | 'assistant', text: string): Entry {
  return createEntry({ ...base, key: `m:${base.id}`, seq, role, text });
}

function toolCallEntry(
  chunk: OpenClawChunk,
  record: RawRecord,
  base: EntryBase,
  block: JsonObject,
  index: number,
): Entry | null {
  const name = str(block.name) ?? 'tool';
  const callId = str(block.id);
  const key = callId ? `tool:${callId}` : `tool:${base.id}:${index}`;
  if (chunk.calls.has(key) || chunk.wasEmitted(key)) {
    chunk.duplicates += 1;
    return null;
  }
  const described = describeToolCall(name, block.arguments);
  const entry = createEntry({
    ...base,
    key,
    seq: record.line * 1000 + index,
    role: 'tool',
    text: described.text,
    toolName: name,
    toolTarget: described.target,
  });
  chunk.calls.set(key, entry);
  if (callId) chunk.state.pending.push(callId);
  return entry;
}

function attachToolResult(chunk: OpenClawChunk, resultId: string, message: JsonObject): void {
  const callId = str(message.toolCallId);
  if (!callId) {
    chunk.skip('orphan-tool-result');
    return;
  }
  const output = stringifyToolOutput(message.content);
  const result = message.isError === true ? `[error] ${output}`.trimEnd() : output;
  chunk.attachResult(callId, { result, resultId });
}

/** `!command` typed by the user: pi ran it in a shell and recorded command and output together. */
function addBashExecution(chunk: OpenClawChunk, record: RawRecord, base: EntryBase, message: JsonObject): void {
  const command = typeof message.command === 'string' ? message.command : '';
  const described = describeToolCall('bash', { command });
  const notes = [
    message.cancelled === true ? '[cancelled]' : null,
    message.truncated === true ? '[truncated]' : null,
  ].filter((note): note is string => note !== null);
  const output = typeof message.output === 'string' ? message.output : stringifyToolOutput(message.output);
  chunk.push(
    createEntry({
    ...base,
    key: `bash:${base.id}`,
    seq: record.line * 1000,
    role: 'tool',
    text: described.text || 'bash',
    toolName: 'bash',
    toolTarget: described.target,
    result: [output, ...notes].filter((part) => part !== '').join('\n'),
    resultId: base.id,
    exitCode: typeof message.exitCode === 'number' ? message.exitCode : null,
    status: message.cancelled === true ? 'cancelled' : null,
  }),
  );
}
