import type { LexicalQuery } from '../store.js';

/** Columns user terms are matched against. `role` is indexed but never matched by words ("user" would hit all). */
const SEARCH_COLUMNS = '{text tool target keywords context}';
/** The entry's own columns, without its neighbours' context. */
const OWN_COLUMNS = '{text tool target keywords}';

/**
 * A structured query as FTS5 MATCH expressions. Every term is a quoted string with quotes doubled, so no user
 * input — `NEAR`, `*`, `:`, unbalanced brackets — can be read as FTS5 syntax.
 */

/** A word query's pieces: what exact top-k (store/top-k.ts) needs to match and bound phrase by phrase. */
export interface FtsParts {
  /** The column filter of the ranked terms. */
  columns: string;
  /** Each ranked (`any`) term as a quoted phrase, a prefix marked, in FTS5's order. */
  ranked: string[];
  every: boolean;
  /** Each required term as a phrase in the entry's own columns. */
  required: string[];
  /** The excluded terms, quoted. */
  excluded: string[];
}

/** Null when there is no positive term (FTS5 cannot evaluate a bare NOT). */
export function renderFtsParts(query: Pick<LexicalQuery, 'any' | 'all' | 'none' | 'context' | 'every' | 'prefix'>): FtsParts | null {
  // A prefix query marks each term's last token as a prefix (FTS5 stems it first, as any query word).
  const ranked = quoteAll(query.any).map((quoted) => (query.prefix ? `${quoted}*` : quoted));
  const all = quoteAll(query.all);
  if (ranked.length === 0 && all.length === 0) return null;
  return {
    columns: query.context === false ? OWN_COLUMNS : SEARCH_COLUMNS,
    ranked,
    every: query.every === true,
    required: all.map((term) => `${OWN_COLUMNS} : ${term}`),
    excluded: quoteAll(query.none),
  };
}

/**
 * The MATCH expression of `parts`. With `holding` (indexes of ranked phrases), only rows holding one of those
 * match, and those phrases come twice — once to select, once in the full list — so BM25 counts them twice:
 * subtract the score of `joinFtsPhrases(parts, holding)` to get the query's own.
 */
export function joinFtsParts(parts: FtsParts, holding?: readonly number[]): string {
  const ranked = parts.ranked.length > 0 ? [`${parts.columns} : (${parts.ranked.join(parts.every ? ' AND ' : ' OR ')})`] : [];
  const selecting = holding ? [joinFtsPhrases(parts, holding)] : [];
  let expression = [...selecting, ...ranked, ...parts.required].join(' AND ');
  if (parts.excluded.length > 0) expression = `${expression} NOT ${OWN_COLUMNS} : (${parts.excluded.join(' OR ')})`;
  return expression;
}

/** The ranked phrases at `indexes`, any of them, alone. */
export function joinFtsPhrases(parts: FtsParts, indexes: readonly number[]): string {
  return `${parts.columns} : (${indexes.map((index) => parts.ranked[index]!).join(' OR ')})`;
}

/**
 * Terms joined by one operator for --require / --exclude. These test the entry itself, not its neighbours:
 * "must contain WORD" means this message contains it.
 */
export function renderFtsTerms(terms: readonly string[], operator: 'AND' | 'OR'): string | null {
  const quoted = quoteAll(terms);
  return quoted.length === 0 ? null : `${OWN_COLUMNS} : (${quoted.join(` ${operator} `)})`;
}

/**
 * The trigram query's phrases: each distinct term of three or more characters as a quoted substring (matched
 * any of them). Shorter terms cannot be matched by a trigram index and are left to the porter index.
 */
export function renderTrigramPhrases(terms: readonly string[]): string[] {
  return [...new Set(terms.filter((term) => [...term].length >= 3).map(quoteTerm).filter(isPresent))];
}

function quoteAll(terms: readonly string[]): string[] {
  return [...new Set(terms.map(quoteTerm).filter(isPresent))];
}

function quoteTerm(term: string): string | null {
  // Tokenizer separators alone would make an empty phrase, which FTS5 rejects.
  if (!/[\p{L}\p{N}]/u.test(term)) return null;
  // FTS5 reads the expression as a C string: a NUL would end it mid-term. To the tokenizers NUL separates
  // tokens like a space does.
  const safe = term.includes('\0') ? term.replace(/\0/g, ' ') : term;
  return `"${safe.replace(/"/g, '""')}"`;
}

function isPresent<T>(value: T | null): value is T {
  return value !== null;
}
