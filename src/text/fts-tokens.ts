/**
 * The terms SQLite FTS5 stores for a text under `tokenize = 'porter unicode61 remove_diacritics 2'`, reproduced in
 * JavaScript so an engine without FTS5 (PostgreSQL) indexes, matches and ranks on exactly the same terms. Every
 * rule below was checked against the SQLite that better-sqlite3 bundles; test/text/fts-tokens.test.ts pins them
 * (every code point, the fixtures, a word list, random strings) and regenerates the two tables if SQLite's change.
 *
 * unicode61 (SQLite's own Unicode tables, not JavaScript's):
 * - A token is a run of token characters: ASCII letters and digits, and the non-ASCII code points in TOKEN_RUNS
 *   (categories L*, N*, Co as SQLite knows them — which includes code points unassigned in SQLite's Unicode
 *   version, so 🤔 U+1F914 is a letter while 😀 U+1F600 separates, and plane 16 private use counts).
 * - 25 combining marks in U+0300–U+0331 (DIACRITICS) continue a token and are dropped; they start none. Every other
 *   mark separates, so NFD text splits where NFC text does not.
 * - Folding is one code point to one: lower case, then diacritics removed (FOLDS). No multi-character folds (ß,
 *   ligatures and fullwidth letters stay), İ becomes i. CJK is not segmented: a run of ideographs is one token.
 * - Lone surrogates reach SQLite as U+FFFD, a separator.
 *
 * porter (SQLite's Porter stemmer, run on the folded UTF-8 bytes): see stem() below. Tokens under 3 or over 64
 * bytes are left alone; non-ASCII tokens are stemmed too, every non-ASCII byte counting as a consonant.
 *
 * storage: a term longer than 32768 bytes is cut to 32768 bytes (documents and queries alike), possibly inside a
 * character; the cut character reads back as U+FFFD, as better-sqlite3 returns it.
 *
 * Linear time: one pass over the text (a second over each non-ASCII token to fold it), no regular expressions.
 */

/** Tokens of `text` as FTS5 'porter unicode61 remove_diacritics 2' produces them, in order (one per occurrence). */
export function tokenizeFts(text: string): string[] {
  const tokens: string[] = [];
  const length = text.length;
  let at = 0;
  while (at < length) {
    const code = text.charCodeAt(at);
    if (code < 0x80 ? ASCII_TOKEN[code] === 1 : charClass(codePointAt(text, at)) === TOKEN) {
      at = readToken(text, at, tokens);
    } else {
      at += code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(at + 1)) ? 2 : 1;
    }
  }
  return tokens;
}

/**
 * The tokens FTS5 makes of one query term (a bareword or a quoted string): the same as for a document. A term that
 * yields several tokens is a phrase; one that yields none matches nothing.
 */
export function tokenizeFtsQueryTerm(term: string): string[] {
  return tokenizeFts(term);
}

/** Longest term FTS5 stores or looks up, in UTF-8 bytes (FTS5_MAX_TOKEN_SIZE). */
export const FTS_MAX_TERM_BYTES = 32768;
/** The stemmer leaves tokens shorter or longer than these alone (UTF-8 bytes, after folding). */
const STEM_MIN_BYTES = 3;
const STEM_MAX_BYTES = 64;

const SEPARATOR = 0;
const TOKEN = 1;
const DIACRITIC = 2;

