import { createEntry, type Entry } from '../model.js';
import { ChunkBuilder, type ChunkCarry, restoreCarry } from './chunk-builder.js';
import { isObject, type JsonObject, str } from './json-value.js';
import { describeClaudeResult } from './claude-results.js';
import { nameProject, nameProjectByFolder, takeFileStem } from './path-names.js';
import type { ParsedChunk, RawRecord, Source, SourceContext } from './source.js';
import { parseTimestamp } from './timestamp.js';
import { describeToolCall } from './tool-input.js';

/**
 * Claude Code transcripts: `~/.claude/projects/<project>/<session>.jsonl`, plus subagent transcripts in
 * `<session>/subagents/agent-<id>.jsonl`. One JSONL record per message — except that an assistant API message
 * is written as several records, one per content block, sharing `message.id` + `requestId`.
 */

const RECORD_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'file-history-snapshot',
  'permission-mode',
  'queue-operation',
  'attachment',
  'last-prompt',
  'progress',
  'custom-title',
  'agent-name',
]);
/** Fields only Claude Code records carry; a `type` alone could belong to any format. */
const CLAUDE_FIELDS = ['sessionId', 'uuid', 'parentUuid', 'leafUuid', 'messageId', 'snapshot'];
const DEFAULT_CONTEXT_WINDOW = 200_000;
const LARGE_CONTEXT_WINDOW = 1_000_000;
/**
 * Assistant messages whose later blocks may still arrive in the next chunk. Blocks of one message are adjacent
 * except for tool results and, in 2025 files, the records of parallel inline Task agents.
 */
const OPEN_MESSAGES = 16;
/** Summaries whose leaf message has not been seen yet; old files open with a handful of them. */
const TITLE_LEAVES = 32;
/** Claude Code's own footer on every recap, about its settings rather than the session. */
const RECAP_FOOTER = '(disable recaps in /config)';

/** How sure a title is: a title the user set beats a summary of this file's conversation, which beats any summary. */
const TITLE_SUMMARY = 1;
const TITLE_SUMMARY_OF_LEAF_HERE = 2;
const TITLE_CUSTOM = 3;

interface ClaudeCarry extends ChunkCarry {
  /** The records' own `sessionId` (for subagents: the parent session's id). */
  sessionId: string | null;
  /** Set when the file is a subagent transcript; decided by the first user/assistant record. */
  agentId: string | null;
  kindDecided: boolean;
  /** The file's first record has been seen (it decides `fork`). */
  started: boolean;
  branch: string | null;
  fork: boolean;
  /**
   * The last assistant text entries, without their text. When a later chunk continues one (same message.id +
   * requestId), it emits the new text only, under the same key and with the first record's id, line and seq:
   * the store appends text to the entry it already holds under that key.
   */
  open: OpenMessage[];
  /** The session title so far and how sure it is (TITLE_*). Absent in carries written before titles existed. */
  title?: string | null;
  titleRank?: number;
  /** `[leafUuid, summary]` of summary records whose leaf has not appeared yet. */
  titleLeaves?: [string, string][];
  /** A subagent's type and task, from its `.meta.json` sidecar. */
  agentType?: string | null;
  agentDescription?: string | null;
}

type OpenMessage = Pick<Entry, 'key' | 'id' | 'line' | 'seq' | 'ts' | 'parentId' | 'sidechain'>;

export const claudeCodeSource: Source = {
  name: 'claude-code',
  label: 'Claude Code',
  fileName: /\.jsonl$/,
  detect: detectClaudeCode,
  parse: parseClaudeCode,
};

function detectClaudeCode(head: readonly unknown[]): boolean {
  return head.some(
    (record) =>
      isObject(record) &&
      typeof record.type === 'string' &&
      RECORD_TYPES.has(record.type) &&
      !('payload' in record) &&
      CLAUDE_FIELDS.some((field) => field in record),
  );
}

