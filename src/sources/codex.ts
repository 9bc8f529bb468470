import { createHash } from 'node:crypto';
import { createEntry, type Entry, type Role } from '../model.js';
import { ChunkBuilder, type ChunkCarry, restoreCarry } from './chunk-builder.js';
import { isObject, type JsonObject, str } from './json-value.js';
import { nameProject, takeFileStem } from './path-names.js';
import type { ParsedChunk, RawRecord, Source, SourceContext } from './source.js';
import { parseTimestamp } from './timestamp.js';
import { describeToolCall, stringifyToolOutput } from './tool-input.js';

/**
 * Codex rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`. Every record is
 * `{timestamp, type, payload}`. Messages are written twice: as a `response_item` (what the model saw) and as an
 * `event_msg` (what the UI showed), in either order.
 */

const RECORD_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
/** How many recent messages an echo is looked for in; echoes sit next to their original. */
const RECENT_MESSAGES = 16;
const CALL_TYPES = new Set(['function_call', 'custom_tool_call', 'local_shell_call']);
const OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output']);
/**
 * The public sanitized fixtures replace a message by `[REDACTED_TEXT len=N sha=H]` in the response_item and by
 * `[REDACTED_MESSAGE len=N sha=H]` in its event_msg echo; both stand for the same text.
 */
const REDACTION_PLACEHOLDER = /^\[REDACTED_[A-Z]+ (len=\d+ sha=[0-9a-f]+)\]$/;

interface RecentMessage {
  from: 'item' | 'event';
  role: Role;
  /** Hashes of the whole text and of each text block (an echo may repeat only one block, see below). */
  hashes: string[];
}

interface CodexCarry extends ChunkCarry {
  sessionId: string | null;
  parentSessionId: string | null;
  branch: string | null;
  provider: string | null;
  contextWindow: number | null;
  /** Id of the last entry emitted: a `compacted` record points back to it. */
  lastEntryId: string | null;
  /** Messages not yet matched by their echo from the other stream. */
  recent: RecentMessage[];
}

export const codexSource: Source = {
  name: 'codex',
  detect: detectCodex,
  parse: parseCodex,
};

function detectCodex(head: readonly unknown[]): boolean {
  return head.some(
    (record) =>
      isObject(record) && typeof record.type === 'string' && RECORD_TYPES.has(record.type) && isObject(record.payload),
  );
}

function freshCarry(): CodexCarry {
  return {
    v: 1,
    sessionId: null,
    parentSessionId: null,
    cwd: null,
    branch: null,
    provider: null,
    contextWindow: null,
    startMs: null,
    endMs: null,
    lastEntryId: null,
    recent: [],
    pending: [],
  };
}

/** Learn session facts before building entries, so every entry of the chunk gets the same session id. */
function learnSession(state: CodexCarry, records: readonly RawRecord[]): void {
  for (const { value } of records) {
    if (!isObject(value) || !isObject(value.payload)) continue;
    // Rollouts cut short before their session_meta still say where they ran in each turn_context.
    if (value.type === 'turn_context') state.cwd ??= str(value.payload.cwd);
    if (value.type !== 'session_meta') continue;
    const meta = value.payload;
    // A resumed or forked rollout repeats session_meta lines of earlier sessions; the first one is this file's.
    if (state.sessionId !== null) continue;
    state.sessionId = str(meta.id);
    state.cwd = str(meta.cwd) ?? state.cwd;
    state.branch ??= isObject(meta.git) ? str(meta.git.branch) : null;
    state.provider ??= str(meta.model_provider);
    state.parentSessionId ??= findParentThread(meta.source);
  }
}

/** Subagent rollouts name their parent: `source: {subagent: {thread_spawn: {parent_thread_id}}}`. */
function findParentThread(source: unknown): string | null {
  if (!isObject(source) || !isObject(source.subagent)) return null;
  const spawn = source.subagent.thread_spawn;
  return isObject(spawn) ? str(spawn.parent_thread_id) : null;
}

/** Without a session_meta line, the rollout file name ends in the session id. */
function fallbackSessionId(path: string): string {
  const stem = takeFileStem(path);
  const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.exec(stem);
  return uuid?.[0] ?? stem;
}

class CodexChunk extends ChunkBuilder<CodexCarry> {
  readonly calls = new Map<string, Entry>();

  protected findCall(key: string): Entry | undefined {
    return this.calls.get(key);
  }