/** Reads the token starting at `start`, pushes its term and returns the index after it. */
function readToken(text: string, start: number, tokens: string[]): number {
  const length = text.length;
  let at = start;
  let ascii = true;
  while (at < length) {
    const code = text.charCodeAt(at);
    if (code < 0x80) {
      if (ASCII_TOKEN[code] !== 1) break;
      at += 1;
    } else {
      const point = codePointAt(text, at);
      if (charClass(point) === SEPARATOR) break;
      ascii = false;
      at += point > 0xffff ? 2 : 1;
    }
  }
  if (ascii) {
    // ASCII letters and digits only: toLowerCase maps exactly A–Z here, and bytes are characters.
    const term = text.slice(start, at).toLowerCase();
    const stemmable = term.length >= STEM_MIN_BYTES && term.length <= STEM_MAX_BYTES;
    tokens.push(stemmable ? stemTerm(term, true) : cut(term, term.length));
    return at;
  }
  // Fold code point by code point, copying the runs that fold to themselves (most of them) in one slice.
  let term = '';
  let bytes = 0;
  let copied = start;
  for (let index = start; index < at; ) {
    const point = codePointAt(text, index);
    const size = point > 0xffff ? 2 : 1;
    const folded = charClass(point) === DIACRITIC ? -1 : point < 0x80 ? asciiLower(point) : (FOLDS.get(point) ?? point);
    if (folded !== point) {
      term += text.slice(copied, index);
      if (folded >= 0) term += String.fromCodePoint(folded);
      copied = index + size;
    }
    bytes += folded < 0 ? 0 : folded < 0x80 ? 1 : folded < 0x800 ? 2 : folded < 0x10000 ? 3 : 4;
    index += size;
  }
  term += text.slice(copied, at);
  const stemmable = bytes >= STEM_MIN_BYTES && bytes <= STEM_MAX_BYTES;
  tokens.push(stemmable ? stemTerm(term, bytes === term.length) : cut(term, bytes));
  return at;
}

function asciiLower(code: number): number {
  return code >= 0x41 && code <= 0x5a ? code + 32 : code;
}