function freshCarry(): ClaudeCarry {
  return {
    v: 1,
    sessionId: null,
    agentId: null,
    kindDecided: false,
    started: false,
    cwd: null,
    branch: null,
    startMs: null,
    endMs: null,
    fork: false,
    open: [],
    pending: [],
  };
}

/** Learn session facts before building entries, so every entry of the chunk gets the same session id. */
function learnSession(state: ClaudeCarry, records: readonly RawRecord[]): void {
  for (const { value } of records) {
    if (!isObject(value)) continue;
    state.sessionId ??= str(value.sessionId);
    state.cwd ??= str(value.cwd);
    state.branch ??= str(value.gitBranch);
    if (!state.kindDecided && (value.type === 'user' || value.type === 'assistant')) {
      // Subagent transcripts mark every record isSidechain + agentId; inline sidechains (2025) have no agentId.
      state.kindDecided = true;
      state.agentId = value.isSidechain === true ? str(value.agentId) : null;
    }
  }
}

function sessionIdOf(state: ClaudeCarry, path: string): string {
  const base = state.sessionId ?? takeFileStem(path);
  return state.agentId ? `${base}:agent-${state.agentId}` : base;
}

/** `~/.claude/projects/<project>/...`: the folder Claude Code named after the working directory. */
function projectFolder(path: string): string | null {
  const match = /[\\/]projects[\\/]([^\\/]+)[\\/]/.exec(path);
  return match?.[1] ?? null;
}

class ClaudeChunk extends ChunkBuilder<ClaudeCarry> {
  /** Entries of this chunk by key, for streaming merges and result pairing. */
  readonly byKey = new Map<string, Entry>();

  protected findCall(key: string): Entry | undefined {
    return this.byKey.get(key);
  }

  /** `continues`: assistant text, which the store appends to an earlier chunk's entry under the same key. */
  push(entry: Entry, continues = false): void {
    if (this.byKey.has(entry.key) || (!continues && this.wasEmitted(entry.key))) {
      this.duplicates += 1;
      return;
    }
    this.byKey.set(entry.key, entry);
    this.entries.push(entry);
  }
}

function parseClaudeCode(records: readonly RawRecord[], context: SourceContext): ParsedChunk {
  const state = restoreCarry(context.carry, freshCarry);
  if (!state.started && records.length > 0) {
    const first = records[0]?.value;
    // Seed 002: a file whose first line is a queue-operation is an ephemeral fork made by memory recall.
    state.fork = isObject(first) && first.type === 'queue-operation';
    state.started = true;
  }
  learnSession(state, records);
  learnSidecar(state, context.sidecar);
  const sessionId = sessionIdOf(state, context.path);
  const chunk = new ClaudeChunk(state, sessionId);

  for (const record of records) parseClaudeRecord(chunk, record);

  chunk.entries.sort((a, b) => a.seq - b.seq);
  state.open = [...state.open.filter((head) => !chunk.byKey.has(head.key)), ...openMessages(chunk)].slice(
    -OPEN_MESSAGES,
  );
  return chunk.finish(
    {
      source: 'claude-code',
      path: context.path,
      project: nameSessionProject(state.cwd, context.path),
      branch: state.branch,
      parentSessionId: state.agentId ? (state.sessionId ?? null) : null,
      extra: {
        title: state.title ?? null,
        agentType: state.agentType ?? null,
        agentDescription: state.agentDescription ?? null,
      },
    },
    state.fork,
  );
}

/**
 * The project a session belongs to: the repo its transcript folder was named after (a subagent working in its own
 * worktree is filed under its parent's folder), else the cwd's repo or folder, else the folder name itself.
 */
function nameSessionProject(cwd: string | null, path: string): string | null {
  const folder = projectFolder(path);
  return (folder ? nameProjectByFolder(folder, cwd) : null) ?? nameProject(cwd) ?? folder;
}

