import { type CodexChunk, POLL_WINDOW, toolEntry } from './codex-chunk.js';
import { takeEcho } from './codex-echo.js';
import { describePatchCall } from './codex-patch.js';
import { isObject, type JsonObject, str } from './json-value.js';
import type { RawRecord } from './source.js';
import { describeToolCall } from './tool-input.js';

/** Tool calls of a rollout: `function_call`, `custom_tool_call`, `local_shell_call` and `web_search_call` items. */

export function addToolCall(chunk: CodexChunk, record: RawRecord, payload: JsonObject, ts: number | null): void {
  const callId = str(payload.call_id) ?? str(payload.id);
  let name = str(payload.name) ?? 'tool';
  let input: unknown = payload.arguments ?? payload.input;
  if (payload.type === 'local_shell_call') {
    name = 'local_shell';
    input = isObject(payload.action) ? payload.action : input;
  }
  const key = callId ? `tool:${callId}` : `tool:L${record.line}`;
  if (chunk.calls.has(key) || chunk.wasEmitted(key)) {
    chunk.duplicates += 1;
    return;
  }
  if (callId && name === 'write_stdin' && takePoll(chunk, callId, input)) return;
  const patch = describePatchCall(name, input);
  const described = patch ?? describeToolCall(name, input);
  const entry = toolEntry(
    chunk,
    record,
    ts,
    { id: callId ?? `L${record.line}`, key },
    // A shell command that only applies a patch is an apply_patch: found by `--tool apply_patch` like the others.
    { name: patch ? 'apply_patch' : name, text: described.text, target: described.target },
  );
  chunk.pushCall(entry, callId);
}

/**
 * A `write_stdin` to a running unified exec process continues that exec_command call: its output is appended
 * there, so the poll is no entry of its own. Input it sends (an answer to a prompt, Ctrl-C) is kept in the output
 * as a `[stdin]` line. A poll for an unknown process (its args unreadable, its start long ago) stays an entry.
 */
function takePoll(chunk: CodexChunk, callId: string, input: unknown): boolean {
  const args = parseObject(input);
  if (args === null) return false;
  const session = args.session_id;
  if (typeof session !== 'number' && typeof session !== 'string') return false;
  const process = (chunk.state.processes ?? []).find((candidate) => candidate.session === String(session));
  if (!process) return false;
  const polls = (chunk.state.polls ??= []);
  const chars = typeof args.chars === 'string' ? args.chars : '';
  polls.push({ callId, execId: process.callId, ...(chars !== '' ? { stdin: showInput(chars) } : {}) });
  if (polls.length > POLL_WINDOW) polls.splice(0, polls.length - POLL_WINDOW);
  return true;
}

/** Control characters sent to a process (`\u0003` is Ctrl-C) shown the way a terminal echoes them: `^C`. */
function showInput(chars: string): string {
  let out = '';
  for (const char of chars.slice(0, 200)) {
    const code = char.charCodeAt(0);
    if (char === '\n' || char === '\r') out += '⏎';
    else if (code < 32) out += `^${String.fromCharCode(code + 64)}`;
    else out += char;
  }
  return out;
}

function parseObject(input: unknown): JsonObject | null {
  if (isObject(input)) return input;
  if (typeof input !== 'string' || !input.trimStart().startsWith('{')) return null;
  try {
    const value = JSON.parse(input) as unknown;
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** A web search, from its `web_search_call` item or its `web_search_end` event, whichever was written first. */
export function addWebSearch(
  chunk: CodexChunk,
  record: RawRecord,
  search: { query: string; id: string | null; status: string | null; from: 'item' | 'event' },
  ts: number | null,
): void {
  if (search.query !== '' && takeEcho(chunk, { from: search.from, role: 'tool', kind: 'web_search', text: search.query, blocks: [] })) {
    return;
  }
  const id = search.id ?? `L${record.line}`;
  const key = `tool:${id}`;
  if (chunk.calls.has(key) || chunk.wasEmitted(key)) {
    chunk.duplicates += 1;
    return;
  }
  const entry = toolEntry(
    chunk,
    record,
    ts,
    { id, key },
    { name: 'web_search', text: search.query || 'web_search', target: search.query || null, status: search.status },
  );
  chunk.pushCall(entry, search.id);
}

/** The query of a `web_search_call` item: a search names its query (or queries), an opened page its url. */
export function readSearchQuery(action: unknown): string {
  if (!isObject(action)) return '';
  const queries = Array.isArray(action.queries) ? action.queries.filter((query) => typeof query === 'string') : [];
  return str(action.query) ?? str(action.url) ?? str(action.pattern) ?? queries.join('\n');
}