/** A term over FTS_MAX_TERM_BYTES cut to that many bytes, decoded as better-sqlite3 decodes the cut bytes. */
function cut(term: string, bytes: number): string {
  if (bytes <= FTS_MAX_TERM_BYTES) return term;
  if (bytes === term.length) return term.slice(0, FTS_MAX_TERM_BYTES);
  return decoder.decode(encoder.encode(term).subarray(0, FTS_MAX_TERM_BYTES));
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Room for the longest stemmed term (64 bytes, plus the `e` step 1b may add). */
const scratch = new Uint8Array(STEM_MAX_BYTES + 8);

/** The stemmed term. ASCII terms keep the unchanged head of the string; others are decoded from the bytes. */
function stemTerm(term: string, ascii: boolean): string {
  // Every step needs an ASCII letter at the end, so a term ending in another character (CJK, emoji) stays as is.
  if (term.charCodeAt(term.length - 1) >= 0x80) return term;
  if (!ascii) return decoder.decode(scratch.subarray(0, stem(scratch, encoder.encodeInto(term, scratch).written)));
  const length = term.length;
  for (let index = 0; index < length; index += 1) scratch[index] = term.charCodeAt(index);
  const stemmed = stem(scratch, length);
  let same = 0;
  while (same < stemmed && same < length && scratch[same] === term.charCodeAt(same)) same += 1;
  if (same === stemmed && same === length) return term;
  let tail = '';
  for (let index = same; index < stemmed; index += 1) tail += String.fromCharCode(scratch[index] ?? 0);
  return term.slice(0, same) + tail;
}

// ---------------------------------------------------------------------------------------------------------------
// The Porter stemmer as SQLite's FTS5 implements it: Porter (1980) with the revisions of Porter's own reference
// code (step 2 `bli`→`ble` instead of `abli`→`able`, and `logi`→`log`), plus SQLite's quirks, all reproduced:
// - A suffix only matches when something is left before it: `sses` → `sse`, `ies` → `ie`, and `eed` → `e` (too
//   short for `eed`, so step 1b strips `ed`).
// - Step 1b's "double consonant" test treats `y` as a consonant and compares bytes, so it can remove the last byte
//   of a multi-byte character (`a丸ing` → the bytes `a` E4 B8).
// - In steps 1b, 2, 3 and 4, the longest suffix of the step that matches is the only one tried: if its condition
//   fails, the step does nothing.
// Words are bytes: a, e, i, o, u are vowels, y is a vowel after a consonant, everything else is a consonant.
// ---------------------------------------------------------------------------------------------------------------

type Condition = (word: Uint8Array, stem: number) => boolean;
/** [suffix, replacement, condition on the stem before the suffix]; longer suffixes first where one ends another. */
type Rule = readonly [string, string, Condition];

const measureAbove0: Condition = (word, stem) => measure(word, stem) > 0;
const measureAbove1: Condition = (word, stem) => measure(word, stem) > 1;
const measureAbove1EndsST: Condition = (word, stem) =>
  (word[stem - 1] === CHAR_S || word[stem - 1] === CHAR_T) && measure(word, stem) > 1;

const STEP_2 = byLastLetter(rules(measureAbove0, [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'], ['logi', 'log'],
  ['bli', 'ble'], ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'], ['ization', 'ize'],
  ['ation', 'ate'], ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous'],
  ['aliti', 'al'], ['iviti', 'ive'], ['biliti', 'ble'],
]));
const STEP_3 = byLastLetter(rules(measureAbove0, [
  ['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', ''],
]));
const STEP_4 = byLastLetter([
  ...rules(measureAbove1, [
    ['al', ''], ['ance', ''], ['ence', ''], ['er', ''], ['ic', ''], ['able', ''], ['ible', ''], ['ant', ''],
    ['ement', ''], ['ment', ''], ['ent', ''], ['ou', ''], ['ism', ''], ['ate', ''], ['iti', ''], ['ous', ''],
    ['ive', ''], ['ize', ''],
  ]),
  ['ion', '', measureAbove1EndsST],
]);

/** Rules grouped by the last byte of their suffix, keeping their order, so a word only tries those that can match. */
function byLastLetter(list: readonly Rule[]): readonly (readonly Rule[])[] {
  const groups: Rule[][] = Array.from({ length: 128 }, () => []);
  for (const rule of list) groups[rule[0].charCodeAt(rule[0].length - 1)]?.push(rule);
  return groups;
}

function rules(condition: Condition, pairs: readonly (readonly [string, string])[]): Rule[] {
  return pairs.map(([suffix, replacement]) => [suffix, replacement, condition] as const);
}

const CHAR_A = 0x61;
const CHAR_E = 0x65;
const CHAR_I = 0x69;
const CHAR_L = 0x6c;
const CHAR_O = 0x6f;
const CHAR_S = 0x73;
const CHAR_T = 0x74;
const CHAR_U = 0x75;
const CHAR_W = 0x77;
const CHAR_X = 0x78;
const CHAR_Y = 0x79;
const CHAR_Z = 0x7a;

/** Stems `word[0, length)` in place (it may grow by one byte) and returns the new length. */
function stem(word: Uint8Array, length: number): number {
  let n = length;
  // Step 1a: plurals.
  if (word[n - 1] === CHAR_S) {
    if (word[n - 2] === CHAR_E) {
      const sses = n > 4 && word[n - 4] === CHAR_S && word[n - 3] === CHAR_S;
      n -= sses || (n > 3 && word[n - 3] === CHAR_I) ? 2 : 1;
    } else if (word[n - 2] !== CHAR_S) {
      n -= 1;
    }
  }
  // Step 1b: -eed, -ed, -ing; after removing -ed or -ing, tidy the end of what is left.
  let trimmed = false;
  if (n > 3 && endsWith(word, n, 'eed')) {
    if (measure(word, n - 3) > 0) n -= 1;
  } else if (n > 2 && endsWith(word, n, 'ed')) {
    trimmed = hasVowel(word, n - 2);
    if (trimmed) n -= 2;
  } else if (n > 3 && endsWith(word, n, 'ing')) {
    trimmed = hasVowel(word, n - 3);
    if (trimmed) n -= 3;
  }
  if (trimmed) {
    const last = word[n - 1] ?? 0;
    if (n > 2 && (endsWith(word, n, 'at') || endsWith(word, n, 'bl') || endsWith(word, n, 'iz'))) {
      word[n++] = CHAR_E;
    } else if (!isPlainVowel(last) && last !== CHAR_L && last !== CHAR_S && last !== CHAR_Z && last === word[n - 2]) {
      n -= 1;
    } else if (measure(word, n) === 1 && endsCvc(word, n)) {
      word[n++] = CHAR_E;
    }
  }
  // Step 1c: a final y becomes i if a vowel comes before it.
  if (word[n - 1] === CHAR_Y && hasVowel(word, n - 1)) word[n - 1] = CHAR_I;
  // Steps 2 to 4: derivational suffixes.
  n = applyRules(word, n, STEP_2);
  n = applyRules(word, n, STEP_3);
  n = applyRules(word, n, STEP_4);
  // Step 5a: a final e.
  if (word[n - 1] === CHAR_E) {
    const m = measure(word, n - 1);
    if (m > 1 || (m === 1 && !endsCvc(word, n - 1))) n -= 1;
  }
  // Step 5b: -ll to -l.
  if (n > 1 && word[n - 1] === CHAR_L && word[n - 2] === CHAR_L && measure(word, n - 1) > 1) n -= 1;
  return n;
}

/** The first rule whose suffix ends the word with a non-empty stem decides: applied if its condition holds. */
function applyRules(word: Uint8Array, length: number, step: readonly (readonly Rule[])[]): number {
  for (const [suffix, replacement, condition] of step[word[length - 1] ?? 0] ?? []) {
    if (length <= suffix.length || !endsWith(word, length, suffix)) continue;
    const stemLength = length - suffix.length;
    if (!condition(word, stemLength)) return length;
    for (let index = 0; index < replacement.length; index += 1) word[stemLength + index] = replacement.charCodeAt(index);
    return stemLength + replacement.length;
  }
  return length;
}

function endsWith(word: Uint8Array, length: number, suffix: string): boolean {
  if (length < suffix.length) return false;
  const from = length - suffix.length;
  for (let index = 0; index < suffix.length; index += 1) {
    if (word[from + index] !== suffix.charCodeAt(index)) return false;
  }
  return true;
}

function isPlainVowel(byte: number): boolean {
  return byte === CHAR_A || byte === CHAR_E || byte === CHAR_I || byte === CHAR_O || byte === CHAR_U;
}

/** Whether a byte is a consonant, given whether the one before it was: y is a vowel only right after a consonant. */
function isConsonant(byte: number, previousConsonant: boolean): boolean {
  return !(isPlainVowel(byte) || (byte === CHAR_Y && previousConsonant));
}

/** Porter's m: the number of vowel-consonant sequences in `word[0, length)`. */
function measure(word: Uint8Array, length: number): number {
  let m = 0;
  let previousConsonant = false;
  let seenVowel = false;
  for (let index = 0; index < length; index += 1) {
    const consonant = isConsonant(word[index] ?? 0, previousConsonant);
    if (!consonant) seenVowel = true;
    else if (seenVowel && !previousConsonant) m += 1;
    previousConsonant = consonant;
  }
  return m;
}

/** Porter's *v*: the stem holds a vowel. */
function hasVowel(word: Uint8Array, length: number): boolean {
  for (let index = 0; index < length; index += 1) {
    const byte = word[index] ?? 0;
    if (isPlainVowel(byte) || (byte === CHAR_Y && index > 0)) return true;
  }
  return false;
}

/** Porter's *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(word: Uint8Array, length: number): boolean {
  const last = word[length - 1];
  if (length < 3 || last === CHAR_W || last === CHAR_X || last === CHAR_Y) return false;
  let previousConsonant = false;
  let pattern = 0;
  for (let index = 0; index < length; index += 1) {
    previousConsonant = isConsonant(word[index] ?? 0, previousConsonant);
    pattern = ((pattern << 1) | (previousConsonant ? 1 : 0)) & 7;
  }
  return pattern === 0b101;
}

// ---------------------------------------------------------------------------------------------------------------
// unicode61's tables, as measured from SQLite (FTS_PRINT_TABLES=1 npx vitest run test/text/fts-tokens.test.ts
// prints them afresh). Numbers are base 36.
// ---------------------------------------------------------------------------------------------------------------

/**
 * Where token characters start and stop: code point deltas from 0, alternately the first token character of a run
 * and the first separator after it. Diacritics are separators here (DIACRITICS handles them).
 */
const TOKEN_RUNS = `
  1c a 7 q 6 q 1b 1 7 2 1 1 3 2 1 3 1 n 1 v 1 cq 4 c e 5 7 1 1 1 3l 5 1 8 1 5 2 1 1 32 1 3v 8 5s 6 15 2 4 1 1 1j
  17 2 b 5 1 m 2 2 17 l a 4 2 1 2r 1 1 f 2 7 f 2 1 e 1 1 1 1 u r 2j b 1m 9 2 4 s 4 1 9 1 3 1 5 2 f q 3 2 1 3p r 1
  4 1i 3 1 i 1 7 a 4 a 1 g 3 1k 1 1 7 2 2 2 3 9 1 a 2 e 2 6 2 5 3 1k 1 1 5 4 2 2 3 3 1 u 2 3 1 b 3 1k 1 1 8 1 3 1
  3 k 2 c 2 f 3 1k 1 1 7 2 2 2 3 8 2 a 2 c 1 h 1 1n 5 3 3 1 4 9 1 r 8 6 3 1m 7 1 3 1 4 7 2 b 2 r 1 2 2 1k 1 1 7 1
  3 1 4 7 2 b 2 u 2 1m 7 1 3 1 4 9 1 a 2 l 1 8 2 1y 1 4 6 1 1 1 8 i 3 1o 1 2 7 4 1 7 9 a 2 2d 1 2 6 1 2 b 6 1f v k
  c 1d n 5 b 1 10 1 f 1 d 28 k b 6 6 4 4 3 1 3 2 7 3 4 d c 1 1 a 6 2j 1 gx c 13 a 2u 1 h8 2 h 1 q 2 26 3 10 3 t 5
  r 2 u 2 1s z 1 4 1 1 y f 4a 1 3a c 4 c 4 1 3 2 2y h 7 2 k y n 5 2 2 1h a 1 t 2 1 w 7 1 6 2a 5 1b h l z 3 3 u d
  1k e 8 4 10 k 3 5 1q 2 1s 8 8 p 4 1 4 3 5n 13 l 4 cd 1 1 3 b 3 d 3 d 3 d 2 1 2t 5 6 a 5 b 5 h q m x f 2 1 4 1 2
  a 1 1 3 5 6 1 1 1 1 1 1 4 1 b 2 4 5 5 4 1 1 1s h0 c 13 p b 29 26 m e8 1 39 u qh 3 a az 6 4 3 7 4 1 2 34 1 e 1 2o
  27 1 c 1w q 1 2h c 5y q c 4 5 3 p 9 7 5 2 5 3 2h 4 3 1 2i 1 44 2 4 a w 10 s v b u 8 1 f w a 13 f 1r 1 74 534 1s
  h3k 1j 1j 2 7h 3 2n g w 1 28 8 8 n 9 2 2v 2 3b 1 3 1 4 1 n 9 a 4 1m 4 8 2 1e h 9 2 g i 6 3 17 a n d b 1 w 4 1b r
  g 2 21 e c 1 8 2 e 4 n 3 1 1 1g 1 1 3 2 2 5 2 1 1 s 2 b 7 3 2 6k b 8pe 1kw 5cu 1 a 1 3s g ak 2 58 2 2 q 6 7 9 z
  1 j 1 4 43 1 1 f a 7 q 6 q b 3e 7 1 7 a 7 74 3 1g 9 1l h 6 c 1g 1a bl 1 1c 1 w6 1 5j 1 v 1 5d 3 1 2 5 4 14 3 4 1
  g 9 12 1 55 7 xs 3 1h m 1e 3 19 i 1q 3 10 e b 4 1o 3 1c e 4 4 yq d 2pk 4 esd 1a g 4 j1p 6u a 13 2 51 y 1y 56 2f
  oa 1 p 1 v 1 p 1 v 1 p 1 v 1 p 1 v 1 p 1 4ks 2 7i 18 4 2s c f 2 e 2 f 1 f 1c v 1 1o 4 17 23 t d 17 5 9 7 2 4u x
  f 6 1 1y 3 k c 11 1 5 l h f 1r 1 1 1 52 1 4 3 1q 2 4 c o 43 1y 4 b 1c 1y 1m 38 gwi5 1 u 2o 3k 6o
`;

/**
 * Folds of token characters that change: `delta[:count | /count](+d | -d | =t)` — from the previous entry's start,
 * `count` code points one (`:`) or two (`/`) apart, each folding to itself plus or minus `d`, or all to `t`.
 */
const FOLDS_TEXT = `
  1t:q+w 38+lj b:6=2p 6+w 1/2-2s 1/2=2t 3-2u 1:4=2x 4+w 1:2-2r 2:4=33 5+w 1:4=39 4-2s 1+w 2:6=2p 7/2-3o 1/2=2t
  3-3q 1:4=2x 5:2-3n 2:4=33 6:4=39 4/2=3d 3:6=2p 6:8=2r 8:2=2s 2+1 2:a=2t a:8=2v 8:2=2w 2+1 2:9=2x a+1 2:2=2y
  2:2=2z 3:6=30 6/2+1 4:6=32 7+1 2:6=33 6+1 2:6=36 6:8=37 8:4=38 4+1 2:c=39 c:2=3b 2:3=3d 3:6=3e 6-7g 2+5u 1/2+1
  4+5q 1+1 2:2+5p 2+1 3+27 1+5m 1+5n 1+1 2+5p 1+5r 2+5v 1+5t 1+1 4+5v 1+5x 2+5y 1:2=33 2/2+1 4+62 1+1 2+62 3+1
  2+62 1:2=39 2:2+61 2/2+1 4+63 1+1 4+1 8:2=cm 3:2=cp 3:2=cs 3:2=2p 2:2=2x 2:2=33 2:a=39 b:2=2p 2/3+1 6:2=2v
  2:2=2z 2:4=33 4+1 2-au 1:2=dv 3:2=2v 2-2p 1-1k 1:2=32 2:2=2p 2/2+1 4:4=2p 4:4=2t 4:4=2x 4:4=33 4:4=36 4:4=39
  4:2=37 2:2=38 2+1 2:2=2w 2-3m 2/2+1 4:2=2p 2:2=2t 2:8=33 8:2=3d 8+8bv 1+1 2-4j 1+8bs 3+1 2-5f 1+1x 1+1z 1/5+1
  8a/2+1 6+1 g+12 2:3+11 4+1s 2:2+1r 3:h+w i:9+w v+1 d+8 1-u 1-p 4-f 1-m 2/c+1 o-1i 1-1c 3-1o 1-1s 2+1 2-7 1+1
  3:3-3m 3:g+28 g:w+w 28/h+1 16/r+1 1i+f 1/7+1 f/18+1 2p:12+1c 29b:12+5ls 13+5ls 6+5ls 2lv:2=2p 2:6=2q 6:2=2r
  2:a=2s a:a=2t a:2=2u 2:2=2v 2:a=2w a:4=2x 4:6=2z 6:8=30 8:6=31 6:8=32 8:8=33 8:4=34 4:8=36 8:a=37 a:8=38 8:a=39
  a:4=3a 4:a=3b a:4=3c 4:2=3d 2:6=3e 6-5ym 1-5yb 1-5y9 1-5y8 2-5yg 3-5vj 2:o=2p o:g=2t g:4=2x 4:o=33 o:e=39 e:8=3d
  8/3+1 e:8-8 g:6-8 g:8-8 g:8-8 g:6-8 h/4-8 f:8-8 w:8-8 g:8-8 g:8-8 g:2-8 2:2-22 2-9 2-5j9 a:4-2e 4-9 c:2-8 2:2-2s
  e:2-8 2:2-34 2-7 c:2-3k 2:2-3i 2-9 8a-5st 4-6gv 1-6h6 7+s 1a:g+g z+1 22l:1b+1c 2o+1 2-8af 1-2xy 1-89z 3/3+1
  6-8bg 1-8al 1-8bj 1-8bi 2+1 3+1 9:2-8cf 2/1e+1 2z/2+1 7+1 nym/n+1 1s/c+1 4i/7+1 g/v+1 1z/2+1 4-r9g 1/5+1 d+1
  2-wmg 3/2+1 g/5+1 a-wn8 h9z:q+w yn:14+14
`;

/** The combining marks that continue a token (and are removed from it) but start none: U+0300–U+0331, 25 of them. */
const DIACRITICS: readonly (readonly [number, number])[] = [
  [0x300, 0x304], [0x306, 0x30c], [0x30f, 0x30f], [0x311, 0x311], [0x31b, 0x31b], [0x323, 0x328], [0x32d, 0x32e],
  [0x330, 0x331],
];

const ASCII_TOKEN = new Uint8Array(128);
for (let code = 0; code < 128; code += 1) {
  const isDigit = code >= 0x30 && code <= 0x39;
  const isLetter = (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
  ASCII_TOKEN[code] = isDigit || isLetter ? 1 : 0;
}

const boundaries: number[] = [];
{
  let point = 0;
  for (const delta of words(TOKEN_RUNS)) boundaries.push((point += parseInt(delta, 36)));
}

/** Classes of the Basic Multilingual Plane, looked up directly; the other planes search `boundaries`. */
const BMP_CLASS = new Uint8Array(0x10000);
for (let index = 0; index < boundaries.length && (boundaries[index] ?? 0) < 0x10000; index += 2) {
  BMP_CLASS.fill(TOKEN, boundaries[index], Math.min(boundaries[index + 1] ?? 0x10000, 0x10000));
}
for (const [first, last] of DIACRITICS) BMP_CLASS.fill(DIACRITIC, first, last + 1);

const FOLDS = new Map<number, number>();
{
  let point = 0;
  for (const entry of words(FOLDS_TEXT)) {
    let index = 0;
    const number = (): number => {
      const from = index;
      while (index < entry.length && isBase36Digit(entry.charCodeAt(index))) index += 1;
      return parseInt(entry.slice(from, index), 36);
    };
    point += number();
    let count = 1;
    let step = 1;
    if (entry[index] === ':' || entry[index] === '/') {
      step = entry[index] === '/' ? 2 : 1;
      index += 1;
      count = number();
    }
    const kind = entry[index];
    index += 1;
    const value = number();
    for (let k = 0; k < count; k += 1) {
      const from = point + k * step;
      FOLDS.set(from, kind === '=' ? value : kind === '+' ? from + value : from - value);
    }
  }
}

function isBase36Digit(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x7a);
}

function words(table: string): string[] {
  return table.split(/\s+/).filter((word) => word !== ''); // only ever the two constant tables above
}

function charClass(point: number): number {
  if (point < 0x10000) return BMP_CLASS[point] ?? SEPARATOR;
  // The number of boundaries at or below `point`: odd inside a run of token characters.
  let low = 0;
  let high = boundaries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((boundaries[middle] ?? 0) <= point) low = middle + 1;
    else high = middle;
  }
  return low % 2 === 1 ? TOKEN : SEPARATOR;
}

/** The code point at `index`; a lone surrogate reads as U+FFFD, as SQLite receives it. */
function codePointAt(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code < 0xd800 || code > 0xdfff) return code;
  if (code <= 0xdbff) {
    const next = text.charCodeAt(index + 1);
    if (isLowSurrogate(next)) return ((code - 0xd800) << 10) + (next - 0xdc00) + 0x10000;
  }
  return 0xfffd;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
