/**
 * Exact top-k for BM25 lists without scoring every match: MaxScore over the query's terms. Every engine ranks
 * its word and substring lists through `rankExactTopK`, so what is pruned, and when pruning is safe, is decided
 * here once.
 *
 * BM25 is a sum over the query's phrases, and one phrase adds at most idf × (k1 + 1) to any entry (its term
 * frequency part, w(k1+1) / (w + k1(1 − b + b·D/avgD)), stays below k1 + 1 for every w and D). Sort the phrases
 * by that bound, highest (rarest) first. Score, exactly and with every phrase, the entries holding one of the
 * first m; call the k-th best score θ. An entry holding none of them holds only the other phrases, so it scores
 * below the sum of their bounds: once that sum is below θ, no unscored entry can reach the top k, and the k
 * best scored are the exact top k. Otherwise m grows — straight to where the tail of bounds falls below the θ
 * already found (θ only rises as m does) — and the check is made again. A common word is then read only for
 * the entries a rarer word already brought, however many entries hold it. A phrase no entry holds adds nothing
 * and is never read.
 */

/** BM25's k1, as FTS5 uses it (k1 1.2, b 0.75). */
export const BM25_K1 = 1.2;

/** FTS5's BM25 inverse document frequency: never below a tiny positive value, so common words still count. */
export function inverseDocumentFrequency(rows: number, hits: number): number {
  const idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/** The most one phrase with this document frequency can add to an entry's BM25 score: nothing when no entry holds it. */
export function phraseBound(rows: number, hits: number): number {
  return hits === 0 ? 0 : inverseDocumentFrequency(rows, hits) * (BM25_K1 + 1);
}

/**
 * Decimals a BM25 list's scores are rounded to before they are ordered (then newest first, then by row id). The
 * engines reach the same score by different sums (FTS5's bm25, PostgreSQL's per-phrase terms), which differ in
 * the last bits; rounded, equal scores are equal and ties break the same way on every engine and path.
 */
export const SCORE_DECIMALS = 9;

export function roundScore(score: number): number {
  return Math.round(score * 1e9) / 1e9;
}

/** A margin for the engines computing IDF in their own floating point (PostgreSQL's and FTS5's logs, ours). */
const SAFETY = 1 + 1e-9;

export interface TopKPlan {
  /** Bound of each ranked (any) phrase, in the query's order. */
  bounds: readonly number[];
  /** What every match adds at most beyond its ranked phrases (required phrases' bounds). */
  fixed: number;
  limit: number;
}

/**
 * Scores every match holding at least one of the phrases at `essential` (indexes in query order) with every
 * phrase of the query, best first in the list's own order (score, then its tie-breaks).
 */
export type ScoreHolding<C> = (essential: number[]) => C[];

/** The exact top `limit` by score, asking `scoreHolding` with more phrases until the rest cannot reach the top. */
export function rankExactTopK<C extends { score: number }>(plan: TopKPlan, scoreHolding: ScoreHolding<C>): C[] {
  const steps = planSteps(plan);
  let essential = steps.first;
  for (;;) {
    const scored = scoreHolding(steps.phrases(essential));
    const next = steps.next(essential, scored);
    if (next === null) return scored.slice(0, plan.limit);
    essential = next;
  }
}

/** rankExactTopK for an engine that scores asynchronously. */
export async function rankExactTopKAsync<C extends { score: number }>(plan: TopKPlan, scoreHolding: (essential: number[]) => Promise<C[]>): Promise<C[]> {
  const steps = planSteps(plan);
  let essential = steps.first;
  for (;;) {
    const scored = await scoreHolding(steps.phrases(essential));
    const next = steps.next(essential, scored);
    if (next === null) return scored.slice(0, plan.limit);
    essential = next;
  }
}

function planSteps(plan: TopKPlan) {
  const count = plan.bounds.length;
  const order = plan.bounds.map((bound, index) => ({ bound, index })).sort((a, b) => b.bound - a.bound || a.index - b.index);
  // tail[m]: the most an entry holding none of the first m phrases can score.
  const tail = new Array<number>(count + 1).fill(plan.fixed);
  for (let m = count - 1; m >= 0; m -= 1) tail[m] = tail[m + 1]! + order[m]!.bound;
  return {
    first: Math.min(1, count),
    phrases: (essential: number) => order.slice(0, essential).map((item) => item.index),
    /** How many phrases to score with next, or null when `scored` (with the first `essential`) is exact. */
    next(essential: number, scored: readonly { score: number }[]): number | null {
      if (essential >= count) return null;
      // Short of the limit: the next phrase may bring more rows, unless no entry holds any of those left.
      if (scored.length < plan.limit) return order[essential]!.bound > 0 ? essential + 1 : null;
      const threshold = scored[plan.limit - 1]!.score;
      let next = essential;
      while (next < count && tail[next]! * SAFETY >= threshold) next += 1;
      return next === essential ? null : next;
    },
  };
}

/** Best first as every list orders: rounded score, then newest, then row id; the first `limit`. */
export function orderCandidates<C extends { rowid: number; score: number; entry: { ts: number | null } }>(candidates: C[], limit: number): C[] {
  return candidates.sort((a, b) => b.score - a.score || (b.entry.ts ?? -Infinity) - (a.entry.ts ?? -Infinity) || a.rowid - b.rowid).slice(0, limit);
}

/**
 * The best `limit` of a ranked list whose rows tie at the cut, ordered by the same rule on their times alone (so
 * whole entries are read for the kept only); rows without a time (`times` lacks them: gone) are left out.
 */
export function selectNewestAtCut<R extends { rowid: number; score: number }>(ranked: R[], times: ReadonlyMap<number, number | null>, limit: number): R[] {
  const at = (rowid: number) => times.get(rowid) ?? -Infinity;
  return ranked
    .filter((row) => times.has(row.rowid))
    .sort((a, b) => b.score - a.score || at(b.rowid) - at(a.rowid) || a.rowid - b.rowid)
    .slice(0, limit);
}
