import { type BlockStats, type PostingBlock, decodeBlock } from './block-codec.js';
import { BM25_K1 } from '../top-k.js';

/** A stored block: its statistics and its packed postings. */
export interface StoredBlock extends BlockStats {
  data: Uint8Array;
}

/** BM25's b, as FTS5 uses it. */
const BM25_B = 0.75;

/**
 * BM25's term-frequency part of one posting, in the order of operations FTS5's bm25 uses, so a score summed
 * from these equals FTS5's: (w·(k1 + 1)) / (w + k1·(1 − b + b·D/avgD)), w the column-weighted frequency.
 */
export function weighFrequency(tenths: number, length: number, avgLength: number): number {
  const w = tenths / 10;
  return (w * (BM25_K1 + 1.0)) / (w + BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgLength));
}

/**
 * Walks one term's postings in row id order, over every search column or the entry's own (then only postings
 * whose own columns hold the term). Blocks are unpacked when the walk enters them; a seek skips whole blocks
 * by their last row id.
 */
export class PostingCursor {
  private readonly blocks: StoredBlock[];
  private block = -1;
  private postings: PostingBlock | null = null;
  private at = 0;
  /** The current posting's row id, Infinity when the walk is over. */
  rowid = Infinity;

  constructor(
    blocks: readonly StoredBlock[],
    private readonly own: boolean,
    readonly idf: number,
    private readonly avgLength: number,
  ) {
    this.blocks = own ? blocks.filter((block) => block.ownCount > 0) : [...blocks];
    this.enterBlock(0);
  }

  /** Entries holding the term (BM25's document frequency). */
  static countHolding(blocks: readonly StoredBlock[], own: boolean): number {
    let count = 0;
    for (const block of blocks) count += own ? block.ownCount : block.count;
    return count;
  }

  /** The most this term adds to any entry. */
  bound(): number {
    let best = 0;
    for (const block of this.blocks) best = Math.max(best, this.boundOf(block));
    return best;
  }

  /** The current posting's BM25 contribution. */
  score(): number {
    const postings = this.unpack();
    return this.idf * weighFrequency(this.own ? postings.own[this.at]! : postings.all[this.at]!, postings.lengths[this.at]!, this.avgLength);
  }

  next(): void {
    this.unpack();
    this.at += 1;
    this.settle();
  }

  /** Moves to the first posting at or after `rowid`. */
  seek(rowid: number): void {
    if (this.rowid >= rowid) return;
    if (this.blocks[this.block]!.lastRowid < rowid) {
      const index = this.findBlock(rowid);
      if (index >= this.blocks.length) {
        this.block = this.blocks.length;
        this.postings = null;
        this.rowid = Infinity;
        return;
      }
      this.enterBlock(index);
    }
    const rowids = this.unpack().rowids;
    while (this.at < rowids.length && rowids[this.at]! < rowid) this.at += 1;
    this.settle();
  }

  /**
   * The most the term can add at `rowid`, from the statistics of the block that would hold it, without
   * unpacking it (0 when no block can).
   */
  boundAt(rowid: number): number {
    if (this.rowid === rowid) return this.score();
    if (this.rowid > rowid) return 0;
    const block = this.blocks[this.findBlock(rowid)];
    return block && block.firstRowid <= rowid ? this.boundOf(block) : 0;
  }

  /** The most the term adds to any entry of `block`: its largest frequency at its shortest length. */
  private boundOf(block: StoredBlock): number {
    return this.idf * weighFrequency(this.own ? block.maxOwn : block.maxAll, block.minLength, this.avgLength);
  }

  /** The first block from the current one whose last row id is at or past `rowid`. */
  private findBlock(rowid: number): number {
    return gallop(Math.max(this.block, 0), this.blocks.length, (index) => this.blocks[index]!.lastRowid < rowid);
  }

  /**
   * The bound of the block the walk is at the start of, not yet unpacked (Infinity once it is: a block is
   * skipped whole only before any of it was read).
   */
  blockBound(): number {
    const block = this.blocks[this.block];
    return this.postings === null && block ? this.boundOf(block) : Infinity;
  }

  /** Past the current block without reading it (block-max: none of its entries can reach the top). */
  skipBlock(): void {
    this.enterBlock(this.block + 1);
  }

  private enterBlock(index: number): void {
    this.block = index;
    this.at = 0;
    this.postings = null;
    const block = this.blocks[index];
    if (!block) {
      this.rowid = Infinity;
      return;
    }
    if (this.own) {
      // An own-column walk may start past the block's first row: unpacked at once.
      this.unpack();
      this.settle();
    } else this.rowid = block.firstRowid;
  }

  private unpack(): PostingBlock {
    if (this.postings === null) this.postings = decodeBlock(this.blocks[this.block]!.data);
    return this.postings;
  }

  /** Past the block's end: the next block; on an own-column walk, past postings whose own columns lack the term. */
  private settle(): void {
    for (;;) {
      const postings = this.postings;
      if (postings === null) {
        this.rowid = Infinity;
        return;
      }
      if (this.at >= postings.rowids.length) {
        this.enterBlock(this.block + 1);
        return;
      }
      if (this.own && postings.own[this.at] === 0) {
        this.at += 1;
        continue;
      }
      this.rowid = postings.rowids[this.at]!;
      return;
    }
  }
}

/**
 * A phrase's entries with their contributions already scored (by the engine's full-text index: a phrase of
 * several words, a prefix), walked like a term's postings. One block: its bound is its best contribution.
 */
export class ScoredCursor {
  private at = 0;
  rowid: number;
  private readonly best: number;

  constructor(
    private readonly rowids: Float64Array,
    private readonly scores: Float64Array,
  ) {
    this.rowid = rowids.length > 0 ? rowids[0]! : Infinity;
    let best = 0;
    for (const score of scores) best = Math.max(best, score);
    this.best = best;
  }

  bound(): number {
    return this.best;
  }

  score(): number {
    return this.scores[this.at]!;
  }

  next(): void {
    this.at += 1;
    this.rowid = this.at < this.rowids.length ? this.rowids[this.at]! : Infinity;
  }

  seek(rowid: number): void {
    if (this.rowid >= rowid) return;
    this.at = gallop(this.at, this.rowids.length, (index) => this.rowids[index]! < rowid);
    this.rowid = this.at < this.rowids.length ? this.rowids[this.at]! : Infinity;
  }

  boundAt(rowid: number): number {
    if (this.rowid === rowid) return this.score();
    return this.rowid > rowid ? 0 : this.best;
  }

  /** One block, never skipped whole. */
  blockBound(): number {
    return Infinity;
  }

  skipBlock(): void {}
}

/** What ranking walks: a term's postings or a phrase's scored entries. */
export type PhraseCursor = PostingCursor | ScoredCursor;

/**
 * The first index from `start` (below `length`) where `isBefore` no longer holds — it holds for a prefix — found by
 * galloping from `start`, then halving: a few steps when the answer is near, as it is for a walk's next seek.
 */
function gallop(start: number, length: number, isBefore: (index: number) => boolean): number {
  if (start >= length || !isBefore(start)) return start;
  let low = start;
  let step = 1;
  while (low + step < length && isBefore(low + step)) {
    low += step;
    step *= 2;
  }
  let high = Math.min(low + step, length);
  low += 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (isBefore(middle)) low = middle + 1;
    else high = middle;
  }
  return low;
}
