import type { TokenCounter } from '../text/tokens.js';

/**
 * A hook's token count without the tokenizer. Loading cl100k_base's rank table costs ~110 ms of CPU and ~60 ms of
 * garbage collection in a fresh process — more than session-start's whole 150 ms — so the hooks budget with this
 * estimate, made to err on the side of more tokens. The text is cut as cl100k_base's pre-tokenizer cuts it (a
 * letter run with the one character before it, digit groups of at most three, punctuation runs with a leading
 * space, whitespace runs), and each piece is given as many tokens as the tokenizer gives it on ordinary text, or
 * more: a word-like letter run (a vowel in four letters or more, at most one capital in three) one token per four
 * letters and one more unless it follows a space, any other letter run (random, base64) one per letter, a digit group one, a punctuation character one,
 * a whitespace run one, and text outside ASCII one per UTF-8 byte (byte-level BPE never needs more).
 * test/hooks/token-estimate.test.ts measures it against the tokenizer: on the example transcripts, the docs and
 * the hooks' own outputs it is under the true count only on hex digests, by a token or two, and over by a third
 * to a half on the whole — a handover keeps its budget and is cut a little early.
 */
const PIECE = /'(?:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;
// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\u0000-\u007f]/;

export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const [piece] of text.matchAll(PIECE)) {
    if (NON_ASCII.test(piece)) tokens += Buffer.byteLength(piece, 'utf8');
    else if (/[A-Za-z]/.test(piece)) tokens += estimateLetters(piece);
    else if (/^ ?[^\s\dA-Za-z]/.test(piece)) tokens += piece.trim().length;
    else tokens += 1;
  }
  return tokens;
}

function estimateLetters(piece: string): number {
  const letters = piece.replace(/[^A-Za-z]/g, '');
  const vowels = letters.replace(/[^aeiouyAEIOUY]/g, '').length;
  const capitals = letters.replace(/[^A-Z]/g, '').length;
  const wordLike = letters.length <= 3 || (vowels * 4 >= letters.length && capitals * 3 <= letters.length + 1);
  // A run without its leading space is split more often (`Bash` is two tokens, ` Bash` one), and a leading
  // punctuation character (`.map`, `/usr`) may be a token of its own.
  const lead = piece.startsWith(' ') ? 0 : 1;
  return (wordLike ? Math.ceil(letters.length / 4) : letters.length) + lead;
}

/** The estimate behind the counter interface the budgeters take. */
export const estimatingCounter: TokenCounter = {
  count: async (texts) => texts.map(estimateTokens),
};