/** A subagent's `.meta.json`: `{"agentType": "general-purpose", "description": "Round 2: bob comparison"}`. */
function learnSidecar(state: ClaudeCarry, sidecar: unknown): void {
  if (!isObject(sidecar)) return;
  state.agentType = str(sidecar.agentType) ?? state.agentType ?? null;
  state.agentDescription = str(sidecar.description) ?? state.agentDescription ?? null;
}

function openMessages(chunk: ClaudeChunk): OpenMessage[] {
  return chunk.entries
    .filter((entry) => entry.role === 'assistant' && entry.key.startsWith('msg:'))
    .map(({ key, id, line, seq, ts, parentId, sidechain }) => ({ key, id, line, seq, ts, parentId, sidechain }));
}

function parseClaudeRecord(chunk: ClaudeChunk, record: RawRecord): void {
  const value = record.value;
  if (!isObject(value)) {
    chunk.skip('non-object');
    return;
  }
  const ts = parseTimestamp(value.timestamp);
  chunk.track(ts);
  noteTitleLeaf(chunk.state, value);
  const type = typeof value.type === 'string' ? value.type : null;
  switch (type) {
    case 'user':
      parseUserRecord(chunk, record, value, ts);
      return;
    case 'assistant':
      parseAssistantRecord(chunk, record, value, ts);
      return;
    case 'summary':
      learnSummaryTitle(chunk, value);
      return;
    case 'custom-title':
      if (typeof value.customTitle === 'string' && value.customTitle.trim() !== '') {
        setTitle(chunk.state, value.customTitle.trim(), TITLE_CUSTOM);
      } else {
        chunk.skip('custom-title');
      }
      return;
    case 'system':
      if (value.subtype === 'compact_boundary') {
        chunk.anchors.push(compactBoundaryAnchor(chunk, record, value, ts));
      } else if (value.subtype === 'away_summary' && typeof value.content === 'string') {
        addRecap(chunk, record, value, ts, value.content);
      } else {
        chunk.skip(typeof value.subtype === 'string' ? `system:${value.subtype}` : 'system');
      }
      return;
    case null:
      chunk.skip('missing-type');
      return;
    default:
      chunk.skip(type);
  }
}

/**
 * Old Claude Code (2025) opened files with `{type:"summary", summary, leafUuid}` records: a title for the
 * conversation ending at `leafUuid`, not a compaction. Several may stand at the top of one file (one per branch,
 * some copied from the sessions it resumed). The title is the summary whose leaf is a message of this file; until
 * one is seen, the latest summary.
 */
function learnSummaryTitle(chunk: ClaudeChunk, value: JsonObject): void {
  const summary = typeof value.summary === 'string' ? value.summary.trim() : '';
  if (summary === '') {
    chunk.skip('summary');
    return;
  }
  const state = chunk.state;
  setTitle(state, summary, TITLE_SUMMARY);
  const leaf = str(value.leafUuid);
  if (leaf) state.titleLeaves = [...(state.titleLeaves ?? []), [leaf, summary] as [string, string]].slice(-TITLE_LEAVES);
}

/** A record whose uuid is a summary's leaf: that summary titles this file's conversation. */
function noteTitleLeaf(state: ClaudeCarry, value: JsonObject): void {
  const leaves = state.titleLeaves;
  if (!leaves || leaves.length === 0 || typeof value.uuid !== 'string') return;
  const index = leaves.findIndex(([leaf]) => leaf === value.uuid);
  if (index < 0) return;
  setTitle(state, leaves[index]![1], TITLE_SUMMARY_OF_LEAF_HERE);
  leaves.splice(index, 1);
}

function setTitle(state: ClaudeCarry, title: string, rank: number): void {
  if ((state.titleRank ?? 0) > rank) return;
  state.title = title;
  state.titleRank = rank;
}

