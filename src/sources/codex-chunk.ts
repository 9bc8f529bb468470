import { createEntry, type Entry, type Role } from '../model.js';
import { ChunkBuilder, type ChunkCarry } from './chunk-builder.js';
import type { RawRecord } from './source.js';

/** What an echo is compared by: messages, reasoning and web searches are each deduped among their own kind. */
export type EchoKind = 'message' | 'reasoning' | 'web_search';

export interface RecentMessage {
  from: 'item' | 'event';
  role: Role;
  /** Absent in carries written before reasoning and web searches were deduped: a message. */
  kind?: EchoKind;
  /** Hashes of the whole text and of each text block (an echo may repeat only one block). */
  hashes: string[];
}

/** A unified exec process still running: its later `write_stdin` polls continue the `exec_command` call. */
export interface RunningProcess {
  /** The session id Codex printed (`Process running with session ID 48230`). */
  session: string;
  /** The exec_command call the output belongs to. */
  callId: string;
  /** When the process started (the first output's time minus its wall time), or null when unknown. */
  startMs: number | null;
  /** Wall time of every piece so far: the duration when the records carry no timestamps. */
  wallMs: number;
}

/** A `write_stdin` poll whose output continues an exec_command call instead of being an entry of its own. */
export interface PendingPoll {
  callId: string;
  execId: string;
  /** What the poll typed into the process, shown readably; absent for an empty poll. */
  stdin?: string;
}

export interface CodexCarry extends ChunkCarry {
  sessionId: string | null;
  parentSessionId: string | null;
  branch: string | null;
  provider: string | null;
  contextWindow: number | null;
  /** Id of the last entry emitted: a `compacted` record points back to it. */
  lastEntryId: string | null;
  /** Messages not yet matched by their echo from the other stream. */
  recent: RecentMessage[];
  /** Calls whose output text is known: a second output (event after item, or item after event) adds only outcome. */
  answered?: string[];
  processes?: RunningProcess[];
  polls?: PendingPoll[];
}

/** Windows of the carry: old entries fall out, so a carry stays small on a session of any length. */
export const ANSWERED_WINDOW = 256;
export const PROCESS_WINDOW = 32;
export const POLL_WINDOW = 32;

export function freshCarry(): CodexCarry {
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

export class CodexChunk extends ChunkBuilder<CodexCarry> {
  readonly calls = new Map<string, Entry>();

  protected findCall(key: string): Entry | undefined {
    return this.calls.get(key);
  }

  push(entry: Entry): void {
    this.entries.push(entry);
    this.state.lastEntryId = entry.id;
  }

  /**
   * A tool entry, remembered so its output can find it later in this chunk; a call with an id the file states
   * stays pending, so a record of a later chunk can complete it too.
   */
  pushCall(entry: Entry, callId: string | null): void {
    this.calls.set(entry.key, entry);
    this.push(entry);
    if (callId) this.state.pending.push(callId);
  }

  /** True when a call with this id was emitted by this chunk or an earlier one still in the carry's windows. */
  knowsCall(callId: string): boolean {
    const state = this.state;
    return this.calls.has(`tool:${callId}`) || state.pending.includes(callId) || (state.done ?? []).includes(callId);
  }

  hasAnswer(callId: string): boolean {
    return (this.state.answered ?? []).includes(callId);
  }

  noteAnswer(callId: string): void {
    const answered = (this.state.answered ??= []);
    if (answered.includes(callId)) return;
    answered.push(callId);
    if (answered.length > ANSWERED_WINDOW) answered.splice(0, answered.length - ANSWERED_WINDOW);
  }
}

/** The fields every Codex entry states the same way: its id, place in the file and time. */
export function baseEntry(chunk: CodexChunk, record: RawRecord, ts: number | null, id: string, key: string) {
  return { id, key, sessionId: chunk.sessionId, seq: record.line * 1000, line: record.line, ts };
}

export function toolEntry(
  chunk: CodexChunk,
  record: RawRecord,
  ts: number | null,
  ids: { id: string; key: string },
  tool: { name: string; text: string; target: string | null; status?: string | null },
): Entry {
  return createEntry({
    ...baseEntry(chunk, record, ts, ids.id, ids.key),
    role: 'tool',
    text: tool.text,
    toolName: tool.name,
    toolTarget: tool.target,
    status: tool.status ?? null,
  });
}
