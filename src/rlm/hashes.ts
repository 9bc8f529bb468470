import { createHash } from 'node:crypto';
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
  return text.replace(/\s{2,}|[^\S ]/g, ' ').trim();
}

export function hashText(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function hashPrompt(prompt: Pick<ParsedPrompt, 'id' | 'content' | 'response'>): string {
  const hash = createHash('sha256');
  hash.update(prompt.id, 'utf8');
  hash.update(SEPARATOR);
  hash.update(normalizeWhitespace(prompt.content), 'utf8');
  hash.update(SEPARATOR);
  // A null response and an empty one differ: the first is still awaited.
  hash.update(prompt.response === null ? '\u0001' : normalizeWhitespace(prompt.response.content), 'utf8');
  return hash.digest('hex');
}

/** A list of hashes under a label (a branch id, a segment's branch), in order. */
export function hashList(label: string, hashes: readonly string[]): string {
  const hash = createHash('sha256');
  hash.update(label, 'utf8');
  for (const item of hashes) {
    hash.update(SEPARATOR);
    hash.update(item, 'utf8');
  }
  return hash.digest('hex');
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
