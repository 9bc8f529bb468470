import type { ToolResult } from '../model.js';
import { isObject, type JsonObject } from './json-value.js';
import { parseJsonText, renderJsonText, renderReadable } from './readable-json.js';
import { stringifyToolOutput } from './tool-input.js';

/**
 * Claude Code tool results. The `tool_result` block holds the text the model saw; the record's `toolUseResult`
 * beside it holds the same outcome structured — Bash `{stdout, stderr, interrupted}`, Task/Agent
 * `{status, totalDurationMs, …}`, WebSearch `{durationSeconds}` — which is where the outcome fields come from.
 */

/** Characters kept of one value when a JSON result is rendered as lines. */
const VALUE_LIMIT = 20_000;
/** Bash reports a failing command as `Exit code 2` on the first line of an error result. */
const EXIT_CODE_LINE = /^Exit code (-?\d{1,4})\b/;

/**
 * The readable result of one tool_result block. `structured` is the record's `toolUseResult`, taken only when
 * the record answers a single call (it describes the record, not a block).
 */
export function describeClaudeResult(block: JsonObject, structured: unknown, resultId: string): ToolResult {
  const failed = block.is_error === true;
  const outcome = isObject(structured) ? readOutcome(structured) : {};
  const readable = readableOutput(stringifyToolOutput(block.content));
  let output = readable.body;
  if (output.trim() === '' && isObject(structured) && typeof structured.returnCodeInterpretation === 'string') {
    // An empty grep or diff: Claude Code states what the exit code meant ("No matches found").
    output = structured.returnCodeInterpretation;
  }
  const result: ToolResult = { result: failed ? `[error] ${output}`.trimEnd() : output, resultId };
  // Only what the record states: an absent field leaves whatever an earlier record set.
  const status = failed || readable.failed ? 'error' : outcome.status;
  if (status) result.status = status;
  if (outcome.durationMs !== undefined && outcome.durationMs !== null) result.durationMs = outcome.durationMs;
  const exit = failed ? EXIT_CODE_LINE.exec(output.trimStart()) : null;
  if (exit) result.exitCode = Number(exit[1]);
  return result;
}

interface Outcome {
  status?: string | null;
  durationMs?: number | null;
}

function readOutcome(structured: JsonObject): Outcome {
  const outcome: Outcome = {};
  if (structured.interrupted === true) outcome.status = 'interrupted';
  else if (typeof structured.status === 'string' && structured.status !== '') outcome.status = structured.status;
  else if (structured.success === false) outcome.status = 'error';
  const duration = firstNumber(structured.totalDurationMs, structured.durationMs);
  if (duration !== null) outcome.durationMs = duration;
  else if (typeof structured.durationSeconds === 'number') outcome.durationMs = Math.round(structured.durationSeconds * 1000);
  return outcome;
}

function firstNumber(...values: unknown[]): number | null {
  for (const value of values) if (typeof value === 'number' && Number.isFinite(value)) return value;
  return null;
}

interface ReadableOutput {
  body: string;
  /** The result said `success: false`. */
  failed: boolean;
}

/**
 * SendMessage-style results are JSON text (`{"success":true,"message":"Message sent to alice's inbox",…}`): their
 * message is what happened (the routing repeats the call's own arguments). Other JSON becomes `key: value` lines.
 */
function readableOutput(output: string): ReadableOutput {
  const value = parseJsonText(output);
  if (isObject(value) && typeof value.message === 'string' && value.message.trim() !== '') {
    return { body: value.message, failed: value.success === false };
  }
  if (value !== undefined) {
    const body = renderReadable(value, VALUE_LIMIT, Math.max(output.length, VALUE_LIMIT));
    return { body, failed: isObject(value) && value.success === false };
  }
  return { body: renderJsonText(output, VALUE_LIMIT), failed: false };
}
