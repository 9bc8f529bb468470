import type { Entry } from '../model.js';
import { QUOTE_SCAN_CHARS, sliceHead } from '../text/limits.js';

/**
 * Recall contamination (seed 002 stage 3, and its known issue). When an agent recalls memory inside a session,
 * the recalled text lands in that session's transcript; indexing it again would let old results echo back as
 * if they were new work. Seed 002 drops every message before the recall — which also drops valuable, unrelated
 * earlier work. Here only the recall itself is dropped: the recall call and its output, pasted recall output,
 * the "let me search memory" announcement, and later messages that quote the output verbatim.
 */

/** A tool call that runs a memory recall (moon's own CLI, MCP tool names, the seed-002 search script). */
const RECALL_COMMAND = /\bmoon\s+(?:recall|search)\b|(?<![a-z])(?:memory[ _-]?(?:search|recall)|moon_recall|recall_memory)(?![a-z])/i;

/**
 * Seed 002 §3.1 phrases. "I'll search" alone is what a coding agent says before grepping a codebase, so it only
 * counts when memory, past sessions or history is what is searched.
 */
const RECALL_PHRASES: readonly RegExp[] = [
  /\bI['’]ll search (?:my |the |our )?(?:memory|memories|past sessions|previous sessions|earlier sessions|history)\b/i,
  /\bmemory search\b/i,
  /\bmemory recall\b/i,
  /\bDid you remember\b.{0,200}\btalked about\b/is,
  /\bgo back to a memory\b/i,
];

/** Output moon itself prints: RecallResult JSON, or the human format's header lines. */
const RECALL_OUTPUT_SHAPES: readonly RegExp[] = [
  /"generated_at_epoch_secs"\s*:/,
  /^[^\n|]{1,200} \| [^\n|]{1,200} \| \d+ matches \| [^\n|]{1,40} \| score [\d.]+(?: \| [^\n|]{1,60})?$/m,
];

const ARCHIVE_LINE_START = '→ ';
const ARCHIVE_FOLDER = 'archives/mlib/';

/**
 * A line `→ <path>/archives/mlib/<name>.md`, the human format's archive line. Checked by hand: the regex
 * `^→ \S*archives\/mlib\/\S+\.md$` backtracks to every occurrence of the folder name in a long token.
 */
function hasArchiveLine(text: string): boolean {
  const terminator = /[\n\r\u2028\u2029]/g;
  let start = 0;
  while (start <= text.length) {
    terminator.lastIndex = start;
    const end = terminator.exec(text)?.index ?? text.length;
    if (text.startsWith(ARCHIVE_LINE_START, start) && isArchivePath(text.slice(start + ARCHIVE_LINE_START.length, end))) return true;
    start = end + 1;
  }
  return false;
}

function isArchivePath(path: string): boolean {
  if (!path.endsWith('.md') || /\s/.test(path)) return false;
  const folder = path.indexOf(ARCHIVE_FOLDER);
  // At least one character of file name between the folder and `.md`.
  return folder >= 0 && folder + ARCHIVE_FOLDER.length < path.length - '.md'.length;
}

/** Words in a verbatim span that counts as quoting recall output. */
const QUOTE_WORDS = 12;

export type ContaminationReason = 'recall-call' | 'recall-output' | 'recall-announcement' | 'recall-quote';

export function classifyRecallEvent(entry: Pick<Entry, 'role' | 'text' | 'toolName' | 'result'>): ContaminationReason | null {
  if (entry.role === 'tool') {
    if (RECALL_COMMAND.test(entry.text) || (entry.toolName !== null && RECALL_COMMAND.test(entry.toolName))) return 'recall-call';
    return entry.result !== null && looksLikeRecallOutput(entry.result) ? 'recall-output' : null;
  }
  if (looksLikeRecallOutput(entry.text)) return 'recall-output';
  return RECALL_PHRASES.some((pattern) => pattern.test(entry.text)) ? 'recall-announcement' : null;
}

export function looksLikeRecallOutput(text: string): boolean {
  return RECALL_OUTPUT_SHAPES.some((pattern) => pattern.test(text)) || hasArchiveLine(text);
}

/**
 * Mark the entries of one chunk that are recall events or quote recalled text. Entries are in session order;
 * a quote can only follow the output it quotes.
 */
export function findContaminated(entries: readonly Entry[]): Map<Entry, ContaminationReason> {
  const contaminated = new Map<Entry, ContaminationReason>();
  const recalled = new Set<string>();
  for (const entry of entries) {
    const reason = classifyRecallEvent(entry);
    if (reason) {
      contaminated.set(entry, reason);
      for (const shingle of shingles(readQuotable(entry))) recalled.add(shingle);
      continue;
    }
    if (recalled.size > 0 && quotesRecalled(readQuotable(entry), recalled)) {
      contaminated.set(entry, 'recall-quote');
    }
  }
  return contaminated;
}

/** The start of an entry's text and result: recall output is a few kilobytes, and a quote of it sits near the top. */
function readQuotable(entry: Pick<Entry, 'text' | 'result'>): string {
  return `${sliceHead(entry.text, QUOTE_SCAN_CHARS)}\n${sliceHead(entry.result ?? '', QUOTE_SCAN_CHARS)}`;
}

function quotesRecalled(text: string, recalled: Set<string>): boolean {
  for (const shingle of shingles(text)) if (recalled.has(shingle)) return true;
  return false;
}

function* shingles(text: string): Generator<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_./-]+/gu) ?? [];
  for (let index = 0; index + QUOTE_WORDS <= words.length; index += 1) {
    yield words.slice(index, index + QUOTE_WORDS).join(' ');
  }
}
