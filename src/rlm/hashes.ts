import { createHash, hash as digestOnce } from 'node:crypto';
import type { ParsedPrompt } from '../sources/puffin-history.js';

/**
 * Content hashes for change detection (seed 004 §5): SHA-256, hex. A prompt's hash covers its id, its text and
 * its response's text with whitespace runs folded to one space and the ends trimmed, so a re-save that only
 * re-indents or re-wraps does not count as a change. Segments, branches and the whole history hash the hashes
 * of what they hold, in order.
 */
const SEPARATOR = '\u0000';

/**
 * Runs of whitespace to one space, trimmed. Only what differs from a single plain space is replaced — a run of
 * two or more, or one tab, newline or other space character — so ordinary prose is scanned, not rebuilt (six
 * times faster than replacing every run on a 100k-prompt history).
 */
export function normalizeWhitespace(text: string): string {
  // Most texts need no replacing at all: two quick scans say so before the replacing one.
  if (!text.includes('  ') && !OTHER_SPACE.test(text)) return text.trim();
  return text.replace(/\s{2,}|[^\S ]/g, ' ').trim();
}

/** Whitespace other than a plain space. */
const OTHER_SPACE = /[^\S ]/;

export function hashText(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function hashPrompt(prompt: Pick<ParsedPrompt, 'id' | 'content' | 'response'>): string {
  // A null response and an empty one differ: the first is still awaited.
  const response = prompt.response === null ? '\u0001' : normalizeWhitespace(prompt.response.content);
  // One digest of the three joined: the same bytes as three updates, without a Hash object per prompt (100k of
  // them cost a third of the hashing time and garbage collection besides).
  return digestOnce('sha256', `${prompt.id}${SEPARATOR}${normalizeWhitespace(prompt.content)}${SEPARATOR}${response}`, 'hex');
}

/** A list of hashes under a label (a branch id, a segment's branch), in order: one digest of them joined. */
export function hashList(label: string, hashes: readonly string[]): string {
  return digestOnce('sha256', hashes.length === 0 ? label : `${label}${SEPARATOR}${hashes.join(SEPARATOR)}`, 'hex');
}

/** A segment: its branch, then the hashes of its overlap (context) prompts, then of its own prompts. */
export function hashSegment(branchId: string, overlapHashes: readonly string[], promptHashes: readonly string[]): string {
  return hashList(`segment${SEPARATOR}${branchId}`, [...overlapHashes, '|', ...promptHashes]);
}

export function hashBranch(branchId: string, promptHashes: readonly string[]): string {
  return hashList(`branch${SEPARATOR}${branchId}`, promptHashes);
}

/** The whole history: its branches' hashes in display order. */
export function hashHistory(branchHashes: readonly string[]): string {
  return hashList('history', branchHashes);
}

export interface PromptChanges {
  added: string[];
  modified: string[];
  removed: string[];
}

/** Prompt ids added, modified (same id, another hash) and removed between two id → hash maps. */
export function detectChanges(oldHashes: ReadonlyMap<string, string>, newHashes: ReadonlyMap<string, string>): PromptChanges {
  const added: string[] = [];
  const modified: string[] = [];
  const removed: string[] = [];
  for (const [id, hash] of newHashes) {
    const old = oldHashes.get(id);
    if (old === undefined) added.push(id);
    else if (old !== hash) modified.push(id);
  }
  for (const id of oldHashes.keys()) if (!newHashes.has(id)) removed.push(id);
  return { added, modified, removed };
}
