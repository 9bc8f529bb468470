import { MoonError } from '../errors.js';
import { HOOK_EVENT_NAMES, type HookEvent } from './events.js';

/**
 * The JSON a client writes on a hook's stdin. Claude Code and Codex share the common fields (`session_id`,
 * `transcript_path`, `cwd`, `hook_event_name`); each event adds its own (`source` at SessionStart, `trigger` at
 * PreCompact, `reason` at SessionEnd, `prompt` at UserPromptSubmit). Fields moon does not use (`model`,
 * `permission_mode`, `turn_id`, `stop_hook_active`, …) are ignored; a field moon uses with the wrong type is an
 * error naming it. Codex may send `transcript_path: null`.
 */
export interface HookPayload {
  sessionId: string | null;
  transcriptPath: string | null;
  cwd: string | null;
  hookEventName: string | null;
  /** SessionStart: `startup`, `resume`, `clear` or `compact` (another value is read as `startup`). */
  source: string | null;
  /** PreCompact: `manual` or `auto`. */
  trigger: string | null;
  /** SessionEnd: `clear`, `logout`, `prompt_input_exit`, `other`, … */
  reason: string | null;
  /** UserPromptSubmit: what the user typed. */
  prompt: string | null;
}

/** Hook payloads are small; a prompt with a pasted file is the largest. Anything past this is not a payload. */
export const MAX_PAYLOAD_BYTES = 8 * 1024 * 1024;

export function parseHookPayload(text: string, event: HookEvent): HookPayload {
  if (Buffer.byteLength(text, 'utf8') > MAX_PAYLOAD_BYTES) {
    throw new MoonError('bad_input', `the hook payload on stdin is over ${MAX_PAYLOAD_BYTES / 1024 / 1024} MB`);
  }
  if (text.trim() === '') throw new MoonError('bad_input', 'no hook payload on stdin (expected the JSON object the agent sends)');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new MoonError('bad_input', `the hook payload on stdin is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MoonError('bad_input', `the hook payload on stdin is ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}, not a JSON object`);
  }
  const record = value as Record<string, unknown>;
  const payload: HookPayload = {
    sessionId: readString(record, 'session_id'),
    transcriptPath: readString(record, 'transcript_path'),
    cwd: readString(record, 'cwd'),
    hookEventName: readString(record, 'hook_event_name'),
    source: readString(record, 'source'),
    trigger: readString(record, 'trigger'),
    reason: readString(record, 'reason'),
    prompt: readString(record, 'prompt', { keepBlank: true }),
  };
  const expected = HOOK_EVENT_NAMES[event];
  if (payload.hookEventName !== null && simplify(payload.hookEventName) !== simplify(expected)) {
    throw new MoonError('bad_input', `the payload is for ${JSON.stringify(payload.hookEventName)}, but this is \`moon hook ${event}\` (${expected})`, {
      hint: `register \`moon hook ${event}\` under ${expected} only`,
    });
  }
  return payload;
}

/** A string field, or null when absent or null; any other type is an error naming the field. */
function readString(record: Record<string, unknown>, key: string, options: { keepBlank?: boolean } = {}): string | null {
  if (!Object.hasOwn(record, key)) return null;
  const value = record[key];
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') {
    throw new MoonError('bad_input', `hook payload field "${key}" must be a string${key === 'transcript_path' ? ' or null' : ''}, got ${Array.isArray(value) ? 'an array' : typeof value}`);
  }
  if (!options.keepBlank && value.trim() === '') return null;
  return value;
}

/** `SessionStart`, `session_start` and `session-start` name the same event. */
function simplify(name: string): string {
  return name.toLowerCase().replace(/[^a-z]/g, '');
}
