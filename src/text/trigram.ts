import { TRIGRAM_BODY_CHARS, TRIGRAM_SCAN_CHARS, sliceHead } from './limits.js';
import { isTechnical, trimProse } from './technical.js';

/**
 * What the trigram index holds for an entry: the tool target, then each distinct technical token of the text
 * and result (identifiers, paths, versions, numbers, CJK — technical.ts) once, in order of first appearance,
 * capped. Trigrams serve exactly those, for which one occurrence is enough; plain words are the word index's
 * (a partial plain word is found there as a prefix), so they, repeats and the tail of long tool output are
 * left out (docs/benchmarks.md, "Index less, find as much").
 */
export { TRIGRAM_BODY_CHARS };

export function buildTrigramBody(text: string, target: string | null, result: string | null): string {
  const seen = new Set<string>();
  let body = sliceHead(target ?? '', TRIGRAM_BODY_CHARS);
  // A text that repeats a few words never fills the body: the scan stops after a bounded prefix of each.
  for (const source of [sliceHead(text, TRIGRAM_SCAN_CHARS), sliceHead(result ?? '', TRIGRAM_SCAN_CHARS)]) {
    // Tokens are read one at a time and the scan stops once the body is full, so a megabyte of text costs
    // no more than its first tokens; a token longer than the body ends the scan without being copied.
    const whitespace = /\s+/g;
    let from = 0;
    while (from <= source.length) {
      whitespace.lastIndex = from;
      const match = whitespace.exec(source);
      const end = match ? match.index : source.length;
      if (end - from > TRIGRAM_BODY_CHARS) return body;
      const token = trimProse(source.slice(from, end));
      if (token.length >= 3 && !seen.has(token) && isTechnical(token)) {
        if (body.length + token.length + 1 > TRIGRAM_BODY_CHARS) return body;
        seen.add(token);
        body = body === '' ? token : `${body} ${token}`;
      }
      if (!match) break;
      from = match.index + match[0].length;
    }
  }
  return body;
}