  push(entry: Entry): void {
    this.entries.push(entry);
    this.state.lastEntryId = entry.id;
  }
}

function parseCodex(records: readonly RawRecord[], context: SourceContext): ParsedChunk {
  const state = restoreCarry(context.carry, freshCarry);
  learnSession(state, records);
  const sessionId = state.sessionId ?? fallbackSessionId(context.path);
  const chunk = new CodexChunk(state, sessionId);

  for (const record of records) parseCodexRecord(chunk, record);

  return chunk.finish(
    {
      source: 'codex',
      path: context.path,
      project: nameProject(state.cwd),
      branch: state.branch,
      parentSessionId: state.parentSessionId,
    },
    false,
  );
}

function parseCodexRecord(chunk: CodexChunk, record: RawRecord): void {
  const value = record.value;
  if (!isObject(value)) {
    chunk.skip('non-object');
    return;
  }
  const ts = parseTimestamp(value.timestamp);
  chunk.track(ts);
  const type = typeof value.type === 'string' ? value.type : null;
  const payload = isObject(value.payload) ? value.payload : null;
  if (type === null) {
    chunk.skip('missing-type');
    return;
  }
  if (payload === null || !RECORD_TYPES.has(type)) {
    chunk.skip(type);
    return;
  }
  switch (type) {
    case 'session_meta':
      return;
    case 'response_item':
      parseResponseItem(chunk, record, payload, ts);
      return;
    case 'event_msg':
      parseEventMsg(chunk, record, payload, ts);
      return;
    case 'compacted':
      chunk.anchors.push({
        id: `L${record.line}`,
        sessionId: chunk.sessionId,
        ts,
        line: record.line,
        note: str(payload.message) ?? 'Conversation compacted',
        originId: chunk.state.lastEntryId,
      });
      return;
    default:
      chunk.skip(type);
  }
}

function parseResponseItem(chunk: CodexChunk, record: RawRecord, payload: JsonObject, ts: number | null): void {
  const itemType = typeof payload.type === 'string' ? payload.type : 'unknown';
  if (itemType === 'message') {
    const role = messageRole(payload.role);
    if (role === null) {
      chunk.skip(`response_item:message/${String(payload.role)}`);
      return;
    }
    const blocks = messageBlocks(payload.content);
    addMessage(chunk, record, ts, role, blocks.join('\n'), blocks, 'item');
  } else if (CALL_TYPES.has(itemType)) {
    addToolCall(chunk, record, payload, ts);
  } else if (OUTPUT_TYPES.has(itemType)) {
    attachToolOutput(chunk, record, payload);
  } else if (itemType === 'web_search_call') {
    addWebSearch(chunk, record, payload, ts);
  } else if (itemType === 'reasoning') {
    // Reasoning summaries and encrypted_content never become entries.
    chunk.skip('reasoning');
  } else {
    chunk.skip(`response_item:${itemType}`);
  }
}

function parseEventMsg(chunk: CodexChunk, record: RawRecord, payload: JsonObject, ts: number | null): void {
  const eventType = typeof payload.type === 'string' ? payload.type : 'unknown';
  if (eventType === 'user_message' || eventType === 'agent_message') {
    const role: Role = eventType === 'user_message' ? 'user' : 'assistant';
    const text = typeof payload.message === 'string' ? payload.message : '';
    addMessage(chunk, record, ts, role, text, [text], 'event');
    return;
  }
  if (eventType === 'token_count') noteUsage(chunk, payload, ts);
  if (eventType === 'task_started' && typeof payload.model_context_window === 'number') {
    chunk.state.contextWindow = payload.model_context_window;
  }
  chunk.skip(`event_msg:${eventType}`);
}

function messageRole(role: unknown): Role | null {
  if (role === 'user' || role === 'assistant') return role;
  // Developer messages are the harness's instructions to the model.
  if (role === 'developer' || role === 'system') return 'system';
  return null;
}

/** Text blocks (input_text / output_text) of a response_item message; images are left out. */
function messageBlocks(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content
    .map((block) => (isObject(block) && typeof block.text === 'string' ? block.text : ''))
    .filter((text) => text !== '');
}

