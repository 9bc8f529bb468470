/**
 * How much of one message each text stage reads. Every stage already runs in time linear in its input; these
 * caps bound the constant, so a 32 MB pasted blob costs about what a 600 KB one does, whatever its shape.
 * The entries table and the raw archive keep every byte; only derived text (index columns, projection analysis,
 * recall-time scans) is cut. docs/architecture.md ("Limits") states the same numbers and a test pins them.
 */

/** Characters from the start of an entry's text, and of its result, that the word (FTS) index holds. */
export const INDEX_HEAD_CHARS = 512 * 1024;
/** Characters from the end of a longer text (or result) indexed too: logs end with the error that matters. */
export const INDEX_TAIL_CHARS = 64 * 1024;

/** Characters of the target, text and result each scanned for split identifiers (the `keywords` column). */
export const IDENTIFIER_SCAN_CHARS = 64 * 1024;
/** Distinct identifier parts kept per entry in the `keywords` column. */
export const IDENTIFIER_WORDS = 200;
/** Longest identifier part kept: longer runs are hashes and blobs, already whole in the text column. */
export const IDENTIFIER_PART_CHARS = 64;

/** Characters of the trigram body per entry: the target, then distinct tokens of the text and result. */
export const TRIGRAM_BODY_CHARS = 1000;
/** Characters of the text, and of the result, read for those tokens. */
export const TRIGRAM_SCAN_CHARS = 64 * 1024;
/** Characters of each neighbouring entry indexed as an entry's `context` column. */
export const CONTEXT_CHARS = 300;

/**
 * Characters from the start of each entry that projection keywords, topics and decisions read. Keywords are
 * counted per message, so one huge message cannot dominate them anyway; decisions are sentences near the top.
 */
export const ANALYSIS_SCAN_CHARS = 64 * 1024;
/** Characters of an entry compared against recalled text for verbatim quotes (recall contamination). */
export const QUOTE_SCAN_CHARS = 256 * 1024;

/** Characters of a marker's text kept (`@/decision: …` to the end of its line); a longer line is cut. */
export const MARKER_CONTENT_CHARS = 1000;
/** Characters of the context kept on each side of a marker (the lines before it, the lines after it). */
export const MARKER_CONTEXT_CHARS = 1000;
/** Markers kept per entry: a tool output listing thousands (a grep for `@/todo`) keeps its first ones. */
export const MARKERS_PER_ENTRY = 100;

/** Characters of a recall query read; the rest is ignored and the result says so in `notes`. */
export const MAX_QUERY_CHARS = 2000;
/** Distinct terms of a recall query searched (per list: query words, --require, --exclude). */
export const MAX_QUERY_TERMS = 64;

/**
 * The part of a text the index holds: the whole text when it fits, else its head and tail joined by a newline.
 * Recall-time scans (snippets, boosts, `--explain`) read the same window, so they find what the index found.
 */
export function selectIndexedText(text: string): string {
  if (text.length <= INDEX_HEAD_CHARS + INDEX_TAIL_CHARS) return text;
  return `${sliceHead(text, INDEX_HEAD_CHARS)}\n${sliceTail(text, INDEX_TAIL_CHARS)}`;
}

/** True when selectIndexedText leaves part of the text out. */
export function isIndexCut(text: string): boolean {
  return text.length > INDEX_HEAD_CHARS + INDEX_TAIL_CHARS;
}

/** The first `max` UTF-16 units, never ending on the first half of a surrogate pair. */
export function sliceHead(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return text.slice(0, end);
}

/** The last `max` UTF-16 units, never starting on the second half of a surrogate pair. */
export function sliceTail(text: string, max: number): string {
  if (text.length <= max) return text;
  const start = text.length - max;
  return text.slice(isLowSurrogate(text.charCodeAt(start)) ? start + 1 : start);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