/** `away_summary`: the harness's recap of what happened while the user was away; an outcome line, not chatter. */
function addRecap(chunk: ClaudeChunk, record: RawRecord, value: JsonObject, ts: number | null, content: string): void {
  const trimmed = content.trim();
  const text = trimmed.endsWith(RECAP_FOOTER) ? trimmed.slice(0, -RECAP_FOOTER.length).trimEnd() : trimmed;
  if (text === '') {
    chunk.skip('system:away_summary');
    return;
  }
  const base = baseEntry(chunk, record, value, ts);
  chunk.push(createEntry({ ...base, key: `recap:${base.id}`, seq: record.line * 1000, role: 'system', kind: 'recap', text }));
}

function compactBoundaryAnchor(chunk: ClaudeChunk, record: RawRecord, value: JsonObject, ts: number | null) {
  const meta = isObject(value.compactMetadata) ? value.compactMetadata : {};
  const details = [str(meta.trigger), typeof meta.preTokens === 'number' ? String(meta.preTokens) : null].filter(
    (part): part is string => part !== null,
  );
  const note = details.length > 0 ? `Conversation compacted (${details.join(', ')})` : 'Conversation compacted';
  return {
    id: str(value.uuid) ?? `L${record.line}`,
    sessionId: chunk.sessionId,
    ts,
    line: record.line,
    note,
    originId: str(value.logicalParentUuid),
  };
}

function baseEntry(chunk: ClaudeChunk, record: RawRecord, value: JsonObject, ts: number | null) {
  return {
    id: str(value.uuid) ?? `L${record.line}`,
    sessionId: chunk.sessionId,
    line: record.line,
    ts,
    priority: null,
    parentId: str(value.parentUuid),
    // In a subagent transcript every record is a sidechain; there it is the session's own main line.
    sidechain: value.isSidechain === true && chunk.state.agentId === null,
  };
}

function parseUserRecord(chunk: ClaudeChunk, record: RawRecord, value: JsonObject, ts: number | null): void {
  if (value.isMeta === true) {
    chunk.skip('user:meta');
    return;
  }
  const message = value.message;
  if (!isObject(message)) {
    chunk.skip('malformed:user');
    return;
  }
  const content = message.content;
  const blocks: unknown[] = typeof content === 'string' ? [content] : Array.isArray(content) ? content : [];
  // `toolUseResult` describes the record; it belongs to a block only when the record answers one call.
  const results = blocks.filter((block) => isObject(block) && block.type === 'tool_result').length;
  const structured = results === 1 ? value.toolUseResult : undefined;
  const texts: string[] = [];
  let firstText = -1;
  blocks.forEach((block, index) => {
    const text = typeof block === 'string' ? block : isObject(block) && block.type === 'text' ? block.text : null;
    if (typeof text === 'string') {
      if (text.trim() === '') return;
      if (firstText < 0) firstText = index;
      texts.push(text);
    } else if (isObject(block) && block.type === 'tool_result') {
      attachToolResult(chunk, record, value, block, structured);
    } else {
      chunk.skip(isObject(block) && typeof block.type === 'string' ? `user:${block.type}` : 'user:unknown-block');
    }
  });
  if (texts.length === 0) {
    if (blocks.length === 0) chunk.skip('user:empty');
    return;
  }
  const text = texts.join('\n\n');
  if (value.isCompactSummary === true) {
    // The continuation summary Claude Code writes after compaction is context, not something the user said.
    chunk.anchors.push({
      id: str(value.uuid) ?? `L${record.line}`,
      sessionId: chunk.sessionId,
      ts,
      line: record.line,
      note: text,
      originId: str(value.parentUuid),
    });
    return;
  }
  const base = baseEntry(chunk, record, value, ts);
  chunk.push(createEntry({ ...base, key: `u:${base.id}`, seq: record.line * 1000 + firstText, role: 'user', text }));
}

