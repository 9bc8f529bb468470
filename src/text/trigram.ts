/**
 * What the trigram index holds for an entry: the tool target, then each distinct whitespace-separated token of
 * the text and result once, in order of first appearance, capped. Trigrams serve identifiers, paths, partial
 * words and CJK — for which one occurrence of a token is enough — so repeats and the tail of long tool output
 * are left out: on the synthetic benchmark corpus this halves trigram indexing time and size against indexing
 * the first 1,500 characters verbatim.
 */
export const TRIGRAM_BODY_CHARS = 1000;

export function buildTrigramBody(text: string, target: string | null, result: string | null): string {
  const seen = new Set<string>();
  let body = target ?? '';
  for (const source of [text, result ?? '']) {
    for (const token of source.split(/\s+/)) {
      if (token.length < 3 || seen.has(token)) continue;
      if (body.length + token.length + 1 > TRIGRAM_BODY_CHARS) return body;
      seen.add(token);
      body = body === '' ? token : `${body} ${token}`;
    }
  }
  return body;
}
