/**
 * A block of postings of one term: up to BLOCK_SIZE entries in row id order, each its row id, its frequencies
 * (tenths, over every search column and over the entry's own) and its length, packed as unsigned varints (row
 * ids as the gap to the one before). A block is stored with the statistics pruning reads without unpacking it.
 */
export const BLOCK_SIZE = 128;

export interface PostingBlock {
  rowids: number[];
  all: number[];
  own: number[];
  lengths: number[];
}

/** Postings in columns, read only: a block, or a run of a larger batch (typed arrays, views into it). */
export interface PostingColumns {
  rowids: ArrayLike<number>;
  all: ArrayLike<number>;
  own: ArrayLike<number>;
  lengths: ArrayLike<number>;
}

export interface BlockStats {
  firstRowid: number;
  lastRowid: number;
  /** Postings in the block; `ownCount` those whose own columns hold the term. */
  count: number;
  ownCount: number;
  /** Largest frequencies (tenths) and smallest length: a bound on any posting's BM25 part. */
  maxAll: number;
  maxOwn: number;
  minLength: number;
}

export function emptyBlock(): PostingBlock {
  return { rowids: [], all: [], own: [], lengths: [] };
}

export function measureBlock(block: PostingColumns): BlockStats {
  let maxAll = 0;
  let maxOwn = 0;
  let ownCount = 0;
  let minLength = Number.MAX_SAFE_INTEGER;
  for (let index = 0; index < block.rowids.length; index += 1) {
    maxAll = Math.max(maxAll, block.all[index]!);
    const own = block.own[index]!;
    if (own > 0) ownCount += 1;
    maxOwn = Math.max(maxOwn, own);
    minLength = Math.min(minLength, block.lengths[index]!);
  }
  return {
    firstRowid: block.rowids[0] ?? 0,
    lastRowid: block.rowids[block.rowids.length - 1] ?? 0,
    count: block.rowids.length,
    ownCount,
    maxAll,
    maxOwn,
    minLength: block.rowids.length === 0 ? 0 : minLength,
  };
}

/**
 * The packed postings. With `after` (the last row id of the block they continue), the first is written as the
 * gap from it, so the bytes append to that block's as they are. The bytes are a view of a buffer the next call
 * reuses: store (or copy) them before encoding again.
 */
export function encodeBlock(block: PostingColumns, after: number | null = null): Buffer {
  const count = block.rowids.length;
  // A row id gap takes at most 8 bytes (below 2^53), a frequency or length at most 5.
  if (scratch.length < count * 23) scratch = Buffer.allocUnsafe(Math.max(count * 23, scratch.length * 2));
  const bytes = scratch;
  let at = 0;
  let previous = after ?? 0;
  for (let index = 0; index < count; index += 1) {
    const rowid = block.rowids[index]!;
    at = putVarint(bytes, at, index === 0 && after === null ? rowid : rowid - previous);
    at = putVarint(bytes, at, block.all[index]!);
    at = putVarint(bytes, at, block.own[index]!);
    at = putVarint(bytes, at, block.lengths[index]!);
    previous = rowid;
  }
  return bytes.subarray(0, at);
}

let scratch = Buffer.allocUnsafe(64 * 1024);

function putVarint(bytes: Buffer, at: number, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`posting value out of range: ${value}`);
  let rest = value;
  let next = at;
  while (rest >= 0x80) {
    bytes[next++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  bytes[next++] = rest;
  return next;
}

export function decodeBlock(data: Uint8Array): PostingBlock {
  const block = emptyBlock();
  const reader = { at: 0 };
  let previous = 0;
  while (reader.at < data.length) {
    const gap = readVarint(data, reader);
    const rowid = block.rowids.length === 0 ? gap : previous + gap;
    block.rowids.push(rowid);
    block.all.push(readVarint(data, reader));
    block.own.push(readVarint(data, reader));
    block.lengths.push(readVarint(data, reader));
    previous = rowid;
  }
  return block;
}

/** Unsigned LEB128 (7 bits a byte, low first), for integers up to 2^53. */
export function writeVarint(bytes: number[], value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`posting value out of range: ${value}`);
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
}

export function readVarint(data: Uint8Array, reader: { at: number }): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (reader.at >= data.length) throw new Error('posting block ends inside a number');
    const byte = data[reader.at]!;
    reader.at += 1;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
    scale *= 0x80;
  }
}

/** Statistics of a block after more postings were appended to it. */
export function mergeStats(stats: BlockStats, more: BlockStats): BlockStats {
  return {
    firstRowid: stats.firstRowid,
    lastRowid: more.lastRowid,
    count: stats.count + more.count,
    ownCount: stats.ownCount + more.ownCount,
    maxAll: Math.max(stats.maxAll, more.maxAll),
    maxOwn: Math.max(stats.maxOwn, more.maxOwn),
    minLength: Math.min(stats.minLength, more.minLength),
  };
}

/** Term ids of an entry, sorted, as varint gaps (its `entry_terms` row). */
export function packTermIds(ids: ArrayLike<number>): Buffer {
  const sorted = Float64Array.from(ids).sort();
  const bytes: number[] = [];
  let previous = 0;
  for (const id of sorted) {
    writeVarint(bytes, id - previous);
    previous = id;
  }
  return Buffer.from(bytes);
}

export function unpackTermIds(data: Uint8Array): number[] {
  const ids: number[] = [];
  const reader = { at: 0 };
  let previous = 0;
  while (reader.at < data.length) {
    previous += readVarint(data, reader);
    ids.push(previous);
  }
  return ids;
}
