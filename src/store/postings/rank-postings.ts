import { type PhraseCursor, PostingCursor, ScoredCursor, type StoredBlock } from './posting-cursor.js';
import { inverseDocumentFrequency, roundScore } from '../top-k.js';

/**
 * The exact BM25 top k of one word list from postings of moon's own (block-codec.ts), without scoring every
 * match: MaxScore with block maxima. Phrases are sorted by the most they add to an entry; once the k-th best
 * score θ is above what the lowest ones add together, those are no longer walked — only looked up, block by
 * block, for the entries the others bring, and not even that where their block's maximum cannot lift the
 * entry to θ. An entry is scored exactly, as FTS5's bm25 scores it (its phrases summed in the query's order),
 * before it is kept.
 *
 * The result is every matching entry scoring at least the k-th best (rounded, as store/top-k.ts rounds), so the
 * caller breaks ties at the cut by time, as every list does.
 */
export interface PostingPhrase {
  /** The one term of the phrase, whose postings are walked... */
  term: string | null;
  /** ...or the phrase's entries already scored (several words, a prefix: the engine's full-text index scored them). */
  scored?: ScoredEntries;
  /** Frequencies over every search column, or the entry's own (no neighbours' context). */
  columns: 'all' | 'own';
  /** Every match holds it: a required term, or every ranked term of an all-terms query. */
  must: boolean;
}

/** Row ids ascending, each with the phrase's BM25 contribution. */
export interface ScoredEntries {
  rowids: Float64Array;
  scores: Float64Array;
}

export interface PostingQuery {
  /** In the query's order: scores are summed in it. */
  phrases: readonly PostingPhrase[];
  /** Terms no match may hold in its own columns; or (several words) the entries holding them. */
  excluded: readonly (string | Float64Array)[];
  /** Each term's blocks, in row id order (a term no entry holds: none). */
  blocks: ReadonlyMap<string, readonly StoredBlock[]>;
  /** BM25's N and average document length. */
  rows: number;
  avgLength: number;
  limit: number;
  /** Whether an entry passes the list's filters; asked only of entries that would be kept. */
  accept?: (rowid: number) => boolean;
}

export interface RankedRow {
  rowid: number;
  /** Rounded (store/top-k.ts roundScore). */
  score: number;
}

/**
 * Margins for sums taken in another order than the exact score's (relative), and for scores rounded to 9
 * decimals (absolute): an entry is passed over only when even its rounded score is below θ.
 */
const SAFETY = 1 + 1e-9;
const ROUNDING = 1e-9;

/** Whether a score of at most `score` stays below θ however it is summed and rounded. */
function isBelow(score: number, threshold: number): boolean {
  return score * SAFETY + ROUNDING < threshold;
}

export function rankPostings(query: PostingQuery): RankedRow[] {
  const { phrases, limit } = query;
  if (phrases.length === 0 || limit <= 0 || query.rows === 0) return [];
  const cursors: PhraseCursor[] = phrases.map((phrase) => {
    if (phrase.scored) return new ScoredCursor(phrase.scored.rowids, phrase.scored.scores);
    const blocks = query.blocks.get(phrase.term ?? '') ?? [];
    const own = phrase.columns === 'own';
    const idf = inverseDocumentFrequency(query.rows, PostingCursor.countHolding(blocks, own));
    return new PostingCursor(blocks, own, idf, query.avgLength);
  });
  const excluded = query.excluded.map((term) =>
    typeof term === 'string' ? new PostingCursor(query.blocks.get(term) ?? [], true, 0, query.avgLength) : new ScoredCursor(term, new Float64Array(term.length)),
  );
  const kept = new TopScores(limit);
  const found: RankedRow[] = [];
  const parts = new Float64Array(phrases.length);
  const keep = (rowid: number, roughScore: number): void => {
    if (isBelow(roughScore, kept.threshold())) return;
    for (const cursor of excluded) {
      cursor.seek(rowid);
      if (cursor.rowid === rowid) return;
    }
    if (query.accept && !query.accept(rowid)) return;
    // The exact score: every phrase's part, summed in the query's order.
    let score = 0;
    for (let index = 0; index < parts.length; index += 1) score += parts[index]!;
    const rounded = roundScore(score);
    kept.offer(rounded);
    found.push({ rowid, score: rounded });
  };
  const musts = phrases.map((phrase, index) => (phrase.must ? index : -1)).filter((index) => index >= 0);
  if (musts.length > 0) walkRequired(cursors, phrases, musts, parts, kept, keep);
  else walkAny(cursors, parts, kept, keep);
  const threshold = kept.threshold();
  return found.filter((row) => row.score >= threshold).sort((a, b) => b.score - a.score || a.rowid - b.rowid);
}

/**
 * No phrase required: entries holding any phrase. The phrases are ordered by bound; those whose bounds together
 * stay below θ are looked up only (MaxScore), the others walked.
 */
