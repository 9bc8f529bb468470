import type { LexicalQuery } from '../store.js';

/** Columns user terms are matched against. `role` is indexed but never matched by words ("user" would hit all). */
const SEARCH_COLUMNS = '{text tool target keywords context}';
/** The entry's own columns, without its neighbours' context. */
const OWN_COLUMNS = '{text tool target keywords}';

/**
 * Render a structured query as an FTS5 MATCH expression. Every term is a quoted string with quotes doubled,
 * so no user input — `NEAR`, `*`, `:`, unbalanced brackets — can be read as FTS5 syntax.
 * Returns null when there is no positive term (FTS5 cannot evaluate a bare NOT).
 */
export function renderFtsQuery(query: Pick<LexicalQuery, 'any' | 'all' | 'none' | 'context' | 'every' | 'prefix'>): string | null {
  // A prefix query marks each term's last token as a prefix (FTS5 stems it first, as any query word).
  const any = quoteAll(query.any).map((quoted) => (query.prefix ? `${quoted}*` : quoted));
  const all = quoteAll(query.all);
  const none = quoteAll(query.none);
  if (any.length === 0 && all.length === 0) return null;
  const columns = query.context === false ? OWN_COLUMNS : SEARCH_COLUMNS;
  const ranked = any.length > 0 ? [`${columns} : (${any.join(query.every ? ' AND ' : ' OR ')})`] : [];
  const required = all.map((term) => `${OWN_COLUMNS} : ${term}`);
  let expression = [...ranked, ...required].join(' AND ');
  if (none.length > 0) expression = `${expression} NOT ${OWN_COLUMNS} : (${none.join(' OR ')})`;
  return expression;
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
 * Trigram MATCH: each term of three or more characters as a quoted substring, any of them. Shorter terms
 * cannot be matched by a trigram index and are left to the porter index.
 */
export function renderTrigramQuery(terms: readonly string[]): string | null {
  const quoted = [...new Set(terms.filter((term) => [...term].length >= 3).map(quoteTerm).filter(isPresent))];
  return quoted.length === 0 ? null : quoted.join(' OR ');
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