function attachToolResult(
  chunk: ClaudeChunk,
  record: RawRecord,
  value: JsonObject,
  block: JsonObject,
  structured?: unknown,
): void {
  const callId = str(block.tool_use_id);
  if (!callId) {
    chunk.skip('orphan-tool-result');
    return;
  }
  chunk.attachResult(callId, describeClaudeResult(block, structured, str(value.uuid) ?? `L${record.line}`));
}

function parseAssistantRecord(chunk: ClaudeChunk, record: RawRecord, value: JsonObject, ts: number | null): void {
  const message = value.message;
  if (!isObject(message)) {
    chunk.skip('malformed:assistant');
    return;
  }
  noteUsage(chunk, message, ts);
  const content = message.content;
  const blocks: unknown[] = typeof content === 'string' ? [content] : Array.isArray(content) ? content : [];
  const base = baseEntry(chunk, record, value, ts);
  const messageId = str(message.id);
  const messageKey = messageId ? `msg:${messageId}:${str(value.requestId) ?? ''}` : `a:${base.id}`;

  blocks.forEach((block, index) => {
    const seq = record.line * 1000 + index;
    if (typeof block === 'string' || (isObject(block) && block.type === 'text')) {
      const text = typeof block === 'string' ? block : block.text;
      if (typeof text === 'string' && text.trim() !== '') appendAssistantText(chunk, messageKey, base, seq, text);
      return;
    }
    if (!isObject(block)) {
      chunk.skip('assistant:unknown-block');
      return;
    }
    if (block.type === 'tool_use' || block.type === 'server_tool_use') {
      const name = str(block.name) ?? 'tool';
      const described = describeToolCall(name, block.input);
      const callId = str(block.id);
      const key = callId ? `tool:${callId}` : `tool:L${record.line}:${index}`;
      if (chunk.byKey.has(key) || chunk.wasEmitted(key)) {
        chunk.duplicates += 1;
        return;
      }
      chunk.push(
        createEntry({ ...base, key, seq, role: 'tool', text: described.text, toolName: name, toolTarget: described.target }),
      );
      if (callId) chunk.state.pending.push(callId);
      return;
    }
    if (typeof block.tool_use_id === 'string') {
      // Server tools (web search) put their result in the assistant message itself.
      attachToolResult(chunk, record, value, block);
      return;
    }
    if (block.type === 'thinking' || block.type === 'redacted_thinking') {
      chunk.skip('thinking');
      return;
    }
    chunk.skip(typeof block.type === 'string' ? `assistant:${block.type}` : 'assistant:unknown-block');
  });
}

/** Text blocks of one API message (possibly spread over several records and chunks) become one entry. */
function appendAssistantText(
  chunk: ClaudeChunk,
  key: string,
  base: ReturnType<typeof baseEntry>,
  seq: number,
  text: string,
): void {
  const existing = chunk.byKey.get(key);
  if (existing) {
    existing.text = `${existing.text}\n\n${text}`;
    return;
  }
  // Continued from an earlier chunk: only the new text, under the key and position of the first record.
  const head = chunk.state.open.find((candidate) => candidate.key === key);
  chunk.push(
    createEntry({ ...base, ...head, sessionId: chunk.sessionId, key, seq: head?.seq ?? seq, role: 'assistant', text }),
    true,
  );
}

/** Context use of the latest assistant message: everything the model read (fresh + cached input). */
function noteUsage(chunk: ClaudeChunk, message: JsonObject, ts: number | null): void {
  const usage = message.usage;
  if (!isObject(usage) || ts === null) return;
  const count = (field: string): number => (typeof usage[field] === 'number' ? (usage[field] as number) : 0);
  const used =
    count('input_tokens') + count('cache_creation_input_tokens') + count('cache_read_input_tokens');
  if (used <= 0) return;
  // Sessions on the 1M-context models are the only ones that can read more than 200k tokens at once.
  const max = used > DEFAULT_CONTEXT_WINDOW ? LARGE_CONTEXT_WINDOW : DEFAULT_CONTEXT_WINDOW;
  chunk.recordUsage(used, max, ts, 'anthropic');
}
