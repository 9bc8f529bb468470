import { BLOCK_SIZE, type PostingBlock, type PostingColumns } from './block-codec.js';

/**
 * One term's changes applied to its blocks, the same rule for every engine: a row id belongs to the block with the
 * greatest first row id at or below it (the term's first block when it is below all of them; a new block when the
 * term has none). The engine loads those blocks, this decides what to write: the changed blocks are dropped and
 * written again, cut at BLOCK_SIZE, an emptied one not at all. Each block's new rows stay inside its range, so
 * what is written never meets a block that was not loaded.
 */
export interface TermChanges {
  /** Row ids whose postings go, ascending. */
  removes: readonly number[];
  /** Postings that come, ascending by row id, one per row. */
  adds: PostingColumns;
}

export interface LoadedBlock {
  first: number;
  block: PostingBlock;
}

export interface BlockWrites {
  /** First row ids of the loaded blocks to drop. */
  dropped: number[];
  /** Blocks to write in their place. */
  written: PostingColumns[];
}

/** `loaded` must hold, sorted by first row id, every block a changed row id belongs to. */
export function editTermBlocks(loaded: readonly LoadedBlock[], changes: TermChanges): BlockWrites {
  const blocks = loaded.map((item) => ({ first: item.first as number | null, rows: toRows(item.block) }));
  if (blocks.length === 0) blocks.push({ first: null, rows: new Map() });
  const holder = (rowid: number) => {
    let found = blocks[0]!;
    for (const block of blocks) if (block.first !== null && block.first <= rowid) found = block;
    return found;
  };
  for (const rowid of changes.removes) holder(rowid).rows.delete(rowid);
  for (let index = 0; index < changes.adds.rowids.length; index += 1) {
    const rowid = changes.adds.rowids[index]!;
    holder(rowid).rows.set(rowid, [changes.adds.all[index]!, changes.adds.own[index]!, changes.adds.lengths[index]!]);
  }
  const written: PostingColumns[] = [];
  for (const { rows } of blocks) {
    const sorted = [...rows].sort((a, b) => a[0] - b[0]);
    for (let at = 0; at < sorted.length; at += BLOCK_SIZE) {
      const chunk = sorted.slice(at, at + BLOCK_SIZE);
      written.push({
        rowids: chunk.map(([rowid]) => rowid),
        all: chunk.map(([, values]) => values[0]),
        own: chunk.map(([, values]) => values[1]),
        lengths: chunk.map(([, values]) => values[2]),
      });
    }
  }
  return { dropped: blocks.flatMap((block) => (block.first === null ? [] : [block.first])), written };
}

function toRows(block: PostingBlock): Map<number, [number, number, number]> {
  const rows = new Map<number, [number, number, number]>();
  block.rowids.forEach((rowid, index) => rows.set(rowid, [block.all[index]!, block.own[index]!, block.lengths[index]!]));
  return rows;
}