function walkAny(cursors: PhraseCursor[], parts: Float64Array, kept: TopScores, keep: (rowid: number, score: number) => void): void {
  const order = cursors.map((cursor, index) => ({ cursor, index, bound: cursor.bound() })).sort((a, b) => a.bound - b.bound);
  // below[i]: the most the i lowest-bound phrases add together.
  const below = new Float64Array(order.length + 1);
  for (let i = 0; i < order.length; i += 1) below[i + 1] = below[i]! + order[i]!.bound;
  const total = below[order.length]!;
  let firstWalked = 0;
  for (;;) {
    const threshold = kept.threshold();
    while (firstWalked < order.length && isBelow(below[firstWalked + 1]!, threshold)) firstWalked += 1;
    if (firstWalked >= order.length) return;
    // Block-max: a walked phrase's next block is passed over unread when even its maximum, with every other
    // phrase's bound, stays below θ — none of its entries can reach the top, whatever else they hold.
    for (let i = firstWalked; i < order.length; i += 1) {
      const { cursor, bound } = order[i]!;
      while (cursor.rowid !== Infinity && isBelow(cursor.blockBound() + total - bound, threshold)) cursor.skipBlock();
    }
    let rowid = Infinity;
    for (let i = firstWalked; i < order.length; i += 1) rowid = Math.min(rowid, order[i]!.cursor.rowid);
    if (rowid === Infinity) return;
    parts.fill(0);
    let score = 0;
    for (let i = firstWalked; i < order.length; i += 1) {
      const { cursor, index } = order[i]!;
      if (cursor.rowid !== rowid) continue;
      const part = cursor.score();
      parts[index] = part;
      score += part;
      cursor.next();
    }
    let pruned = false;
    for (let i = firstWalked - 1; i >= 0; i -= 1) {
      // The looked-up phrases left, at most: if they cannot lift the entry to θ, it is not kept.
      if (isBelow(score + below[i + 1]!, threshold)) {
        pruned = true;
        break;
      }
      const { cursor, index } = order[i]!;
      // Not even this phrase's block maximum lifts it to θ: not kept, whether it holds the phrase or not.
      if (isBelow(score + below[i]! + cursor.boundAt(rowid), threshold)) {
        pruned = true;
        break;
      }
      cursor.seek(rowid);
      if (cursor.rowid !== rowid) continue;
      const part = cursor.score();
      parts[index] = part;
      score += part;
    }
    if (!pruned) keep(rowid, score);
  }
}

/**
 * Some phrases required: the entries of the rarest required phrase are walked, each looked up in the other
 * required phrases (all must hold it) and then in the ranked ones (one must, when there are any).
 */
function walkRequired(
  cursors: PhraseCursor[],
  phrases: readonly PostingPhrase[],
  musts: number[],
  parts: Float64Array,
  kept: TopScores,
  keep: (rowid: number, score: number) => void,
): void {
  const driverIndex = musts.reduce((best, index) => (cursors[index]!.bound() > cursors[best]!.bound() ? index : best), musts[0]!);
  const driver = cursors[driverIndex]!;
  const others = musts.filter((index) => index !== driverIndex);
  const ranked = phrases.map((_, index) => index).filter((index) => !phrases[index]!.must);
  const rankedBounds = ranked.map((index) => cursors[index]!.bound());
  const rankedTotal = rankedBounds.reduce((sum, bound) => sum + bound, 0);
  const otherBound = others.reduce((sum, index) => sum + cursors[index]!.bound(), 0);
  for (; driver.rowid !== Infinity; driver.next()) {
    const rowid = driver.rowid;
    const threshold = kept.threshold();
    parts.fill(0);
    let score = driver.score();
    parts[driverIndex] = score;
    if (isBelow(score + otherBound + rankedTotal, threshold)) continue;
    let holds = true;
    for (const index of others) {
      const cursor = cursors[index]!;
      cursor.seek(rowid);
      if (cursor.rowid !== rowid) {
        holds = false;
        break;
      }
      const part = cursor.score();
      parts[index] = part;
      score += part;
    }
    if (!holds) continue;
    let any = ranked.length === 0;
    for (const index of ranked) {
      const cursor = cursors[index]!;
      cursor.seek(rowid);
      if (cursor.rowid !== rowid) continue;
      const part = cursor.score();
      parts[index] = part;
      score += part;
      any = true;
    }
    if (any) keep(rowid, score);
  }
}

/** The k best scores seen: θ is the k-th, or −∞ while fewer than k were kept. */
class TopScores {
  private readonly heap: number[] = [];

  constructor(private readonly limit: number) {}

  threshold(): number {
    return this.heap.length < this.limit ? -Infinity : this.heap[0]!;
  }

  offer(score: number): void {
    const heap = this.heap;
    if (heap.length < this.limit) {
      heap.push(score);
      let at = heap.length - 1;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (heap[parent]! <= heap[at]!) break;
        [heap[parent], heap[at]] = [heap[at]!, heap[parent]!];
        at = parent;
      }
      return;
    }
    if (score <= heap[0]!) return;
    heap[0] = score;
    let at = 0;
    for (;;) {
      const left = at * 2 + 1;
      const right = left + 1;
      let least = at;
      if (left < heap.length && heap[left]! < heap[least]!) least = left;
      if (right < heap.length && heap[right]! < heap[least]!) least = right;
      if (least === at) break;
      [heap[least], heap[at]] = [heap[at]!, heap[least]!];
      at = least;
    }
  }
}
