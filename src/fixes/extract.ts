import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Entry } from '../model.js';
import type { Namespace } from '../records/envelope.js';
import { findChoiceSentences } from '../normalize/decisions.js';
import { extractErrorSignatures, normalizeErrorSignature } from './signature.js';
import type { FixEvent } from '../records/fixes.js';

/** Tools that run a command (Claude Code, Codex, OpenClaw). */
const EXEC_TOOLS = new Set(['bash', 'shell', 'exec_command', 'local_shell', 'container.exec', 'exec', 'run_command', 'shell_command', 'execute_command']);
/** Tools that change files. */
const EDIT_TOOLS = new Set(['edit', 'multiedit', 'write', 'notebookedit', 'apply_patch', 'str_replace_based_edit_tool', 'write_file', 'edit_file', 'create_file']);
const FAILED_STATUSES = new Set(['error', 'failed', 'failure']);
/** Calls that ended without an outcome: neither a failure nor a pass. */
const UNFINISHED_STATUSES = new Set(['interrupted', 'cancelled', 'canceled', 'aborted', 'timeout', 'timed_out', 'running', 'pending']);
/** "fixed by …", "resolved it with …", "the fix was …": an assertion that something fixed the error. */
const CLAIM = /\b(fixed|resolved|solved)\b[^.\n]{0,40}?\b(by|with|via|in)\b|\bthe fix (was|is)\b/i;
const COMMIT_OUTPUT = /^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\]/gm;
const LOG_LINE = /^(?:commit )?([0-9a-f]{7,40})\b/gm;
/** Sub-indices 6–9 of an entry's seq hold its decisions; a session keeps its first 50. */
const DECISIONS_PER_MESSAGE = 4;
const MAX_DECISIONS_PER_SESSION = 50;
const SHA = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g;

/**
 * One session's fix facts, in order. Reads only the entries, plus the current content of the files its edits
 * touched (their hash is what staleness compares against later). `hashFile` is replaceable for tests.
 */
export function extractFixEvents(
  sessionId: string,
  cwd: string | null,
  namespace: Namespace,
  entries: readonly Entry[],
  hashFile: (path: string) => string | null = hashFileOnDisk,
): FixEvent[] {
  const events: FixEvent[] = [];
  const seen = new Set<string>();
  let decisions = 0;
  const base = (entry: Entry, sub: number): Omit<FixEvent, 'kind'> => ({
    sessionId,
    namespace: namespace.namespace_id,
    repo: namespace.repo,
    seq: entry.seq * 10 + sub,
    ts: entry.ts,
    signature: null,
    target: null,
    messageId: entry.id,
    files: [],
    fileHashes: {},
    commits: [],
    text: null,
  });
  for (const entry of entries) {
    const tool = entry.toolName?.toLowerCase() ?? null;
    const status = entry.status?.toLowerCase() ?? '';
    const failed = (entry.exitCode !== null && entry.exitCode !== 0) || FAILED_STATUSES.has(status);
    if (tool && EDIT_TOOLS.has(tool)) {
      // An edit that failed (old_string not found, permission denied) changed nothing.
      if (failed || UNFINISHED_STATUSES.has(status)) continue;
      const files = editedFiles(entry).map((file) => (cwd && !isAbsolute(file) ? resolve(cwd, file) : file));
      if (files.length > 0) {
        const fileHashes = Object.fromEntries(files.map((file) => [file, hashFile(file)]));
        events.push({ ...base(entry, 0), kind: 'edit', files, fileHashes });
      }
      continue;
    }
    if (tool && EXEC_TOOLS.has(tool)) {
      const command = entry.toolTarget ?? entry.text;
      const target = normalizeTarget(command);
      if (failed) {
        const output = entry.result ?? '';
        const signatures = extractErrorSignatures(output);
        if (signatures.length === 0) signatures.push(`command failed: ${normalizeErrorSignature(target)}`);
        signatures.forEach((signature, index) => {
          seen.add(signature);
          events.push({ ...base(entry, index), kind: 'error', signature, target, text: firstErrorLine(output, signature) });
        });
        continue;
      }
      if (UNFINISHED_STATUSES.has(status)) continue;
      events.push({ ...base(entry, 0), kind: 'pass', target });
      const reverted = /\bgit\s+revert\b([^|;&]*)/.exec(command);
      if (reverted) {
        const commits = [...(reverted[1] ?? '').matchAll(SHA)].map((match) => match[0]!.toLowerCase());
        if (commits.length > 0) events.push({ ...base(entry, 1), kind: 'revert', commits });
      }
      const commits = commitsShown(command, entry.result ?? '');
      if (commits.length > 0) events.push({ ...base(entry, 2), kind: 'commit', commits });
      continue;
    }
    if (tool !== null || (entry.role !== 'assistant' && entry.role !== 'user') || entry.kind === 'reasoning') continue;
    // An error quoted in a message counts once per session (the agent restating its own tool's error does not).
    for (const [index, signature] of extractErrorSignatures(entry.text).slice(0, 5).entries()) {
      if (seen.has(signature)) continue;
      seen.add(signature);
      events.push({ ...base(entry, index), kind: 'error', signature, text: firstErrorLine(entry.text, signature) });
    }
    findChoiceSentences(entry.text)
      .slice(0, DECISIONS_PER_MESSAGE)
      .forEach((sentence, index) => {
        if (decisions >= MAX_DECISIONS_PER_SESSION) return;
        decisions += 1;
        const commits = [...sentence.matchAll(SHA)].map((match) => match[0]!.toLowerCase());
        events.push({ ...base(entry, 6 + index), kind: 'decision', commits, text: sentence });
      });
    if (entry.role === 'assistant') {
      const claim = CLAIM.exec(entry.text);
      if (claim) {
        const commits = [...entry.text.matchAll(SHA)].map((match) => match[0]!.toLowerCase());
        events.push({ ...base(entry, 5), kind: 'claim', commits, text: sentenceAround(entry.text, claim.index) });
      }
    }
  }
  return events;
}

