import { tokenizeFtsQueryTerm } from '../../text/fts-tokens.js';
import type { LexicalQuery } from '../types.js';

/**
 * A word query as postings answer it, in the order and with the duplicates FTS5 sees it (sqlite/fts-query.ts:
 * terms deduplicated as written, so "deploy" and "deploys" are two phrases of one term, each counted): each ranked
 * term a phrase over every search column (or the entry's own when the neighbours' context is off), each required
 * term a phrase over the entry's own columns. A phrase of one term is walked in the postings; a phrase of several
 * words or a prefix (`text`) is scored by the engine's full-text index, which knows positions. Null when a term
 * yields no token at all (FTS5 alone answers those, as before postings).
 */
export interface QueryPhrase {
  /** The phrase's one term (postings), or null: `text` is scored by the engine. */
  term: string | null;
  /** The term as written (a NUL read as a space), for the engine. */
  text: string;
  prefix: boolean;
  columns: 'all' | 'own';
  /** Every match holds it: a required term, or every ranked term of an all-terms query. */
  must: boolean;
}

export function toPostingPhrases(
  query: Pick<LexicalQuery, 'any' | 'all' | 'none' | 'context' | 'every' | 'prefix'>,
): { phrases: QueryPhrase[]; excluded: QueryPhrase[] } | null {
  const prefix = query.prefix === true;
  const columns = query.context === false ? 'own' : 'all';
  const ranked = readPhrases(query.any, { prefix, columns, must: query.every === true });
  const required = readPhrases(query.all, { prefix: false, columns: 'own', must: true });
  const excluded = readPhrases(query.none, { prefix: false, columns: 'own', must: false });
  if (ranked === null || required === null || excluded === null) return null;
  if (ranked.length === 0 && required.length === 0) return null;
  return { phrases: [...ranked, ...required], excluded };
}

/**
 * The query's terms as FTS5 phrases take them: those with a letter or digit (tokenizer separators alone make an
 * empty phrase), a NUL read as a space (FTS5 reads the expression as a C string; to the tokenizers NUL separates
 * like a space), each distinct text once, in order.
 */
export function distinctPhraseTexts(terms: readonly string[]): string[] {
  const texts = new Set<string>();
  for (const term of terms) {
    if (!/[\p{L}\p{N}]/u.test(term)) continue;
    texts.add(term.includes('\0') ? term.replace(/\0/g, ' ') : term);
  }
  return [...texts];
}

function readPhrases(terms: readonly string[], shape: Pick<QueryPhrase, 'prefix' | 'columns' | 'must'>): QueryPhrase[] | null {
  const phrases: QueryPhrase[] = [];
  for (const text of distinctPhraseTexts(terms)) {
    const tokens = tokenizeFtsQueryTerm(text);
    if (tokens.length === 0) return null;
    phrases.push({ term: tokens.length === 1 && !shape.prefix ? tokens[0]! : null, text, ...shape });
  }
  return phrases;
}
