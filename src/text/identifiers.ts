import { IDENTIFIER_PART_CHARS, IDENTIFIER_WORDS } from './limits.js';

/**
 * Split code identifiers and paths into the words people search for: `renderProjection` → `render projection`,
 * `MAX_LINE_BYTES` → `max line bytes`, `src/store/sqlite.ts` → `src store sqlite ts`. Indexed beside the text so
 * a query for "projection" finds `renderProjection` even though the tokenizer keeps it as one token.
 *
 * Scanned by hand, one pass: the regex this replaces (`[A-Za-z][A-Za-z0-9]*(?:[_\-./][A-Za-z0-9]+|…)+`) gave back
 * its greedy run one character at a time at every start, so a 125 KB token of `x` took 50 s to index.
 */

/**
 * An identifier is a run that starts with a letter, continues with letters and digits, and holds at least one
 * separator (`_ - . /`) followed by a letter or digit, or a lower-case letter followed by an upper-case one.
 */
export function expandIdentifiers(text: string, max = IDENTIFIER_WORDS): string {
  const words = new Set<string>();
  const length = text.length;
  let index = 0;
  while (index < length) {
    if (!isLetter(text.charCodeAt(index))) {
      index += 1;
      continue;
    }
    const start = index;
    let camel = false;
    index = skipAlphanumerics(text, index);
    for (let at = start + 1; at < index && !camel; at += 1) camel = isLower(text.charCodeAt(at - 1)) && isUpper(text.charCodeAt(at));
    let segments = 0;
    while (index + 1 < length && isSeparator(text.charCodeAt(index)) && isAlphanumeric(text.charCodeAt(index + 1))) {
      index = skipAlphanumerics(text, index + 1);
      segments += 1;
    }
    if (segments === 0 && !camel) continue;
    for (const part of splitIdentifier(text.slice(start, index))) {
      if (part.length > 1 && part.length <= IDENTIFIER_PART_CHARS) words.add(part);
      if (words.size >= max) return [...words].join(' ');
    }
  }
  return [...words].join(' ');
}

/**
 * `HTMLParser2Config` → html, parser2, config: a word ends before an upper-case letter that follows a lower-case
 * letter or digit, and before the last capital of a capital run followed by a lower-case letter; anything
 * other than a letter or digit separates words.
 */
export function splitIdentifier(identifier: string): string[] {
  const parts: string[] = [];
  let start = -1;
  for (let index = 0; index <= identifier.length; index += 1) {
    const code = index < identifier.length ? identifier.charCodeAt(index) : -1;
    if (!isAlphanumeric(code)) {
      if (start >= 0) parts.push(identifier.slice(start, index).toLowerCase());
      start = -1;
      continue;
    }
    if (start < 0) {
      start = index;
      continue;
    }
    const previous = identifier.charCodeAt(index - 1);
    const next = index + 1 < identifier.length ? identifier.charCodeAt(index + 1) : -1;
    const afterLower = (isLower(previous) || isDigit(previous)) && isUpper(code);
    const capitalRunEnd = isUpper(previous) && isUpper(code) && isLower(next);
    if (afterLower || capitalRunEnd) {
      parts.push(identifier.slice(start, index).toLowerCase());
      start = index;
    }
  }
  return parts;
}

function skipAlphanumerics(text: string, from: number): number {
  let index = from;
  while (index < text.length && isAlphanumeric(text.charCodeAt(index))) index += 1;
  return index;
}

function isUpper(code: number): boolean {
  return code >= 65 && code <= 90;
}

function isLower(code: number): boolean {
  return code >= 97 && code <= 122;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isLetter(code: number): boolean {
  return isUpper(code) || isLower(code);
}

function isAlphanumeric(code: number): boolean {
  return isLetter(code) || isDigit(code);
}

/** `_ - . /`: the characters that join the parts of an identifier or a path. */
function isSeparator(code: number): boolean {
  return code === 95 || code === 45 || code === 46 || code === 47;
}
