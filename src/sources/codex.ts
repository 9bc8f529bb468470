import { createEntry, type Role } from '../model.js';
import { restoreCarry } from './chunk-builder.js';
import { addToolCall, addWebSearch, readSearchQuery } from './codex-calls.js';
import { baseEntry, type CodexCarry, CodexChunk, freshCarry } from './codex-chunk.js';
import { takeEcho } from './codex-echo.js';
import { attachToolOutput, completeExec, completeMcp, completePatch } from './codex-results.js';
import { isObject, type JsonObject, str } from './json-value.js';
import { nameProject, takeFileStem } from './path-names.js';
import type { ParsedChunk, RawRecord, Source, SourceContext } from './source.js';
import { parseTimestamp } from './timestamp.js';

/**
 * Codex rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`. Every record is
 * `{timestamp, type, payload}`. Messages, reasoning and web searches are written twice: as a `response_item` (what
 * the model saw) and as an `event_msg` (what the UI showed), in either order (codex-echo.ts keeps one). Tool calls
 * are coupled to their outputs and end events (codex-results.ts), unified exec polls to the process they read.
 */

const RECORD_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const CALL_TYPES = new Set(['function_call', 'custom_tool_call', 'local_shell_call']);
const OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output']);

export const codexSource: Source = {
  name: 'codex',
  label: 'Codex',
  fileName: /\.jsonl$/,
  detect: detectCodex,
  parse: parseCodex,
};

function detectCodex(head: readonly unknown[]): boolean {
  return head.some(
    (record) =>
      isObject(record) && typeof record.type === 'string' && RECORD_TYPES.has(record.type) && isObject(record.payload),
  );
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
    const blocks = readTextBlocks(payload.content);
    addMessage(chunk, record, ts, { role, kind: 'message', text: blocks.join('\n'), blocks, from: 'item' });
  } else if (CALL_TYPES.has(itemType)) {
    addToolCall(chunk, record, payload, ts);
  } else if (OUTPUT_TYPES.has(itemType)) {
    attachToolOutput(chunk, record, payload, ts);
  } else if (itemType === 'web_search_call') {
    const search = { query: readSearchQuery(payload.action), id: str(payload.id), status: str(payload.status) };
    addWebSearch(chunk, record, { ...search, from: 'item' }, ts);
  } else if (itemType === 'reasoning') {
    addReasoning(chunk, record, payload, ts);
  } else {
    chunk.skip(`response_item:${itemType}`);
  }
}

function parseEventMsg(chunk: CodexChunk, record: RawRecord, payload: JsonObject, ts: number | null): void {
  const eventType = typeof payload.type === 'string' ? payload.type : 'unknown';
  if (eventType === 'user_message' || eventType === 'agent_message') {
    const role: Role = eventType === 'user_message' ? 'user' : 'assistant';
    const text = typeof payload.message === 'string' ? payload.message : '';
    addMessage(chunk, record, ts, { role, kind: 'message', text, blocks: [text], from: 'event' });
    return;
  }
  if (eventType === 'agent_reasoning' || eventType === 'agent_reasoning_raw_content') {
    const text = typeof payload.text === 'string' ? payload.text : '';
    addMessage(chunk, record, ts, { role: 'assistant', kind: 'reasoning', text, blocks: [text], from: 'event' });
    return;
  }
  if (completeFromEvent(chunk, record, eventType, payload, ts)) return;
  if (eventType === 'token_count') noteUsage(chunk, payload, ts);
  if (eventType === 'task_started' && typeof payload.model_context_window === 'number') {
    chunk.state.contextWindow = payload.model_context_window;
  }
  chunk.skip(`event_msg:${eventType}`);
}

/** End events complete the call they name; their begin events only echo the call item and are skipped. */
function completeFromEvent(
  chunk: CodexChunk,
  record: RawRecord,
  eventType: string,
  payload: JsonObject,
  ts: number | null,
): boolean {
  switch (eventType) {
    case 'exec_command_end':
      return completeExec(chunk, payload);
    case 'patch_apply_end':
      return completePatch(chunk, payload);
    case 'mcp_tool_call_end':
      return completeMcp(chunk, payload);
    case 'web_search_end': {
      const query = str(payload.query) ?? readSearchQuery(payload.action);
      if (!query) return false;
      addWebSearch(chunk, record, { query, id: str(payload.call_id), status: 'completed', from: 'event' }, ts);
      return true;
    }
    default:
      return false;
  }
}

function messageRole(role: unknown): Role | null {
  if (role === 'user' || role === 'assistant') return role;
  // Developer messages are the harness's instructions to the model.
  if (role === 'developer' || role === 'system') return 'system';
  return null;
}

/** Text blocks (input_text / output_text / summary_text / reasoning_text); images are left out. */
function readTextBlocks(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content
    .map((block) => (isObject(block) && typeof block.text === 'string' ? block.text : ''))
    .filter((text) => text !== '');
}

/**
 * The model's reasoning: its summary parts, then any raw reasoning text. Searchable as an assistant entry of
 * kind `reasoning`; reasoning that is only `encrypted_content` says nothing readable and is skipped.
 */
function addReasoning(chunk: CodexChunk, record: RawRecord, payload: JsonObject, ts: number | null): void {
  const blocks = [...readTextBlocks(payload.summary), ...readTextBlocks(payload.content)];
  if (blocks.every((block) => block.trim() === '')) {
    chunk.skip('reasoning');
    return;
  }
  addMessage(chunk, record, ts, { role: 'assistant', kind: 'reasoning', text: blocks.join('\n\n'), blocks, from: 'item' });
}

interface MessageParts {
  role: Role;
  kind: 'message' | 'reasoning';
  text: string;
  blocks: string[];
  from: 'item' | 'event';
}

/** A message (or reasoning), unless it is the other stream's echo of a recent one. */
function addMessage(chunk: CodexChunk, record: RawRecord, ts: number | null, parts: MessageParts): void {
  if (parts.text.trim() === '') {
    chunk.skip(parts.from === 'item' ? 'response_item:empty-message' : 'event_msg:empty-message');
    return;
  }
  if (takeEcho(chunk, parts)) return;
  chunk.push(
    createEntry({
      ...baseEntry(chunk, record, ts, `L${record.line}`, `m:L${record.line}`),
      role: parts.role,
      text: parts.text,
      kind: parts.kind === 'reasoning' ? 'reasoning' : null,
    }),
  );
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
