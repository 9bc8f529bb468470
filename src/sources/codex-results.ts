import type { ToolResult } from '../model.js';
import { type CodexChunk, type PendingPoll, PROCESS_WINDOW } from './codex-chunk.js';
import { type CodexOutput, readCodexOutput, readCommandText, readDuration, readNumber } from './codex-output.js';
import { isObject, type JsonObject, str } from './json-value.js';
import type { RawRecord } from './source.js';

/**
 * Tool outputs and the events that complete calls. A call's output text is taken once, from whichever record
 * states it first (the `function_call_output` item or an `exec_command_end` / `patch_apply_end` event); every
 * later record adds only the outcome (exit code, duration, status) — or, for a running unified exec process, the
 * next piece of its output.
 */

export function attachToolOutput(chunk: CodexChunk, record: RawRecord, payload: JsonObject, ts: number | null): void {
  const callId = str(payload.call_id);
  if (!callId) {
    chunk.skip('orphan-tool-result');
    return;
  }
  const output = readCodexOutput(payload.output);
  const poll = takePendingPoll(chunk, callId);
  if (poll) {
    continueProcess(chunk, poll, output, record, ts);
    return;
  }
  if (output.runningSession !== null && chunk.knowsCall(callId)) startProcess(chunk, callId, output, ts);
  const answered = chunk.hasAnswer(callId);
  if (answered) chunk.duplicates += 1;
  attach(chunk, callId, {
    result: answered ? null : output.text,
    resultId: `L${record.line}`,
    exitCode: output.exitCode,
    // A process still running has no duration yet: its polls tell the rest.
    durationMs: output.runningSession === null ? output.durationMs : null,
    status: output.runningSession !== null ? 'running' : statusOfExit(output.exitCode),
  });
}

/** `exec_command_end`: exit code, duration and status of a call; its output only when the call has none yet. */
export function completeExec(chunk: CodexChunk, payload: JsonObject): boolean {
  const callId = str(payload.call_id);
  if (!callId || !chunk.knowsCall(callId)) return false;
  // The process is gone: later polls of it add output, never a second duration.
  const processes = chunk.state.processes ?? [];
  const running = processes.findIndex((process) => process.callId === callId);
  if (running >= 0) processes.splice(running, 1);
  const exitCode = readNumber(payload.exit_code);
  attach(chunk, callId, {
    result: chunk.hasAnswer(callId) ? null : readEventOutput(payload),
    resultId: null,
    exitCode,
    durationMs: readDuration(payload),
    status: str(payload.status) ?? statusOfExit(exitCode),
  });
  return true;
}

/** `patch_apply_end`: whether the patch applied, and what apply_patch printed when the call has no output yet. */
export function completePatch(chunk: CodexChunk, payload: JsonObject): boolean {
  const callId = str(payload.call_id);
  if (!callId || !chunk.knowsCall(callId)) return false;
  const success = typeof payload.success === 'boolean' ? payload.success : null;
  attach(chunk, callId, {
    result: chunk.hasAnswer(callId) ? null : readEventOutput(payload),
    resultId: null,
    status: str(payload.status) ?? (success === null ? null : success ? 'completed' : 'failed'),
  });
  return true;
}

/** `mcp_tool_call_end`: how long the call took and whether it failed (`result: {Err: …}` or `isError`). */
export function completeMcp(chunk: CodexChunk, payload: JsonObject): boolean {
  const callId = str(payload.call_id);
  if (!callId || !chunk.knowsCall(callId)) return false;
  const result = isObject(payload.result) ? payload.result : null;
  const failed = result !== null && ('Err' in result || (isObject(result.Ok) && result.Ok.isError === true));
  attach(chunk, callId, {
    result: null,
    resultId: null,
    durationMs: readDuration(payload),
    status: result === null ? null : failed ? 'failed' : 'completed',
  });
  return true;
}

/** Puts a result on a known call and remembers that its output text is known. */
function attach(chunk: CodexChunk, callId: string, patch: ToolResult): void {
  if (!chunk.knowsCall(callId)) {
    chunk.skip('orphan-tool-result');
    return;
  }
  chunk.attachResult(callId, patch);
  if (patch.result !== null && !patch.append) chunk.noteAnswer(callId);
}

function startProcess(chunk: CodexChunk, callId: string, output: CodexOutput, ts: number | null): void {
  // A session id is reused once its process is gone: the newest process owns it.
  const processes = (chunk.state.processes = (chunk.state.processes ?? []).filter(
    (process) => process.session !== output.runningSession,
  ));
  const wallMs = output.durationMs ?? 0;
  processes.push({ session: output.runningSession!, callId, startMs: ts === null ? null : ts - wallMs, wallMs });
  if (processes.length > PROCESS_WINDOW) processes.splice(0, processes.length - PROCESS_WINDOW);
}

function takePendingPoll(chunk: CodexChunk, callId: string): PendingPoll | null {
  const polls = chunk.state.polls ?? [];
  const index = polls.findIndex((poll) => poll.callId === callId);
  if (index < 0) return null;
  return polls.splice(index, 1)[0]!;
}

/**
 * A poll's output is the next piece of the exec_command's output. When the process exited, the call gets its
 * exit code and the duration from its start to this output (the sum of observed wall times without timestamps).
 */
function continueProcess(
  chunk: CodexChunk,
  poll: PendingPoll,
  output: CodexOutput,
  record: RawRecord,
  ts: number | null,
): void {
  const processes = chunk.state.processes ?? [];
  const index = processes.findIndex((process) => process.callId === poll.execId);
  const process = index >= 0 ? processes[index]! : null;
  const exited = output.exitCode !== null;
  let durationMs: number | null = null;
  if (process) {
    process.wallMs += output.durationMs ?? 0;
    if (exited) {
      durationMs = ts !== null && process.startMs !== null ? ts - process.startMs : process.wallMs;
      processes.splice(index, 1);
    }
  }
  const piece = [poll.stdin === undefined ? '' : `[stdin] ${poll.stdin}`, output.text]
    .filter((part) => part !== '')
    .join('\n');
  attach(chunk, poll.execId, {
    result: piece === '' ? null : piece,
    resultId: `L${record.line}`,
    append: true,
    exitCode: output.exitCode,
    durationMs,
    status: exited ? statusOfExit(output.exitCode) : null,
  });
}

/** An event's own copy of the output: what the command printed, without any header. */
function readEventOutput(payload: JsonObject): string | null {
  const text =
    str(payload.aggregated_output) ||
    str(payload.formatted_output) ||
    [str(payload.stdout), str(payload.stderr)].filter((part) => part).join('\n');
  return text ? readCommandText(text) || null : null;
}

function statusOfExit(exitCode: number | null): string | null {
  if (exitCode === null) return null;
  return exitCode === 0 ? 'completed' : 'failed';
}