function hashMessage(text: string): string {
  const trimmed = text.trim();
  const canonical = REDACTION_PLACEHOLDER.exec(trimmed)?.[1] ?? trimmed;
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

/**
 * A message, unless it is the other stream's echo of a recent one: whichever stream wrote it first wins. A user
 * message with images is written as several input_text blocks (`<image>` tags around each image) while its
 * event_msg echo holds only the typed text, so an echo matches the whole text or any one block.
 */
function addMessage(
  chunk: CodexChunk,
  record: RawRecord,
  ts: number | null,
  role: Role,
  text: string,
  blocks: string[],
  from: RecentMessage['from'],
): void {
  if (text.trim() === '') {
    chunk.skip(from === 'item' ? 'response_item:empty-message' : 'event_msg:empty-message');
    return;
  }
  const hashes = [...new Set([text, ...blocks.slice(0, 8)].map(hashMessage))];
  const recent = chunk.state.recent;
  const echoOf = recent.findIndex(
    (seen) => seen.from !== from && seen.role === role && seen.hashes.some((hash) => hashes.includes(hash)),
  );
  if (echoOf >= 0) {
    recent.splice(echoOf, 1);
    chunk.duplicates += 1;
    return;
  }
  recent.push({ from, role, hashes });
  if (recent.length > RECENT_MESSAGES) recent.splice(0, recent.length - RECENT_MESSAGES);
  chunk.push(
    createEntry({
      id: `L${record.line}`,
      key: `m:L${record.line}`,
      sessionId: chunk.sessionId,
      seq: record.line * 1000,
      line: record.line,
      ts,
      role,
      text,
    }),
  );
}

function addToolCall(chunk: CodexChunk, record: RawRecord, payload: JsonObject, ts: number | null): void {
  const callId = str(payload.call_id) ?? str(payload.id);
  let name = str(payload.name) ?? 'tool';
  let input: unknown = payload.arguments ?? payload.input;
  if (payload.type === 'local_shell_call') {
    name = 'local_shell';
    input = isObject(payload.action) ? payload.action : input;
  }
  const described = describeToolCall(name, input);
  const key = callId ? `tool:${callId}` : `tool:L${record.line}`;
  if (chunk.calls.has(key)) {
    chunk.duplicates += 1;
    return;
  }
  const entry = toolEntry(chunk, record, ts, callId ?? `L${record.line}`, key, name, described.text, described.target);
  chunk.calls.set(key, entry);
  chunk.push(entry);
  if (callId) chunk.state.pending.push(callId);
}

function addWebSearch(chunk: CodexChunk, record: RawRecord, payload: JsonObject, ts: number | null): void {
  const action = isObject(payload.action) ? payload.action : {};
  const query = str(action.query) ?? str(action.url) ?? (Array.isArray(action.queries) ? action.queries.join('\n') : '');
  const id = str(payload.id) ?? `L${record.line}`;
  const entry = toolEntry(chunk, record, ts, id, `tool:${id}`, 'web_search', query || 'web_search', query || null);
  chunk.calls.set(entry.key, entry);
  chunk.push(entry);
}

function toolEntry(
  chunk: CodexChunk,
  record: RawRecord,
  ts: number | null,
  id: string,
  key: string,
  name: string,
  text: string,
  target: string | null,
): Entry {
  return createEntry({
    id,
    key,
    sessionId: chunk.sessionId,
    seq: record.line * 1000,
    line: record.line,
    ts,
    role: 'tool',
    text,
    toolName: name,
    toolTarget: target,
  });
}

function attachToolOutput(chunk: CodexChunk, record: RawRecord, payload: JsonObject): void {
  const callId = str(payload.call_id);
  if (!callId) {
    chunk.skip('orphan-tool-result');
    return;
  }
  chunk.attachResult(callId, { result: stringifyToolOutput(payload.output), resultId: `L${record.line}` });
}

/** token_count carries cumulative and per-turn usage; the last turn's total is what sat in the context window. */
function noteUsage(chunk: CodexChunk, payload: JsonObject, ts: number | null): void {
  const info = payload.info;
  if (!isObject(info) || ts === null) return;
  if (typeof info.model_context_window === 'number') chunk.state.contextWindow = info.model_context_window;
  const usage = isObject(info.last_token_usage)
    ? info.last_token_usage
    : isObject(info.total_token_usage)
      ? info.total_token_usage
      : null;
  const max = chunk.state.contextWindow;
  if (!usage || max === null || max <= 0) return;
  const count = (field: string): number => (typeof usage[field] === 'number' ? (usage[field] as number) : 0);
  const used = count('total_tokens') || count('input_tokens') + count('output_tokens');
  if (used <= 0) return;
  chunk.recordUsage(used, max, ts, chunk.state.provider ?? 'openai');
}
