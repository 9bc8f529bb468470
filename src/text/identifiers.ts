/**
 * Split code identifiers and paths into the words people search for: `renderProjection` → `render projection`,
 * `MAX_LINE_BYTES` → `max line bytes`, `src/store/sqlite.ts` → `src store sqlite ts`. Indexed beside the text so
 * a query for "projection" finds `renderProjection` even though the tokenizer keeps it as one token.
 */
const IDENTIFIER = /[A-Za-z][A-Za-z0-9]*(?:[_\-./][A-Za-z0-9]+|[a-z][A-Z][A-Za-z0-9]*)+|[a-z]+[A-Z][A-Za-z0-9]*/g;

export function expandIdentifiers(text: string, max = 200): string {
  const words = new Set<string>();
  for (const match of text.matchAll(IDENTIFIER)) {
    for (const part of splitIdentifier(match[0])) {
      if (part.length > 1) words.add(part);
      if (words.size >= max) return [...words].join(' ');
    }
  }
  return [...words].join(' ');
}

export function splitIdentifier(identifier: string): string[] {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part.toLowerCase());
}
