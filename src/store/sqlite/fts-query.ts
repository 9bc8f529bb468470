import { distinctPhraseTexts } from '../postings/query-phrases.js';
import type { LexicalQuery } from '../store.js';

/** Columns user terms are matched against. `role` is indexed but never matched by words ("user" would hit all). */
export const SEARCH_COLUMNS = '{text tool target keywords context}';
/** The entry's own columns, without its neighbours' context. */
export const OWN_COLUMNS = '{text tool target keywords}';

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
 * The MATCH expression of `parts`: every row the query matches.
 *
 * Every expression here keeps FTS5's AND at the top (an excluded group is NOT-ed from the last operand, which
 * binds tighter than AND): FTS5 empties the positions of the phrases under an AND that is not the root when it
 * meets a row that fails it, and a phrase already past that row keeps them empty at its own, so bm25 would
 * miss its occurrences there — `(a AND b) NOT c` scores lower than `a AND b NOT c`.
 */
export function joinFtsParts(parts: FtsParts): string {
  const ranked = parts.ranked.length > 0 ? [`${parts.columns} : (${parts.ranked.join(parts.every ? ' AND ' : ' OR ')})`] : [];
  return excludeFrom([...ranked, ...parts.required], excludedGroup(parts));
}

/**
 * The rows the query matches that hold one of the ranked phrases at `holding`, as two expressions over disjoint
 * rows: those also holding one of the other ranked phrases, and those holding none of them. Each phrase appears
 * once in each, so FTS5's bm25 of either is the query's own score of its rows (a phrase a row lacks adds
 * nothing), and each can be ordered and cut inside SQLite. `holding` must leave out at least one ranked phrase.
 */
export function joinFtsHolding(parts: FtsParts, holding: readonly number[]): { withRest: string; withoutRest: string } {
  const kept = new Set(holding);
  const selecting = joinFtsPhrases(parts, holding);
  const rest = joinFtsPhrases(
    parts,
    parts.ranked.map((_, index) => index).filter((index) => !kept.has(index)),
  );
  const excluded = excludedGroup(parts);
  return {
    withRest: excludeFrom([selecting, rest, ...parts.required], excluded),
    withoutRest: excludeFrom([selecting, ...parts.required], excluded === null ? rest : `(${rest} OR ${excluded})`),
  };
}

function excludedGroup(parts: FtsParts): string | null {
  return parts.excluded.length > 0 ? `${OWN_COLUMNS} : (${parts.excluded.join(' OR ')})` : null;
}

/** `operands` joined by AND, the last without `excluded`: NOT binds tighter than AND, so AND stays the root. */
function excludeFrom(operands: readonly string[], excluded: string | null): string {
  const expression = operands.join(' AND ');
  return excluded === null ? expression : `${expression} NOT ${excluded}`;
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
  return quoteAll(terms.filter((term) => [...term].length >= 3));
}

function quoteAll(terms: readonly string[]): string[] {
  return distinctPhraseTexts(terms).map(quoteText);
}

/** A phrase text (distinctPhraseTexts) as an FTS5 string, quotes doubled. */
function quoteText(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}
