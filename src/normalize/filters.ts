import type { EntryKind, Role } from '../model.js';

/**
 * Message-level noise filters (seed 002 §2.1–2.3 plus the OpenClaw-specific ones). Input is already cleaned
 * text. Filters answer with a reason so ingest can count what it dropped and why.
 */

export type NoiseReason =
  | 'empty'
  | 'short'
  | 'system-noise'
  | 'recall-output'
  | 'no-reply'
  | 'heartbeat'
  | 'process-poll';

export const NOISE_REASONS: readonly NoiseReason[] = [
  'empty',
  'short',
  'system-noise',
  'recall-output',
  'no-reply',
  'heartbeat',
  'process-poll',
];

export interface NoiseCandidate {
  role: Role;
  text: string;
  toolName: string | null;
  /** Tool entries only: the coupled result. Null (no result yet) counts as empty. */
  result?: string | null;
  /** Recaps are the harness's summary of the work: an outcome, kept whatever their length. */
  kind?: EntryKind | null;
}

export interface NoiseOptions {
  /** Seed 002 §2.1: messages shorter than this many characters are dropped. */
  minLength?: number;
}

export const DEFAULT_MIN_LENGTH = 10;

/**
 * Seed 002 §2.2 markers. The seed tests them anywhere in a message; we keep that for the tool-call XML and
 * event tags, which never occur in real prose, but anchor the phrases to the start of the message (after any
 * leading tags such as `<local-command-caveat>`). A user who pastes "API Error: 500" under their question is
 * asking about it, and an assistant explaining an "API Error" is doing real work.
 */
export const SYSTEM_NOISE_MARKERS: readonly string[] = [
  '<function_calls>',
  '<invoke',
  '</invoke>',
  '<parameter',
  '</parameter>',
  '</function_calls>',
  '<bash-',
  '<ide_',
];
export const SYSTEM_NOISE_PREFIXES: readonly string[] = [
  '[Request interrupted',
  'New environment',
  'API Error',
  'Limit reached',
  'Caveat:',
];

/** Seed 002 §2.3, multiline: pasted recall output may follow a short preface. */
export const RECALL_OUTPUT_PATTERN = /^\[[0-9]+\/[0-9]+\]\s+[a-f0-9]{7}\s+•/m;

/** OpenClaw's silent-reply tokens, when they are the whole message (optionally after a `[[reply_to…]]` tag). */
export const NO_REPLY_PATTERN = /^(?:\[\[[a-z_:\s-]{1,40}\]\]\s*)?(?:NO_REPLY|HEARTBEAT_OK)[.!]?$/;

/**
 * Heartbeat polls sent to the agent as user/system messages. OpenClaw's default prompt is
 * "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. … If nothing needs attention, reply
 * HEARTBEAT_OK." Custom prompts vary, so a message also counts when it is about HEARTBEAT.md (or opens with
 * "Heartbeat") and *instructs* the ack token at the start of a sentence. "Why does it reply HEARTBEAT_OK?" is a
 * question about heartbeats, not a poll, and is kept.
 */
export const HEARTBEAT_PROMPT_START = /^Read HEARTBEAT\.md\b/i;
export const HEARTBEAT_SUBJECT = /HEARTBEAT\.md|^Heartbeat\b/i;
// `[ \t]*(?:\n[ \t]*)?`, not `[ \t]*\n?[ \t]*`: two adjacent stars split a long run of spaces every possible way.
export const HEARTBEAT_ACK_INSTRUCTION =
  /(?:^|[.!:,\n])[ \t]*(?:\n[ \t]*)?(?:reply|respond|answer|return|say)(?: with)?(?: exactly| only)?:?[ \t]*["'`]?HEARTBEAT_OK\b/i;
/** OpenClaw treats a reply that starts or ends with HEARTBEAT_OK and has ≤ 300 other characters as an ack. */
const HEARTBEAT_ACK_MAX_CHARS = 300;

/** Process/tool poll echoes that carry no new content (OpenClaw `process poll`, background shell checks). */
export const PROCESS_POLL_PATTERNS: readonly RegExp[] = [
  /^\(no (?:new )?output\)$/i,
  /^(?:\(no (?:new )?output\)\s*)?(?:Process|Command|Job|Shell) (?:is )?still running\.?$/i,
  /^\(no (?:new )?output\)\s*\[?(?:status: )?running\]?$/i,
  /^No new output(?: since last poll)?\.?$/i,
];

export function classifyNoise(entry: NoiseCandidate, options: NoiseOptions = {}): NoiseReason | null {
  const text = entry.text.trim();
  if (entry.role === 'tool') {
    // Tool entries stay unless there is nothing at all: the call and its outcome are the record of what happened.
    return text === '' && (entry.result ?? '').trim() === '' ? 'empty' : null;
  }
  if (text === '') return 'empty';
  if (entry.kind === 'recap') return null;
  if (NO_REPLY_PATTERN.test(text)) return 'no-reply';
  if (isHeartbeat(entry.role, text)) return 'heartbeat';
  if (PROCESS_POLL_PATTERNS.some((pattern) => pattern.test(text))) return 'process-poll';
  if (RECALL_OUTPUT_PATTERN.test(text)) return 'recall-output';
  if (isSystemNoise(text)) return 'system-noise';
  if (isShort(text, options.minLength ?? DEFAULT_MIN_LENGTH)) return 'short';
  return null;
}

/** Seed 002 counts characters (jq `length`, code points), not UTF-16 units, so "好的谢谢" is 4, not 8. */
function isShort(text: string, minLength: number): boolean {
  if (text.length >= minLength * 2) return false;
  return [...text].length < minLength;
}

const LEADING_TAGS = /^(?:<[a-zA-Z][\w-]*(?:\s[^<>]{0,200})?>\s*)*/;

function isSystemNoise(text: string): boolean {
  if (SYSTEM_NOISE_MARKERS.some((marker) => text.includes(marker))) return true;
  const head = text.replace(LEADING_TAGS, '');
  return SYSTEM_NOISE_PREFIXES.some((prefix) => head.startsWith(prefix));
}

/** OpenClaw prefixes prompts with `[Thu 2026-04-09 14:48 GMT+8]` and may append a `Current time: …` line. */
const TIMESTAMP_PREFIX = /^\[[^\]\n]{1,60}\]\s*/;
// A single \n, not \n+: a greedy run before a failing literal backtracks quadratically on long blank runs.
const CURRENT_TIME_LINE = /\nCurrent time:[^\n]*$/;

function isHeartbeat(role: Role, text: string): boolean {
  if (role === 'assistant') return isHeartbeatAck(text);
  const prompt = text.replace(TIMESTAMP_PREFIX, '').replace(CURRENT_TIME_LINE, '').trim();
  if (HEARTBEAT_PROMPT_START.test(prompt)) return true;
  return HEARTBEAT_SUBJECT.test(prompt) && HEARTBEAT_ACK_INSTRUCTION.test(prompt);
}

function isHeartbeatAck(text: string): boolean {
  const token = 'HEARTBEAT_OK';
  let rest: string;
  if (text.startsWith(token)) rest = text.slice(token.length);
  else if (text.endsWith(token)) rest = text.slice(0, -token.length);
  else return false;
  return rest.trim().length <= HEARTBEAT_ACK_MAX_CHARS;
}
