import type { Entry } from '../model.js';
import { type PatchFile, readPatchCall } from './diff.js';
import { findLongestBacktickRun } from '../text/backticks.js';
import { ANALYSIS_SCAN_CHARS, sliceHead } from '../text/limits.js';
import { summarizeOutcome } from './outcome.js';

/**
 * Lines for `## Decisions & Outcomes`: sentences that state a decision or an outcome, plus the outcomes of
 * high-priority tool transactions (edits, writes, commands). Recall questions like "what did we decide about X"
 * or "when did we change the config" land here first.
 */

export const MAX_DECISIONS = 20;
export const MAX_DECISION_CHARS = 200;

/** A choice stated in words: what a decision record (src/fixes/decisions.ts) is made of. */
const CHOICE_PATTERNS: readonly RegExp[] = [
  /\bdecid(?:ed|e to|ing)\b/i,
  /\bdecision\b/i,
  /\blet'?s (?:go with|use|switch|stick with|keep)\b/i,
  /\bwe(?:'ll| will| should) (?:use|go with|switch|keep)\b/i,
  /\bgoing with\b/i,
  /\bswitch(?:ed|ing)? (?:to|from)\b/i,
  /\binstead of\b/i,
  /\b(?:chose|opted (?:for|to)|settled on)\b/i,
];

const DECISION_PATTERNS: readonly RegExp[] = [
  ...CHOICE_PATTERNS,
  /\b(?:fixed|resolved|confirmed|verified)\b/i,
  /\broot cause\b/i,
  /\b(?:all )?tests? (?:now )?pass(?:es|ed|ing)?\b/i,
  /\b(?:now works|works now|is working now)\b/i,
  /\b(?:merged|deployed|shipped|released)\b/i,
  /^(?:done|decision|outcome|result|conclusion|fix)\s*:/i,
];

/** The sentences of a message that state a choice (not an outcome), clipped like decision lines. */
export function findChoiceSentences(text: string): string[] {
  return splitSentences(sliceHead(text, ANALYSIS_SCAN_CHARS))
    .filter((sentence) => CHOICE_PATTERNS.some((pattern) => pattern.test(sentence)))
    .map((sentence) => clip(sentence, MAX_DECISION_CHARS));
}

/** Collapse whitespace and cut to `max` characters with a trailing `…`. Reads a bounded prefix of a huge text. */
function clip(text: string, max: number): string {
  const flat = sliceHead(text, ANALYSIS_SCAN_CHARS).replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('').trimEnd()}…`;
}

/** Sentences of a message, with list markers and heading hashes removed; fenced code is skipped. */
function splitSentences(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?(?:```|$)/g, '\n');
  return prose
    .split(/\n+/)
    .flatMap((line) => line.split(/(?<!\b(?:e\.g|i\.e|etc|vs|cf)\.)(?<=[.!?])\s+(?=\S)/i))
    .map((s) => s.replace(/^\s*(?:[-*+>]|\d+[.)]|#{1,6})\s+/, '').replace(/\*\*/g, '').trim())
    .filter((s) => s.length >= 12);
}

/** Normalized form for de-duplication: case, whitespace and trailing punctuation do not make a new decision. */
function normalizeLine(line: string): string {
  return line.toLowerCase().replace(/\s+/g, ' ').replace(/[.!?:;,\s…]+$/, '');
}

/** Inline code that survives any backticks inside the text. */
function formatCode(text: string): string {
  const longest = findLongestBacktickRun(text);
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * `exit 0: first line` when the result states an exit code, else its first meaningful line; `(no result)` for
 * a dangling call. Text only: callers holding an entry use summarizeOutcome, which prefers the stated fields.
 */
export function summarizeResult(result: string | null, max = 80): string {
  return summarizeOutcome({ result, exitCode: null, durationMs: null, status: null }, max);
}

/** A recap summarizes a whole stretch of work, so it gets more room than one sentence. */
export const MAX_RECAP_CHARS = 320;

/**
 * A recap line: the harness's summary with its own settings hint dropped (Claude Code ends away summaries
 * with "(disable recaps in /config)").
 */
const RECAP_HINT = '(disable recaps in /config)';

function describeRecap(text: string): string {
  const trimmed = sliceHead(text, ANALYSIS_SCAN_CHARS).trim();
  const body = trimmed.toLowerCase().endsWith(RECAP_HINT) ? trimmed.slice(0, -RECAP_HINT.length).trim() : trimmed;
  return body === '' ? '' : `Recap: ${clip(body, MAX_RECAP_CHARS - 7)}`;
}

function describeFiles(files: readonly PatchFile[], ops: readonly PatchFile['op'][]): string {
  const paths = files.filter((file) => ops.includes(file.op)).map((file) => file.path);
  const shown = paths.slice(0, 4).join(', ');
  return paths.length > 4 ? `${shown} +${paths.length - 4} more` : shown;
}

/** `Edited src/a.ts; wrote src/b.ts` from a rendered patch. */
function describePatchOutcome(patch: { files: PatchFile[] }): string {
  const parts = [
    ['Edited', describeFiles(patch.files, ['Update'])],
    ['Wrote', describeFiles(patch.files, ['Add'])],
    ['Deleted', describeFiles(patch.files, ['Delete'])],
  ].filter(([, files]) => files !== '');
  return parts.map(([verb, files], i) => `${i === 0 ? verb : (verb as string).toLowerCase()} ${files}`).join('; ');
}

/** The task a spawned agent was given: the call's `description:` (Claude Code) or `message:` (Codex) line. */
function describeSpawn(entry: Entry): string {
  const head = entry.text.slice(0, 4000);
  const field = /^(?:description|message|prompt):[ \t]*(\S[^\n]*)$/m.exec(head)?.[1];
  const name = /^name:[ \t]*(\S[^\n]*)$/m.exec(head)?.[1];
  const task = clip(field ?? entry.toolTarget ?? head.split('\n', 1)[0] ?? '', 100);
  return `Spawned ${name ? `agent ${clip(name, 30)}` : 'an agent'}: ${task} → ${summarizeOutcome(entry, 60)}`;
}

/** One outcome line for a tool transaction worth remembering, or null for one that is not. */
function describeToolOutcome(entry: Entry): string | null {
  const name = (entry.toolName ?? 'tool').toLowerCase();
  if (isSpawnTool(name)) return describeSpawn(entry);
  const patch = readPatchCall(entry.text);
  if (patch && patch.files.length > 0) return describePatchOutcome(patch);
  const target = sliceHead(entry.toolTarget ?? entry.text, ANALYSIS_SCAN_CHARS).replace(/\s+/g, ' ').trim();
  if (/write/.test(name) || name === 'create_file') return `Wrote ${clip(target, 150)}`;
  if (/edit|patch|replace/.test(name)) return `Edited ${clip(target, 150)}`;
  if (/delete|remove/.test(name)) return `Deleted ${clip(target, 150)}`;
  const text = sliceHead(entry.text, ANALYSIS_SCAN_CHARS);
  const call = text.trim() === '' ? target : text.replace(/\s+/g, ' ').trim();
  return `${formatCode(clip(call, 120))} → ${summarizeOutcome(entry, 60)}`;
}

/**
 * Bookkeeping is work about the work: task boards, to-do lists, tool discovery, and results that only echo
 * the call back ("Updated task #1 owner, status", `{"success":true,…}`). Decisions & Outcomes leaves it out.
 */
const BOOKKEEPING_TOOLS = new Set([
  'taskcreate', 'taskupdate', 'tasklist', 'taskget', 'taskoutput', 'taskstop', 'todowrite', 'todoread',
  'update_plan', 'toolsearch', 'sendmessage', 'write_stdin',
]);
// `^\s*` instead of trimStart(): the test reads only the start, never copies a huge text.
const BOOKKEEPING_CALL = /^\s*(?:taskId|subject|todos|plan):/i;
const BOOKKEEPING_RESULT = /^\s*(?:Updated task #\d+|Task #\d+ (?:created|updated|deleted)|Todos have been modified|\{"success":\s*true\b)/i;

function isBookkeeping(entry: Entry): boolean {
  const name = (entry.toolName ?? '').toLowerCase();
  if (BOOKKEEPING_TOOLS.has(name)) return true;
  if (BOOKKEEPING_CALL.test(entry.text)) return true;
  return entry.result !== null && BOOKKEEPING_RESULT.test(entry.result);
}

const SPAWN_NAMES = new Set(['agent', 'task', 'spawn_agent', 'spawn_agents', 'dispatch_agent', 'create_agent', 'new_task']);
function isSpawnTool(name: string): boolean {
  return SPAWN_NAMES.has(name);
}

/** Test runners at the start of a command segment (`cd web && npm test`, `CI=1 pnpm vitest run`). */
const TEST_COMMAND =
  /^(?:(?:npm|pnpm|yarn|bun)(?: run)? test\b|(?:npx |pnpm |yarn |bunx )?(?:vitest|jest|mocha|playwright test|ava|tap)\b|(?:python3? -m )?pytest\b|(?:uv|poetry) run pytest\b|cargo (?:test|nextest)\b|go test\b|make (?:test|check)\b|deno test\b|dotnet test\b|mvn test\b|(?:\.\/)?gradlew? test\b|(?:bundle exec )?rspec\b|phpunit\b|tox\b)/;

/** True when a shell call runs a test suite: a test run is an outcome even though it changes nothing. */
export function isTestRun(command: string): boolean {
  return command
    .slice(0, 1000)
    .split(/&&|\|\||;|\n/)
    .some((segment) => TEST_COMMAND.test(segment.trim().replace(/^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+/, '')));
}

/** Whether a tool transaction belongs in Decisions & Outcomes: changes, hand-offs and test runs that answered. */
function isToolOutcome(entry: Entry): boolean {
  if (entry.role !== 'tool' || isBookkeeping(entry)) return false;
  // A dangling call (no result, no stated exit) has no outcome to report.
  if (entry.result === null && entry.exitCode === null && entry.status === null) return false;
  if (entry.priority === 'high') return true;
  // Only a command runs tests: a web search for "vitest fake timers" is not a test run.
  if (!SHELL_NAMES.test(entry.toolName ?? '')) return false;
  return isTestRun(entry.toolTarget ?? entry.text) || isTestRun(entry.text);
}

const SHELL_NAMES = /^(?:bash|shell|sh|zsh|exec|exec_command|local_shell|run_command|run_terminal_cmd|shell_command|execute_command|terminal)$/i;

/** Keep order when the list is over the cap: recaps, then stated decisions, then tool outcomes. */
type Rank = 0 | 1 | 2;

/**
 * Decision and outcome lines in session order, de-duplicated, at most MAX_DECISIONS. Recaps (the harness's own
 * summary of what happened) and stated decisions win over tool outcomes when over the cap: tool activity has
 * its own section. Reasoning is the model thinking aloud, not a decision, and is never quoted.
 */
export function extractDecisions(entries: readonly Entry[]): string[] {
  const ordered = [...entries].sort((a, b) => a.seq - b.seq || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const candidates: { order: number; line: string; rank: Rank }[] = [];
  const seen = new Set<string>();
  const add = (line: string, rank: Rank): void => {
    const clipped = rank === 0 ? line : clip(line, MAX_DECISION_CHARS);
    const key = normalizeLine(clipped);
    if (key === '' || seen.has(key)) return;
    seen.add(key);
    candidates.push({ order: candidates.length, line: clipped, rank });
  };
  for (const entry of ordered) {
    if (entry.kind === 'recap') add(describeRecap(entry.text), 0);
    else if (entry.kind === 'reasoning') continue;
    else if (entry.role === 'user' || entry.role === 'assistant') {
      for (const sentence of splitSentences(sliceHead(entry.text, ANALYSIS_SCAN_CHARS))) {
        if (DECISION_PATTERNS.some((p) => p.test(sentence))) add(sentence, 1);
      }
    } else if (isToolOutcome(entry)) {
      const line = describeToolOutcome(entry);
      if (line !== null) add(line, 2);
    }
  }
  const kept = [...candidates].sort((a, b) => a.rank - b.rank || a.order - b.order).slice(0, MAX_DECISIONS);
  return kept.sort((a, b) => a.order - b.order).map((c) => c.line);
}
