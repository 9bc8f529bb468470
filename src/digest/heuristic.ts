import type { Entry } from '../model.js';
import type { StoredSession } from '../store/types.js';
import { findCommits, findPullRequests } from './evidence.js';
import type { DigestBody, DigestChange, DigestLine, DigestOutcome } from '../records/digests.js';

/**
 * The heuristic digest: moon's own rules over a session's stored entries — no network, the same input always
 * gives the same digest. Every line carries the ids of the entries it was read from.
 */

const COMMAND_TOOLS = /^(bash|shell|exec_command|local_shell|exec|run_terminal_cmd|terminal)$/i;
const FILE_TOOLS = /^(write|edit|multiedit|notebookedit|apply_patch|write_file|edit_file|create_file|str_replace_based_edit_tool|str_replace_editor)$/i;
const DECISION = /\b(decided|decision|going with|chose|choose to|instead of|switch(?:ed)? to|we(?:'ll| will) use|i(?:'ll| will) use|opted)\b/i;
const NEXT_STEP = /\b(todo|next steps?|follow[- ]up|still needs?|remaining work|left to do|not yet done|should also)\b/i;
const FAILURE_TEXT = /^(?:error|fatal|FAIL)\b|npm ERR!|Traceback \(most recent call last\)|\b[1-9]\d* (?:failed|failing)\b|command not found/m;

const LIMITS = { line: 360, changes: 30, decisions: 6, gotchas: 8, nextSteps: 6 };

export interface HeuristicInput {
  /** Only the title and id are read. */
  session: Pick<StoredSession, 'id' | 'title'>;
  entries: readonly Entry[];
}

export function buildHeuristicDigest(input: HeuristicInput): { title: string; body: DigestBody } {
  const entries = input.entries.filter((entry) => !entry.sidechain);
  const intent = readIntent(entries);
  const { changes, steps } = readChanges(entries);
  const gotchas = readGotchas(steps);
  const body: DigestBody = {
    intent,
    outcome: readOutcome(entries, changes),
    changes: changes.map((change) => change.line),
    decisions: collectSentences(entries, 'assistant', DECISION, LIMITS.decisions),
    gotchas,
    next_steps: collectSentences(entries.slice(-Math.max(20, Math.floor(entries.length / 3))), null, NEXT_STEP, LIMITS.nextSteps),
  };
  const title = input.session.title ?? intent?.text ?? `session ${input.session.id}`;
  return { title: clip(title, 120), body };
}

/** Shell steps that look or set up rather than check: sharing one of these does not make two commands the same check. */
const TRIVIAL_STEP = /^(cd|ls|cat|echo|printf|chmod|mkdir|pwd|true|sed -n|head|tail|grep|rg|clear|export|source|\.)\b/;

/** The steps of a shell command (split on `&&`, `||`, `;`, `|`), without leading `VAR=value` assignments. */
function commandSteps(command: string): string[] {
  return command
    .split(/&&|\|\||;|\|/)
    .map((step) => step.trim().replace(/^(?:\w+=\S*\s+)+/, '').replace(/\s+/g, ' '))
    .filter((step) => step !== '' && !TRIVIAL_STEP.test(step));
}

/**
 * Whether a later command re-runs an earlier one's check: the same command, or one sharing a step that is not
 * mere setup (`chmod +x s.sh && ./s.sh` failing, then `./s.sh && rclone ls …` passing).
 */
export function sameCheck(failed: string, later: string): boolean {
  if (failed.trim() === later.trim()) return true;
  const steps = new Set(commandSteps(failed));
  return commandSteps(later).some((step) => steps.has(step));
}

/** A line with its evidence: the entries' ids and every commit or PR their texts name. */
export function lineFrom(text: string, sources: readonly Entry[]): DigestLine {
  const evidence = sources.map((entry) => `${entry.text}\n${entry.result ?? ''}`).join('\n');
  return {
    text: clip(text, LIMITS.line),
    message_ids: [...new Set(sources.map((entry) => entry.id))],
    commits: findCommits(evidence),
    prs: findPullRequests(evidence),
  };
}

function readIntent(entries: readonly Entry[]): DigestLine | null {
  const first = entries.find((entry) => entry.role === 'user' && !entry.toolName && entry.text.trim() !== '');
  return first ? lineFrom(firstSentence(first.text), [first]) : null;
}

interface ReadChange {
  line: DigestChange;
  entry: Entry;
}

export function isCommand(entry: Entry): boolean {
  return entry.role === 'tool' && entry.toolName !== null && COMMAND_TOOLS.test(entry.toolName);
}

export function isFileWrite(entry: Entry): boolean {
  return entry.role === 'tool' && entry.toolName !== null && FILE_TOOLS.test(entry.toolName);
}

/** How a tool call ended: its exit code or status when stated, else what its output says. */
export function callStatus(entry: Entry): 'ok' | 'failed' | 'unknown' {
  if (entry.exitCode !== null) return entry.exitCode === 0 ? 'ok' : 'failed';
  if (entry.status && /^(error|failed|failure|interrupted|cancelled)$/i.test(entry.status)) return 'failed';
  const result = entry.result;
  if (result === null) return entry.status ? 'ok' : 'unknown';
  if (result.startsWith('[error]') || /^Exit code [1-9]\d*/.test(result.trimStart()) || FAILURE_TEXT.test(result)) return 'failed';
  return 'ok';
}

/**
 * `changes`: what the digest lists — one line per file written (later edits add their ids), one per command run
 * (the last LIMITS.changes). `steps`: every edit and command in the order they ran, for finding fixes.
 */
