import type { LexicalQuery } from '../store.js';

/** Columns user terms are matched against. `role` is indexed but never matched by words ("user" would hit all). */
const SEARCH_COLUMNS = '{text tool target keywords}';

/**
 * Render a structured query as an FTS5 MATCH expression. Every term is a quoted string with quotes doubled,
 * so no user input — `NEAR`, `*`, `:`, unbalanced brackets — can be read as FTS5 syntax.
 * Returns null when there is no positive term (FTS5 cannot evaluate a bare NOT).
 */
export function renderFtsQuery(query: Pick<LexicalQuery, 'any' | 'all' | 'none'>): string | null {
  const any = unique(query.any.map(quoteTerm).filter(isPresent));
  const all = unique(query.all.map(quoteTerm).filter(isPresent));
  const none = unique(query.none.map(quoteTerm).filter(isPresent));
  const positive: string[] = [];
  if (any.length > 0) positive.push(`(${any.join(' OR ')})`);
  for (const term of all) positive.push(term);
  if (positive.length === 0) return null;
  let expression = `${SEARCH_COLUMNS} : (${positive.join(' AND ')})`;
  if (none.length > 0) expression = `${expression} NOT ${SEARCH_COLUMNS} : (${none.join(' OR ')})`;
  return expression;
}

function quoteTerm(term: string): string | null {
  // Tokenizer separators alone would make an empty phrase, which FTS5 rejects.
  if (!/[\p{L}\p{N}]/u.test(term)) return null;
  return `"${term.replace(/"/g, '""')}"`;
}

function isPresent<T>(value: T | null): value is T {
  return value !== null;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
