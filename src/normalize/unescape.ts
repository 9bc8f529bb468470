/**
 * Seed 000 §3.2 JSON unescape pre-pass. Tool outputs that were JSON-encoded more than once reach us with
 * escape runs such as `\\"` or `\\n` (the `\\\"` noise of the recall failure report) that confuse both readers
 * and embeddings. The seed's Rust pre-pass replaces `\\"` → `"`, `\\n` → newline, `\\t` → tab and `\\\\` → `\`.
 *
 * We apply the same rules by backslash *run* instead of by fixed string, which gives the seed's result for its
 * own cases and keeps deeper nesting (3, 7, 15 ... backslashes) from leaving half-decoded fragments:
 * - a run of 2+ backslashes before `"`, `n`, `t` (or `r`) decodes to that character;
 * - a run of 4+ backslashes anywhere else collapses to one backslash;
 * - a single backslash is never touched, so `C:\new\tools`, regex sources and `\"` inside code stay as written.
 *
 * Tradeoff (documented on purpose): two backslashes before `n`/`t` are indistinguishable from an escaped
 * newline/tab, so the seed would turn a JSON-dumped path `C:\\new` into `C:` + newline + `ew`. We protect
 * drive-letter paths (`C:\\...`) by collapsing their separators to one backslash instead; relative Windows paths
 * written with doubled separators (`src\\new`) and source code containing `'\\n'` are still decoded as the seed
 * implies.
 */

/** Enough for any realistic nesting depth; the loop normally stops after one or two passes. */
const MAX_PASSES = 8;

/**
 * One scan: a drive-letter path (group 1), or a backslash run with the character after it (groups 2, 3).
 * A path ends on a name, never on separators, so `C:\\dir\\"` still decodes its trailing `\\"` like the seed.
 * Names and separators are disjoint character classes, so backtracking is bounded by one path segment.
 */
const ESCAPE_RUN = /(\b[A-Za-z]:\\+(?:[^\\\s"'<>|?*]+\\+)*[^\\\s"'<>|?*]+)|(\\{2,})(["ntr]?)/g;
const DECODED: Record<string, string> = { '"': '"', n: '\n', t: '\t', r: '\r' };

export function unescapeJsonNoise(text: string): string {
  let current = text;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const next = decodeEscapeRuns(decodeJsonStringLiteral(current));
    if (next === current) return next;
    current = next;
  }
  return current;
}

/**
 * A tool output that is itself a JSON string literal (`"line one\nline two"`) is decoded as JSON. Only when it
 * holds an escape: a message that is just a quoted phrase keeps its quotes.
 */
function decodeJsonStringLiteral(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length < 2 || !trimmed.startsWith('"') || !trimmed.endsWith('"') || !trimmed.includes('\\')) {
    return text;
  }
  try {
    const value: unknown = JSON.parse(trimmed);
    return typeof value === 'string' ? value : text;
  } catch {
    return text;
  }
}

function decodeEscapeRuns(text: string): string {
  if (!text.includes('\\\\')) return text;
  return text.replace(ESCAPE_RUN, (match, path: string | undefined, run: string | undefined, next: string) => {
    if (path !== undefined) return path.replace(/\\{2,}/g, '\\');
    if (next !== '') return DECODED[next] ?? next;
    return (run ?? '').length >= 4 ? '\\' : match;
  });
}
