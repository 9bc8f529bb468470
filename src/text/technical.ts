/**
 * What looks technical: identifiers (camelCase, snake_case, dotted), paths, versions, numbers, handles, and
 * CJK text (which the word tokenizer cannot split). One rule for both sides of the substring index: such tokens
 * are what the trigram body keeps (trigram.ts), and such query terms are what recall looks up in it.
 */
const TECHNICAL = /[._/\\:@#-]|\d|[a-z][A-Z]|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export function isTechnical(token: string): boolean {
  return TECHNICAL.test(token);
}

const LEADING = /^[("'`[{<]+/;
const TRAILING = /[)"'`\]}>.,;:!?]+$/;

/** A token without the punctuation around it in prose: `(setSystemTime),` → `setSystemTime`, `done.` → `done`. */
export function trimProse(token: string): string {
  return token.replace(LEADING, '').replace(TRAILING, '');
}
