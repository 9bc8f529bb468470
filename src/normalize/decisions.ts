import type { Entry } from '../model.js';

/**
 * Lines for `## Decisions & Outcomes`: sentences that state a decision or an outcome, plus the outcomes of
 * high-priority tool transactions (edits, writes, commands). Recall questions like "what did we decide about X"
 * or "when did we change the config" land here first.
 */

export const MAX_DECISIONS = 20;
export const MAX_DECISION_CHARS = 200;

const DECISION_PATTERNS: readonly RegExp[] = [
  /\bdecid(?:ed|e to|ing)\b/i,
  /\bdecision\b/i,
  /\blet'?s (?:go with|use|switch|stick with|keep)\b/i,
  /\bwe(?:'ll| will| should) (?:use|go with|switch|keep)\b/i,
  /\bgoing with\b/i,
  /\bswitch(?:ed|ing)? (?:to|from)\b/i,
  /\binstead of\b/i,
  /\b(?:chose|opted (?:for|to)|settled on)\b/i,
  /\b(?:fixed|resolved|confirmed|verified)\b/i,
  /\broot cause\b/i,
  /\b(?:all )?tests? (?:now )?pass(?:es|ed|ing)?\b/i,
  /\b(?:now works|works now|is working now)\b/i,
  /\b(?:merged|deployed|shipped|released)\b/i,
  /^(?:done|decision|outcome|result|conclusion|fix)\s*:/i,
];

/** Collapse whitespace and cut to `max` characters with a trailing `…`. */
function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
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
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** `exit 0` when the result states an exit code, else its first line; `(no result)` for a dangling call. */
export function summarizeResult(result: string | null, max = 80): string {
  if (result === null || result.trim() === '') return '(no result)';
  const exit = /\bexit(?:ed)?(?: with)?(?: status| code)?[\s:=]+(-?\d+)/i.exec(result);
  if (exit) return `exit ${exit[1]}`;
  const firstLine = result.split('\n').find((l) => l.trim() !== '') ?? '';
  return clip(firstLine, max);
}

/** One outcome line for a high-priority tool transaction. */
function describeToolOutcome(entry: Entry): string {
  const name = (entry.toolName ?? 'tool').toLowerCase();
  const target = (entry.toolTarget ?? entry.text).replace(/\s+/g, ' ').trim();
  if (/write|create/.test(name)) return `Wrote ${clip(target, 150)}`;
  if (/edit|patch|replace|apply/.test(name)) return `Edited ${clip(target, 150)}`;
  if (/delete|remove/.test(name)) return `Deleted ${clip(target, 150)}`;
  return `${formatCode(clip(target, 120))} → ${summarizeResult(entry.result, 60)}`;
}

/**
 * Decision and outcome lines in session order, de-duplicated, at most MAX_DECISIONS of MAX_DECISION_CHARS each.
 * When over the cap, stated decisions win over tool outcomes: tool activity has its own section.
 */
export function extractDecisions(entries: readonly Entry[]): string[] {
  const ordered = [...entries].sort((a, b) => a.seq - b.seq || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const candidates: { order: number; line: string; stated: boolean }[] = [];
  const seen = new Set<string>();
  const add = (line: string, stated: boolean): void => {
    const clipped = clip(line, MAX_DECISION_CHARS);
    const key = normalizeLine(clipped);
    if (key === '' || seen.has(key)) return;
    seen.add(key);
    candidates.push({ order: candidates.length, line: clipped, stated });
  };
  for (const entry of ordered) {
    if (entry.role === 'user' || entry.role === 'assistant') {
      for (const sentence of splitSentences(entry.text)) {
        if (DECISION_PATTERNS.some((p) => p.test(sentence))) add(sentence, true);
      }
    } else if (entry.role === 'tool' && entry.priority === 'high' && entry.result !== null) {
      // A dangling call (no result) has no outcome to report.
      add(describeToolOutcome(entry), false);
    }
  }
  const stated = candidates.filter((c) => c.stated);
  const kept = [...stated.slice(0, MAX_DECISIONS), ...candidates.filter((c) => !c.stated)].slice(0, MAX_DECISIONS);
  return kept.sort((a, b) => a.order - b.order).map((c) => c.line);
}