/**
 * A command as a check's identity: `cd x && `, redirections and trailing output filters (`| tail -20`) dropped,
 * whitespace collapsed. `npx vitest run test/a.test.ts 2>&1 | tail -5` and `npx vitest run test/a.test.ts` are
 * the same check.
 */
export function normalizeTarget(command: string): string {
  let text = command.trim().replace(/\s+/g, ' ');
  text = text.replace(/^(cd \S+ (&&|;) )+/, '');
  text = text.replace(/(\s*\|\s*(tail|head|grep|less|cat|tee)\b[^|]*)+$/, '');
  text = text.replace(/\s*\d?>&\d\b/g, '').replace(/\s*2>\s*\/dev\/null/g, '');
  return text.trim();
}

function editedFiles(entry: Entry): string[] {
  const files = new Set<string>();
  for (const match of entry.text.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm)) files.add(match[1]!.trim());
  if (files.size === 0 && entry.toolTarget) {
    for (const part of entry.toolTarget.split(/\n|, /)) if (part.trim() !== '') files.add(part.trim());
  }
  return [...files];
}

function commitsShown(command: string, output: string): string[] {
  const found = new Set<string>();
  if (/\bgit\s+(commit|merge|cherry-pick|am|revert)\b/.test(command)) for (const match of output.matchAll(COMMIT_OUTPUT)) found.add(match[1]!.toLowerCase());
  if (/\bgit\s+(log|show|rev-parse|reflog)\b/.test(command)) for (const match of output.matchAll(LOG_LINE)) found.add(match[1]!.toLowerCase());
  return [...found];
}

function firstErrorLine(text: string, signature: string): string {
  const lines = text.split(/\r?\n/);
  const line = lines.find((candidate) => extractErrorSignatures(candidate).includes(signature)) ?? lines.find((candidate) => candidate.trim() !== '') ?? '';
  return line.trim().slice(0, 300);
}

function sentenceAround(text: string, index: number): string {
  const start = Math.max(text.lastIndexOf('\n', index), text.lastIndexOf('. ', index) + 1, 0);
  const endDot = text.indexOf('. ', index);
  const endLine = text.indexOf('\n', index);
  const ends = [endDot, endLine].filter((value) => value >= 0);
  const end = ends.length > 0 ? Math.min(...ends) + 1 : text.length;
  return text.slice(start, end).trim().slice(0, 300);
}

/** sha256 of a file's content, or null when it cannot be read. */
export function hashFileOnDisk(path: string): string | null {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return null;
  }
}
