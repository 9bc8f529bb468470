import type { Entry } from '../model.js';

/**
 * How a tool call ended, in one short phrase: `exit 0 in 14.8 s: ✓ test/invoice.test.ts (3 tests)`.
 * The provider's structured fields (exit code, wall time, status) are trusted first; the result text is only
 * scraped for an exit code when the provider stated none, and otherwise gives the first line worth reading.
 */

export type ToolOutcome = Pick<Entry, 'result' | 'exitCode' | 'durationMs' | 'status'>;

/** Statuses that mean the call did not succeed, and the word the summary uses for them. */
const FAILED_STATUSES = new Set(['failed', 'failure', 'error', 'errored', 'timeout', 'timed_out', 'rejected', 'denied']);
const INTERRUPTED_STATUSES = new Set(['interrupted', 'cancelled', 'canceled', 'aborted', 'killed']);

/** `850 ms`, `14.8 s`, `2 min 5 s`, `1 h 3 min`: the unit a reader would say aloud. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const tenths = Math.round(ms / 100);
  if (tenths < 600) return tenths % 10 === 0 ? `${tenths / 10} s` : `${(tenths / 10).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) {
    const rest = seconds % 60;
    return rest === 0 ? `${Math.floor(seconds / 60)} min` : `${Math.floor(seconds / 60)} min ${rest} s`;
  }
  const minutes = Math.round(seconds / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${Math.floor(minutes / 60)} h` : `${Math.floor(minutes / 60)} h ${rest} min`;
}

/** Lines that frame output rather than say anything: exit-code trailers, wrapper headers, script echoes. */
const FRAME_LINES: readonly RegExp[] = [
  /^(?:process )?exit(?:ed)?(?: with)?(?: status| code)?[\s:=]+-?\d+\s*$/i,
  /^(?:exit code|wall time|chunk id|original token count|process running with session id)\b/i,
  /^output:\s*$/i,
  // npm/pnpm/yarn announce the script before running it: `> shop@1.0.0 test` then `> vitest run`.
  /^> \S/,
  // Test runners' banners: vitest `RUN  v3.2.4 /repo`, jest `PASS`-less preambles have no fixed shape.
  /^RUN\s+v\d/,
];

/** Characters of a result scanned for its first meaningful line: output can be megabytes, the answer is near the top. */
const SCAN_LIMIT = 16_384;

/** The first line with something to read, or '' when the output holds none (blank, only rules, only frames). */
export function findMeaningfulLine(result: string): string {
  const text = result.length > SCAN_LIMIT ? result.slice(0, SCAN_LIMIT) : result;
  let start = 0;
  while (start <= text.length) {
    const end = text.indexOf('\n', start);
    // OpenClaw marks failed results with a leading `[error]` tag; the words after it are the message.
    const line = text.slice(start, end < 0 ? text.length : end).trim().replace(/^\[(?:error|stderr|stdout)\]\s*/i, '');
    if (/[\p{L}\p{N}]/u.test(line) && !FRAME_LINES.some((frame) => frame.test(line))) return line;
    if (end < 0) break;
    start = end + 1;
  }
  return '';
}

/** An exit code stated in the output text, for providers that give none structurally (`exit code: 101`). */
function scrapeExitCode(result: string): number | null {
  // Wrappers state it first (`Process exited with code 2`), shells last (`exit code: 101`): look at both ends.
  const ends = result.length > SCAN_LIMIT * 2 ? [result.slice(0, SCAN_LIMIT), result.slice(-SCAN_LIMIT)] : [result];
  for (const text of ends) {
    const match = /\bexit(?:ed)?(?: with)?(?: status| code)?[ \t:=]+(-?\d{1,5})\b/i.exec(text);
    if (match) return Number(match[1]);
  }
  return null;
}

/** The status word shown when there is no exit code: failures and interruptions read as such, success as nothing. */
function describeStatus(status: string | null): string | null {
  const word = (status ?? '').trim().toLowerCase();
  if (FAILED_STATUSES.has(word)) return 'error';
  if (INTERRUPTED_STATUSES.has(word)) return 'interrupted';
  return null;
}

/** Collapse whitespace and cut to `max` code points with a trailing `…`. */
function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length <= max ? flat : `${chars.slice(0, Math.max(0, max - 1)).join('').trimEnd()}…`;
}

/**
 * `exit 0 in 14.8 s: ✓ test/invoice.test.ts`, `exit 1: Error: …`, `error: permission denied`, `interrupted`,
 * `in 2.1 s: done`, or just the first meaningful line; `(no result)` for a call that never answered.
 * `max` bounds the whole phrase.
 */
export function summarizeOutcome(outcome: ToolOutcome, max = 80): string {
  const scraped = outcome.exitCode === null && outcome.result !== null ? scrapeExitCode(outcome.result) : null;
  // A result tagged `[error]` (how Claude Code and OpenClaw results marked is_error read once cleaned) failed,
  // even when the adapter stated no status.
  const tagged = outcome.status === null && outcome.result !== null && /^\s*\[error\]/i.test(outcome.result.slice(0, 64));
  const head = describeOutcomeHead({ ...outcome, exitCode: outcome.exitCode ?? scraped, status: tagged ? 'error' : outcome.status });
  const line = outcome.result === null ? '' : findMeaningfulLine(outcome.result);
  if (head === null) {
    if (outcome.result === null) return '(no result)';
    if (line !== '') return clip(line, max);
    return /\S/.test(outcome.result) ? clip(outcome.result.slice(0, max * 8), max) : '(empty result)';
  }
  return clip(line === '' ? head : `${head}: ${line}`, max);
}

/**
 * The stated part only — `exit 1 in 3.2 s`, `error`, `interrupted`, `in 850 ms` — or null when the provider
 * stated nothing. Tool Activity puts it before the full result, which already carries any exit code it printed.
 */
export function describeOutcomeHead(outcome: Pick<ToolOutcome, 'exitCode' | 'durationMs' | 'status'>): string | null {
  const head: string[] = [];
  if (outcome.exitCode !== null) head.push(`exit ${outcome.exitCode}`);
  else {
    const status = describeStatus(outcome.status);
    if (status) head.push(status);
  }
  if (outcome.durationMs !== null && outcome.durationMs >= 0) head.push(`in ${formatDuration(outcome.durationMs)}`);
  return head.length > 0 ? head.join(' ') : null;
}
