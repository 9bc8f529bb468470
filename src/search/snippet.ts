import { makeSafeText } from '../inject/safe-text.js';
import { selectIndexedText } from '../text/limits.js';

/**
 * Excerpts that are safe to paste into an agent's context (seed 001: "safe to inject"): bounded length,
 * control characters removed, whitespace flattened, and anything shaped like markup tags (tool-call XML,
 * system reminders) defanged so it cannot be read as an instruction block.
 */
export function makeSnippet(text: string, terms: readonly string[], maxChars: number): string {
  if (text.length > WHOLE_TEXT_CHARS) return makeWindowSnippet(text, terms, maxChars);
  return cutSnippet(neutralizeText(text), terms, maxChars, false, false);
}

/** Texts up to this long are neutralized whole; longer ones only around their first match. */
const WHOLE_TEXT_CHARS = 64 * 1024;

/**
 * A huge text (a pasted log, a megabyte of tool output): the first match is looked for in the part the index
 * holds, and only a window around it is neutralized, so a snippet costs the same for 100 KB or 32 MB.
 */
function makeWindowSnippet(text: string, terms: readonly string[], maxChars: number): string {
  const indexed = selectIndexedText(text);
  const at = findFirstMatch(indexed, terms);
  // Generous on both sides: whitespace runs collapse, so the raw window must be wider than the snippet.
  const start = Math.max(0, at - maxChars * 4);
  const end = Math.min(indexed.length, at + maxChars * 8);
  const window = neutralizeText(indexed.slice(start, end));
  return cutSnippet(window, terms, maxChars, start > 0, end < text.length);
}

/** Cut `maxChars` around the first match, on word boundaries where one is near; `…` marks every cut. */
function cutSnippet(flat: string, terms: readonly string[], maxChars: number, cutBefore: boolean, cutAfter: boolean): string {
  if (flat.length <= maxChars) return `${cutBefore ? '…' : ''}${flat}${cutAfter ? '…' : ''}`;
  const at = findFirstMatch(flat, terms);
  const before = Math.floor(maxChars / 3);
  let start = Math.max(0, at - before);
  const end = Math.min(flat.length, start + maxChars);
  start = Math.max(0, end - maxChars);
  // Cut on word boundaries where one is near, so snippets do not start mid-word.
  if (start > 0) {
    const space = flat.indexOf(' ', start);
    if (space !== -1 && space - start < 20) start = space + 1;
  }
  let cutEnd = end;
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end);
    if (space > start && end - space < 20) cutEnd = space;
  }
  return `${start > 0 || cutBefore ? '…' : ''}${flat.slice(start, cutEnd)}${cutEnd < flat.length || cutAfter ? '…' : ''}`;
}

/** One line, made safe to hand an agent (src/inject/safe-text.ts is the one rule). */
export function neutralizeText(text: string): string {
  return makeSafeText(text, { oneLine: true });
}

function findFirstMatch(text: string, terms: readonly string[]): number {
  const lowered = text.toLowerCase();
  let best = -1;
  for (const term of terms) {
    const needle = term.toLowerCase();
    let at = lowered.indexOf(needle);
    // Porter stemming matches "deploying" for "deploy" and "deploy" for "deployment": try the stem-ish prefix.
    if (at === -1 && needle.length > 5) at = lowered.indexOf(needle.slice(0, Math.max(4, needle.length - 3)));
    if (at !== -1 && (best === -1 || at < best)) best = at;
  }
  return best === -1 ? 0 : best;
}
