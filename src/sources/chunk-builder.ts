import {
  type CompactionAnchor,
  type Entry,
  addCount,
  mergeResultInto,
  type Session,
  type ToolResult,
  type UsageSnapshot,
  holdOutcomeNumbers,
} from '../model.js';
import { isObject } from './json-value.js';
import type { ParsedChunk, ResultPatch } from './source.js';

/** Tool calls still waiting for their result; dangling calls fall out of this window eventually. */
const PENDING_CALLS = 256;
/** Entry keys remembered across chunks for duplicate detection. */
const RECENT_KEYS = 256;

/** The part of every adapter's carry that the shared builder reads and keeps up to date. */
export interface ChunkCarry {
  v: 1;
  cwd: string | null;
  startMs: number | null;
  endMs: number | null;
  /** Tool call ids emitted without a result yet: their results become ResultPatches. */
  pending: string[];
  /**
   * Recent calls that already have their result: a later record may still complete them (an outcome event after
   * the output, more output of a running process). Absent in carries written before it existed.
   */
  done?: string[];
  /**
   * Keys of the latest entries earlier chunks emitted: a record repeating one is a duplicate, as it is when both
   * sit in one chunk. Absent in carries written before it existed.
   */
  keys?: string[];
}

/** The carry a chunk starts from: the previous chunk's, or `fresh()` on the first read (or an unknown version). */
export function restoreCarry<State extends ChunkCarry>(carry: unknown, fresh: () => State): State {
  // A copy: parse() must not change the carry it was given (a failed commit retries with the same one).
  if (isObject(carry) && carry.v === 1) return structuredClone(carry) as unknown as State;
  return fresh();
}

/** What each format decides about its session; id, cwd and time range come from the builder and its carry. */
export type SessionFacts = Pick<Session, 'source' | 'path' | 'project' | 'branch' | 'parentSessionId'> & {
  /** Title and subagent facts, when the format states them. */
  extra?: Partial<Pick<Session, 'title' | 'agentType' | 'agentDescription'>>;
};

/** What one parse() call collects; each adapter subclasses it with the lookups its format needs. */
export abstract class ChunkBuilder<State extends ChunkCarry> {
  readonly entries: Entry[] = [];
  readonly results: ResultPatch[] = [];
  readonly anchors: CompactionAnchor[] = [];
  readonly skipped: Record<string, number> = {};
  duplicates = 0;
  usage: UsageSnapshot | null = null;

  constructor(
    readonly state: State,
    readonly sessionId: string,
  ) {}

  /** The tool call entry this chunk emitted under `key`, if any. */
  protected abstract findCall(key: string): Entry | undefined;

  /** True when an earlier chunk of the file emitted an entry under this key (within the carry's window). */
  wasEmitted(key: string): boolean {
    return this.state.keys?.includes(key) ?? false;
  }

  skip(kind: string): void {
    addCount(this.skipped, kind);
  }

  /** Widens the session's time range, which lives in the carry so later chunks keep it. */
  track(ts: number | null): void {
    if (ts === null) return;
    if (this.state.startMs === null || ts < this.state.startMs) this.state.startMs = ts;
    if (this.state.endMs === null || ts > this.state.endMs) this.state.endMs = ts;
  }

  /** Only the latest snapshot of a chunk is kept: consecutive ones mostly repeat the same numbers. */
  recordUsage(used: number, max: number, ts: number, provider: string): void {
    // Counts summed from a hostile record can overflow to Infinity, and a window under one token is no window:
    // a snapshot of no real numbers is none.
    if (!(Number.isFinite(used) && Number.isFinite(max) && used > 0 && max >= 1 && Number.isFinite(ts))) return;
    this.usage = {
      session_id: this.sessionId,
      used_tokens: used,
      max_tokens: max,
      usage_ratio: used / max,
      captured_at_epoch_secs: Math.floor(ts / 1000),
      provider,
    };
  }

  /**
   * A tool result goes onto its call when this chunk emitted it, else becomes a ResultPatch for the call an
   * earlier chunk emitted (still pending, or recently completed when the patch only adds to it); a result for
   * neither is an orphan. A second full result for a call that has one (in this chunk or an earlier one) is a
   * duplicate: only its outcome fields are taken.
   */
  attachResult(callId: string, stated: ToolResult): void {
    const key = `tool:${callId}`;
    const patch = holdOutcomeNumbers({ ...stated });
    const pendingIndex = this.state.pending.indexOf(callId);
    // A call stays pending until its output text arrives: an outcome event may come first (Codex exec_command_end).
    if (pendingIndex >= 0 && patch.result !== null) this.state.pending.splice(pendingIndex, 1);
    const done = (this.state.done ??= []);
    const completes = patch.result === null || patch.append === true;
    const call = this.findCall(key);
    if (call) {
      if (call.result !== null && patch.result !== null && !patch.append) {
        this.duplicates += 1;
        mergeResultInto(call, { ...patch, result: null });
      } else {
        mergeResultInto(call, patch);
      }
    } else if (pendingIndex >= 0 || (completes && done.includes(callId))) {
      this.results.push({ key, ...patch });
    } else if (done.includes(callId)) {
      // An earlier chunk's call that has its output already: the same duplicate as within one chunk.
      this.duplicates += 1;
      this.results.push({ key, ...patch, result: null });
    } else {
      this.skip('orphan-tool-result');
      return;
    }
    if (!done.includes(callId)) done.push(callId);
  }

  /** The parsed chunk, its carry trimmed for the next one. */
  finish(facts: SessionFacts, fork: boolean): ParsedChunk {
    const state = this.state;
    state.pending = state.pending.slice(-PENDING_CALLS);
    if (state.done) state.done = state.done.slice(-PENDING_CALLS);
    const keys = new Set([...(state.keys ?? []), ...this.entries.map((entry) => entry.key)]);
    state.keys = [...keys].slice(-RECENT_KEYS);
    const session: Session = {
      title: facts.extra?.title ?? null,
      agentType: facts.extra?.agentType ?? null,
      agentDescription: facts.extra?.agentDescription ?? null,
      id: this.sessionId,
      source: facts.source,
      path: facts.path,
      project: facts.project,
      cwd: state.cwd,
      branch: facts.branch,
      parentSessionId: facts.parentSessionId,
      startMs: state.startMs,
      endMs: state.endMs,
    };
    return {
      session,
      entries: this.entries,
      results: this.results,
      anchors: this.anchors,
      usage: this.usage ? [this.usage] : [],
      skipped: this.skipped,
      duplicates: this.duplicates,
      fork,
      carry: state,
    };
  }
}

