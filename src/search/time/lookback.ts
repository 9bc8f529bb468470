/**
 * The text just before a position, for patterns anchored at its end ("since …", "line 10:30"). A query may be
 * 100 KB and hold thousands of expressions: matching each against everything before it would cost the square of
 * the length, so only the last few words are looked at. The cut falls just after a whitespace character, so a
 * pattern starting with a word boundary or `(?<![\w-])` reads the same as on the whole query.
 */
export const LOOKBACK_CHARS = 80;

export interface Lookback {
  text: string;
  /** Index in the query of `text`'s first character. */
  offset: number;
}

export function readLookback(query: string, end: number): Lookback {
  if (end <= LOOKBACK_CHARS) return { text: query.slice(0, end), offset: 0 };
  let offset = end - LOOKBACK_CHARS;
  while (offset < end && !/\s/.test(query[offset - 1] ?? ' ')) offset += 1;
  return { text: query.slice(offset, end), offset };
}
