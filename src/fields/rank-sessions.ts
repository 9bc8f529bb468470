import type { SessionFieldPort } from '../store/ports.js';
import { SESSION_FIELDS, type SessionField, type SessionFieldPosting, type SessionFieldStats } from '../store/types.js';
import { toFieldQueryTerms } from './field-doc.js';

/**
 * Sessions ranked by their fields (digest/session-fields.ts) with BM25F: each term's frequencies in the fields, weighted
 * and normalised by each field's length, summed before saturation — a word in the title and again in the digest
 * counts as more of the same word, not as two matches. The engines hand back counts and postings; the score is
 * computed here, so every engine ranks alike to the last bit.
 */

/** How much a field's words count: a title names the whole session; the rest describe it. */
export const FIELD_WEIGHTS: Readonly<Record<SessionField, number>> = { title: 2, summary: 1, digest: 1, files: 1, errors: 1 };
export const FIELD_BM25 = { k1: 1.2, b: 0.75 } as const;
/**
 * Postings read per query at most, rarest terms first: a term whose postings would pass it is left out, and every
 * commoner one (held by thousands of sessions, it would add little to any).
 */
export const FIELD_POSTING_BUDGET = 50_000;

export interface RankedSession {
  sessionId: string;
  score: number;
  /**
   * The share of the query's weight (its terms' idf summed, a term no field holds weighing as the rarest) that
   * the session's fields hold: two common words of ten are a weak match however they rank.
   */
  coverage: number;
  /** The fields that matched, each with the query's words it holds, in field order. */
  fields: { field: SessionField; terms: string[] }[];
}

/** The query's words looked up in the fields of every session; the best `limit` sessions, best first. */
export async function rankSessionsByFields(
  port: SessionFieldPort,
  words: readonly string[],
  options: { fields: readonly SessionField[]; limit: number },
): Promise<RankedSession[]> {
  if (options.fields.length === 0) return [];
  const terms = toFieldQueryTerms(words);
  if (terms.length === 0) return [];
  const counts = await port.countTerms(terms, options.fields);
  const kept = selectFieldTerms(terms, counts, FIELD_POSTING_BUDGET);
  if (kept.length === 0) return [];
  const [stats, postings] = [await port.readStats(), await port.listPostings(kept, options.fields)];
  const sessions = new Map([...counts].map(([term, count]) => [term, count.sessions]));
  const ranked = scoreSessions({ terms: kept, allTerms: terms, stats, sessions, postings, fields: options.fields }).slice(0, options.limit);
  // Explain names the words as the query had them ("exporter"), not as the index stems them ("export").
  const wordOf = new Map<string, string>();
  for (const word of words) for (const term of toFieldQueryTerms([word])) if (!wordOf.has(term)) wordOf.set(term, word.toLowerCase());
  for (const session of ranked) {
    session.fields = session.fields.map(({ field, terms: held }) => ({ field, terms: [...new Set(held.map((term) => wordOf.get(term) ?? term))] }));
  }
  return ranked;
}

/** The query's terms some session holds, rarest first while their postings fit the budget, in the query's order. */
export function selectFieldTerms(
  terms: readonly string[],
  counts: ReadonlyMap<string, { postings: number; sessions: number }>,
  budget: number,
): string[] {
  const held = terms.filter((term) => (counts.get(term)?.postings ?? 0) > 0);
  const byRarity = [...held].sort((a, b) => counts.get(a)!.postings - counts.get(b)!.postings || (a < b ? -1 : a > b ? 1 : 0));
  const kept = new Set<string>();
  let total = 0;
  for (const term of byRarity) {
    total += counts.get(term)!.postings;
    if (total > budget) break;
    kept.add(term);
  }
  return held.filter((term) => kept.has(term));
}

export interface ScoreInput {
  /** Query terms, in the query's order: each session's score is summed in it. */
  terms: readonly string[];
  /** Every term of the query, those left out of the postings too (coverage's whole); default `terms`. */
  allTerms?: readonly string[];
  stats: SessionFieldStats;
  /** Sessions holding each term in any field (BM25's document frequency). */
  sessions: ReadonlyMap<string, number>;
  postings: readonly SessionFieldPosting[];
  /** The fields that rank; the others are ignored. */
  fields: readonly SessionField[];
}

/** BM25F over the postings given: every session holding a term, best first (ties by session id). */
export function scoreSessions(input: ScoreInput): RankedSession[] {
  const { stats } = input;
  if (stats.sessions === 0) return [];
  const using = new Set(input.fields);
  const lengths = new Map<string, Record<SessionField, number>>();
  // session → term → field → tf
  const found = new Map<string, Map<string, Map<SessionField, number>>>();
  for (const posting of input.postings) {
    if (!using.has(posting.field)) continue;
    let terms = found.get(posting.sessionId);
    if (!terms) found.set(posting.sessionId, (terms = new Map()));
    let fields = terms.get(posting.term);
    if (!fields) terms.set(posting.term, (fields = new Map()));
    fields.set(posting.field, posting.tf);
    let known = lengths.get(posting.sessionId);
    if (!known) lengths.set(posting.sessionId, (known = emptyLengths()));
    known[posting.field] = posting.length;
  }
  const idfOf = (term: string): number => {
    const df = input.sessions.get(term) ?? 0;
    return Math.log(1 + (stats.sessions - df + 0.5) / (df + 0.5));
  };
  let whole = 0;
  for (const term of input.allTerms ?? input.terms) whole += idfOf(term);
  const average = Object.fromEntries(SESSION_FIELDS.map((field) => [field, stats.totalLengths[field] / stats.sessions])) as Record<SessionField, number>;
  const ranked: RankedSession[] = [];
  for (const [sessionId, terms] of found) {
    const sessionLengths = lengths.get(sessionId) ?? emptyLengths();
    let score = 0;
    let held = 0;
    const matched = new Map<SessionField, string[]>();
    for (const term of input.terms) {
      const fields = terms.get(term);
      if (!fields) continue;
      let weighted = 0;
      for (const field of SESSION_FIELDS) {
        const tf = fields.get(field);
        if (tf === undefined) continue;
        const norm = 1 - FIELD_BM25.b + (FIELD_BM25.b * sessionLengths[field]) / Math.max(average[field], 1);
        weighted += (FIELD_WEIGHTS[field] * tf) / norm;
        matched.set(field, [...(matched.get(field) ?? []), term]);
      }
      if (weighted === 0) continue;
      const idf = idfOf(term);
      held += idf;
      score += (idf * weighted * (FIELD_BM25.k1 + 1)) / (weighted + FIELD_BM25.k1);
    }
    if (score <= 0) continue;
    ranked.push({
      sessionId,
      score: Math.round(score * 1e9) / 1e9,
      coverage: whole > 0 ? Math.round((held / whole) * 1e9) / 1e9 : 0,
      fields: SESSION_FIELDS.filter((field) => matched.has(field)).map((field) => ({ field, terms: matched.get(field)! })),
    });
  }
  return ranked.sort((a, b) => b.score - a.score || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
}

function emptyLengths(): Record<SessionField, number> {
  return { title: 0, summary: 0, digest: 0, files: 0, errors: 0 };
}