function readChanges(entries: readonly Entry[]): { changes: ReadChange[]; steps: ReadChange[] } {
  const changes: ReadChange[] = [];
  const steps: ReadChange[] = [];
  const files = new Map<string, ReadChange>();
  for (const entry of entries) {
    if (isFileWrite(entry)) {
      const target = entry.toolTarget ?? entry.text;
      steps.push({ entry, line: { ...lineFrom(`${entry.toolName} ${target}`, [entry]), kind: 'file', target, status: callStatus(entry) } });
      const known = files.get(target);
      if (known) {
        // One line per file: later edits add their evidence.
        known.line.message_ids = [...new Set([...known.line.message_ids, entry.id])];
        known.line.text = `${entry.toolName} ${target} (${known.line.message_ids.length} edits)`;
        continue;
      }
      const status = callStatus(entry);
      const change: ReadChange = { entry, line: { ...lineFrom(`${entry.toolName} ${target}`, [entry]), kind: 'file', target, status } };
      files.set(target, change);
      changes.push(change);
    } else if (isCommand(entry)) {
      const target = entry.toolTarget ?? entry.text;
      const status = callStatus(entry);
      const result = status === 'failed' ? `failed${entry.exitCode !== null ? ` (exit ${entry.exitCode})` : ''}: ${firstLine(errorLine(entry.result ?? ''))}` : status === 'ok' ? 'ok' : 'no result';
      const change: ReadChange = { entry, line: { ...lineFrom(`\`${clip(target, 120)}\` → ${result}`, [entry]), kind: 'command', target, status } };
      changes.push(change);
      steps.push(change);
    }
  }
  return { changes: changes.slice(-LIMITS.changes), steps };
}

/**
 * Each failing command, and — when the same command later passed — the edits between the two: the fix. A failure
 * never followed by a pass is a gotcha left open.
 */
function readGotchas(changes: readonly ReadChange[]): DigestLine[] {
  const gotchas: DigestLine[] = [];
  const seen = new Set<string>();
  changes.forEach((change, index) => {
    if (change.line.kind !== 'command' || change.line.status !== 'failed' || seen.has(change.line.target)) return;
    seen.add(change.line.target);
    // Both bounded, so the fix still fits on the line.
    const error = clip(firstLine(errorLine(change.entry.result ?? '')), 110) || 'failed';
    const later = changes.slice(index + 1);
    const pass = later.find((next) => next.line.kind === 'command' && next.line.status === 'ok' && sameCheck(change.line.target, next.line.target));
    const command = `\`${clip(change.line.target, 80)}\``;
    if (!pass) {
      gotchas.push(lineFrom(`${command} failed: ${error} (not seen passing afterwards)`, [change.entry]));
      return;
    }
    const edits = later.slice(0, later.indexOf(pass)).filter((next) => next.line.kind === 'file');
    const fix = edits.length > 0 ? `fixed by editing ${[...new Set(edits.map((edit) => edit.line.target))].slice(0, 4).join(', ')}` : 'passed on a re-run';
    gotchas.push(lineFrom(`${command} failed: ${error}; ${fix}; the re-run passed`, [change.entry, ...edits.map((edit) => edit.entry), pass.entry]));
  });
  return gotchas.slice(0, LIMITS.gotchas);
}

function readOutcome(entries: readonly Entry[], changes: readonly ReadChange[]): DigestOutcome {
  const lastAssistant = [...entries].reverse().find((entry) => entry.role === 'assistant' && entry.kind !== 'reasoning' && entry.text.trim() !== '');
  const commands = changes.filter((change) => change.line.kind === 'command' && change.line.status !== 'unknown');
  const last = commands[commands.length - 1];
  const status: DigestOutcome['status'] = !last ? 'unknown' : last.line.status === 'ok' ? 'succeeded' : 'failed';
  const sources = [...(last ? [last.entry] : []), ...(lastAssistant ? [lastAssistant] : [])];
  const said = lastAssistant ? firstSentence(lastAssistant.text) : null;
  const ran = last ? `last command \`${clip(last.line.target, 80)}\` ${last.line.status === 'ok' ? 'passed' : 'failed'}` : 'no command results';
  return { ...lineFrom(said ? `${said} (${ran})` : ran, sources), status };
}

/** Sentences of one role's turns that match `pattern`, in order, without repeats. */
function collectSentences(entries: readonly Entry[], role: 'assistant' | null, pattern: RegExp, limit: number): DigestLine[] {
  const lines: DigestLine[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    if (entry.toolName || entry.kind === 'reasoning' || (role ? entry.role !== role : entry.role !== 'assistant' && entry.role !== 'user')) continue;
    for (const sentence of sentences(entry.text)) {
      if (!pattern.test(sentence)) continue;
      const key = sentence.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      lines.push(lineFrom(sentence, [entry]));
      if (lines.length >= limit) return lines;
    }
  }
  return lines;
}

function sentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+(?=[A-Z`])/)
    .map((part) => part.replace(/^[-*\d.)\s]+/, '').trim())
    .filter((part) => part.length >= 8);
}

function firstSentence(text: string): string {
  return sentences(text)[0] ?? text.trim();
}

/** The line of an output most likely to name the error. */
function errorLine(result: string): string {
  const lines = result.replace(/^\[error\]\s*/, '').split('\n').map((line) => line.trim()).filter((line) => line !== '' && !/^Exit code -?\d+$/.test(line));
  return (
    lines.find((line) => /\b[A-Z]\w*(?:Error|Exception)\b|^error(?:\[\w+\])?:|\berror TS\d+|npm ERR!|command not found/.test(line)) ??
    lines.find((line) => /error|fail|exception|cannot|not found|denied|expected/i.test(line)) ??
    lines[0] ??
    ''
  );
}

function firstLine(text: string): string {
  return clip(text.split('\n')[0] ?? '', 160);
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
