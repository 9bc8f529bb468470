import { isObject } from './json-value.js';
import { stringifyToolOutput } from './tool-input.js';

/**
 * Codex tool outputs as readable text plus the outcome they state. Codex writes a call's output in one of three
 * shapes, depending on the tool and the CLI version:
 *
 * - a JSON string wrapper (`shell`, `apply_patch`): `{"output":"…","metadata":{"exit_code":0,"duration_seconds":1.2}}`
 * - a plain-text header (`shell_command`, unified exec): `Exit code: 0` / `Process exited with code 0`,
 *   `Wall time: 1.2 seconds`, `Chunk ID: …`, `Process running with session ID 4823`, `Original token count: …`,
 *   `Total output lines: …`, then `Output:` and the output itself
 * - the output as it is (MCP tools, content-item arrays, plain strings)
 *
 * Only the output text is kept as the result; the header becomes structured fields.
 */
export interface CodexOutput {
  /** The output text, without wrapper or header. */
  text: string;
  exitCode: number | null;
  durationMs: number | null;
  /** Unified exec: the process still runs under this session id and later `write_stdin` polls read it. */
  runningSession: string | null;
}

/** Header lines sit at the very start; a longer line is output, not header. */
const HEADER_LINE_CHARS = 120;
const MAX_HEADER_LINES = 8;
const EXIT = /^(?:Exit code: |Process exited with code )(-?\d+)$/;
const WALL_TIME = /^Wall time: (\d+(?:\.\d+)?) ?(?:seconds|s)$/;
const RUNNING = /^Process running with session ID (\S+)$/;
const OTHER_HEADER = /^(?:Chunk ID: \S+|Original token count: \d+|Total output lines: \d+)$/;

export function readCodexOutput(raw: unknown): CodexOutput {
  const out = readAnyOutput(raw);
  out.text = trimNewlines(out.text);
  return out;
}

/** Text a command printed, as an event repeats it: a header is stripped, JSON is left as the command wrote it. */
export function readCommandText(text: string): string {
  return trimNewlines(readPlain(text).text);
}

function readAnyOutput(raw: unknown): CodexOutput {
  if (typeof raw !== 'string') return readPlain(stringifyToolOutput(raw));
  const trimmed = raw.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const parsed = parseJson(trimmed);
    if (parsed !== undefined) return readJsonOutput(parsed);
  }
  return readPlain(raw);
}

/** `{"output", "metadata"}` wrappers are unwrapped; other JSON (MCP results, content blocks) becomes text lines. */
function readJsonOutput(value: unknown): CodexOutput {
  if (isObject(value) && typeof value.output === 'string') {
    const metadata = isObject(value.metadata) ? value.metadata : {};
    const inner = readPlain(value.output);
    return {
      ...inner,
      exitCode: readNumber(metadata.exit_code) ?? inner.exitCode,
      durationMs: secondsToMs(readNumber(metadata.duration_seconds)) ?? inner.durationMs,
    };
  }
  return readPlain(stringifyToolOutput(value));
}

/** A leading run of known header lines, ended by `Output:` (or by the end of the text), is outcome, not output. */
function readPlain(text: string): CodexOutput {
  const out: CodexOutput = { text, exitCode: null, durationMs: null, runningSession: null };
  let start = 0;
  for (let count = 0; count < MAX_HEADER_LINES && start < text.length; count += 1) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    if (end - start > HEADER_LINE_CHARS) return plainOutput(text);
    const line = text.slice(start, end).trimEnd();
    const next = newline === -1 ? text.length : newline + 1;
    if (line === 'Output:') {
      out.text = text.slice(next);
      return out;
    }
    if (!readHeaderLine(line, out)) return count === 0 ? out : plainOutput(text);
    start = next;
  }
  // Header without an `Output:` line: a bare `Process exited with code 0` says the process printed nothing more.
  if (start >= text.length) {
    out.text = '';
    return out;
  }
  return plainOutput(text);
}

function readHeaderLine(line: string, out: CodexOutput): boolean {
  const exit = EXIT.exec(line);
  if (exit) {
    out.exitCode = Number(exit[1]);
    return true;
  }
  const wall = WALL_TIME.exec(line);
  if (wall) {
    out.durationMs = secondsToMs(Number(wall[1]));
    return true;
  }
  const running = RUNNING.exec(line);
  if (running) {
    out.runningSession = running[1]!;
    return true;
  }
  return OTHER_HEADER.test(line);
}

function plainOutput(text: string): CodexOutput {
  return { text, exitCode: null, durationMs: null, runningSession: null };
}

/**
 * Blank lines around an output (npm prints one first, every command a newline last) are not part of what it
 * said; indentation is kept. Loops, not a regex: a regex over a run of newlines would backtrack.
 */
function trimNewlines(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === '\n' || text[start] === '\r')) start += 1;
  while (end > start && (text[end - 1] === '\n' || text[end - 1] === '\r')) end -= 1;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function readNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function secondsToMs(seconds: number | null): number | null {
  return seconds === null ? null : Math.round(seconds * 1000);
}

/** A Rust `Duration` as serde writes it (`{secs, nanos}`), or a plain millisecond or second count. */
export function readDuration(payload: Record<string, unknown>): number | null {
  const duration = payload.duration;
  if (isObject(duration)) {
    const secs = readNumber(duration.secs);
    if (secs === null) return null;
    return Math.round(secs * 1000 + (readNumber(duration.nanos) ?? 0) / 1e6);
  }
  return readNumber(payload.duration_ms) ?? secondsToMs(readNumber(payload.duration_seconds));
}
