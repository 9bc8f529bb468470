import { SESSION_FIELDS, type SessionField, type SessionFieldDoc, type SessionFieldTerm } from '../store/types.js';
import { tokenizeFts } from '../text/fts-tokens.js';

/** The version of what the fields hold (digest/session-fields.ts): bumped, every session's fields are made again. */
export const FIELDS_VERSION = 1;

/**
 * A session's fields as the index stores them: each field's terms counted, tokenized exactly as the word index
 * tokenizes messages and queries (text/fts-tokens.ts), so a query's words meet them on every engine alike.
 */
export function toFieldDoc(sessionId: string, texts: Record<SessionField, string>): SessionFieldDoc {
  const terms: SessionFieldTerm[] = [];
  const lengths = {} as Record<SessionField, number>;
  for (const field of SESSION_FIELDS) {
    const tokens = tokenizeFts(texts[field]);
    lengths[field] = tokens.length;
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    for (const [term, tf] of counts) terms.push({ field, term, tf });
  }
  return { sessionId, version: FIELDS_VERSION, texts, lengths, terms };
}

/** The terms a query's words are looked up by in the fields: each word tokenized as the fields are, each term once. */
export function toFieldQueryTerms(words: readonly string[]): string[] {
  return [...new Set(words.flatMap((word) => tokenizeFts(word)))];
}
