/**
 * What the trigram index holds for an entry: the tool target and the start of the text and result. Trigrams
 * serve identifiers, paths, partial words and CJK; capping the body keeps the index a fraction of the porter
 * index instead of several times its size.
 */
export const TRIGRAM_BODY_CHARS = 1500;

export function buildTrigramBody(text: string, target: string | null, result: string | null): string {
  const parts = [target ?? '', text, result ?? ''].filter((part) => part !== '');
  const body = parts.join('\n');
  return body.length > TRIGRAM_BODY_CHARS ? body.slice(0, TRIGRAM_BODY_CHARS) : body;
}
