import { tokenizeFtsQueryTerm } from '../../text/fts-tokens.js';
import type { LexicalQuery } from '../types.js';
import type { PostingPhrase } from './rank-postings.js';

/**
 * A word query as postings answer it: each ranked term a phrase over every search column (or the entry's own
 * when the neighbours' context is off), each required term a phrase over the entry's own columns, in the order
 * and with the duplicates FTS5 sees them (sqlite/fts-query.ts: terms deduplicated as written, so "deploy" and
 * "deploys" are two phrases of one term, each counted). Null when a phrase is not one term — several words, a
 * prefix, or a term that yields no token — which the engine's own full-text index answers instead.
 */
export function toPostingPhrases(
  query: Pick<LexicalQuery, 'any' | 'all' | 'none' | 'context' | 'every' | 'prefix'>,
): { phrases: PostingPhrase[]; excluded: string[] } | null {
  if (query.prefix) return null;
  const ranked = singleTerms(query.any);
  const required = singleTerms(query.all);
  const excluded = singleTerms(query.none);
  if (ranked === null || required === null || excluded === null) return null;
  if (ranked.length === 0 && required.length === 0) return null;
  const columns = query.context === false ? 'own' : 'all';
  return {
    phrases: [
      ...ranked.map((term) => ({ term, columns, must: query.every === true }) as PostingPhrase),
      ...required.map((term) => ({ term, columns: 'own', must: true }) as PostingPhrase),
    ],
    excluded,
  };
}

/** Each distinct term as written (a NUL read as a space) to its one token; null if any has several or none. */
function singleTerms(terms: readonly string[]): string[] | null {
  const seen = new Set<string>();
  const tokens: string[] = [];
  for (const term of terms) {
    if (!/[\p{L}\p{N}]/u.test(term)) continue;
    const safe = term.includes('\0') ? term.replace(/\0/g, ' ') : term;
    if (seen.has(safe)) continue;
    seen.add(safe);
    const found = tokenizeFtsQueryTerm(safe);
    if (found.length !== 1) return null;
    tokens.push(found[0]!);
  }
  return tokens;
}
