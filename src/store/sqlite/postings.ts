import type Database from 'better-sqlite3';
import {
  BLOCK_SIZE,
  type BlockStats,
  type PostingBlock,
  type PostingColumns,
  decodeBlock,
  emptyBlock,
  encodeBlock,
  measureBlock,
  mergeStats,
  packTermIds,
  unpackTermIds,
} from '../postings/block-codec.js';
import { type OwnPostings, WEIGHT_TENTHS } from '../postings/entry-postings.js';
import { termOf } from '../postings/term-numbering.js';
import type { StoredBlock } from '../postings/posting-cursor.js';
import { type LoadedBlock, editTermBlocks } from '../postings/block-edits.js';

/**
 * The word index's postings of moon's own (store/postings/), kept beside FTS5: `posting_terms` numbers each
 * term, `postings` holds each term's entries in blocks by row id, and `entry_terms` each entry's term numbers
 * (so its postings can be taken out when it is re-indexed or forgotten). A write records what it adds and
 * removes; the changes are applied term by term before its transaction commits, or sooner when many are
 * pending — one pass over a term's last block per flush, not per entry.
 */
interface BlockRow {
  first_rowid: number;
  last_rowid: number;
  n: number;
  n_own: number;
  max_all: number;
  max_own: number;
  min_len: number;
  data: Buffer;
}

/**
 * Postings waiting for a flush, in flat columns (millions of them in a large batch: no object per posting), and
 * grouped by term when flushed.
 */
class PendingPostings {
  count = 0;
  private termIds = new Uint32Array(4096);
  private rowids = new Float64Array(4096);
  private all = new Uint32Array(4096);
  private own = new Uint32Array(4096);
  private lengths = new Uint32Array(4096);

  push(termId: number, rowid: number, all: number, own: number, length: number): void {
    if (this.count === this.termIds.length) this.grow();
    const at = this.count++;
    this.termIds[at] = termId;
    this.rowids[at] = rowid;
    this.all[at] = all;
    this.own[at] = own;
    this.lengths[at] = length;
  }

  /** Each term's postings, in the order added: a counting sort by term id into views of one set of columns. */
  byTerm(): Map<number, PostingColumns> {
    const count = this.count;
    let maxId = 0;
    for (let at = 0; at < count; at += 1) maxId = Math.max(maxId, this.termIds[at]!);
    const starts = new Uint32Array(maxId + 2);
    for (let at = 0; at < count; at += 1) starts[this.termIds[at]! + 1]! += 1;
    for (let id = 1; id < starts.length; id += 1) starts[id]! += starts[id - 1]!;
    const next = starts.slice(0, maxId + 1);
    const sorted = { rowids: new Float64Array(count), all: new Uint32Array(count), own: new Uint32Array(count), lengths: new Uint32Array(count) };
    for (let at = 0; at < count; at += 1) {
      const to = next[this.termIds[at]!]!++;
      sorted.rowids[to] = this.rowids[at]!;
      sorted.all[to] = this.all[at]!;
      sorted.own[to] = this.own[at]!;
      sorted.lengths[to] = this.lengths[at]!;
    }
    const grouped = new Map<number, PostingColumns>();
    for (let id = 0; id <= maxId; id += 1) {
      const from = starts[id]!;
      const to = starts[id + 1]!;
      if (from === to) continue;
      grouped.set(id, {
        rowids: sorted.rowids.subarray(from, to),
        all: sorted.all.subarray(from, to),
        own: sorted.own.subarray(from, to),
        lengths: sorted.lengths.subarray(from, to),
      });
    }
    return grouped;
  }

  private grow(): void {
    const size = this.termIds.length * 2;
    const grow = <T extends Uint32Array | Float64Array>(array: T, make: (size: number) => T): T => {
      const grown = make(size);
      grown.set(array);
      return grown;
    };
    this.termIds = grow(this.termIds, (n) => new Uint32Array(n));
    this.rowids = grow(this.rowids, (n) => new Float64Array(n));
    this.all = grow(this.all, (n) => new Uint32Array(n));
    this.own = grow(this.own, (n) => new Uint32Array(n));
    this.lengths = grow(this.lengths, (n) => new Uint32Array(n));
  }
}

/** The meta key present while existing entries still lack postings (schema migration 17, fillPostings). */
export const POSTINGS_PENDING = 'postings_pending';

/** Postings held before a flush within a write (bounds the writer's memory on a large batch). */
const FLUSH_POSTINGS = 2_000_000;

export class SqlitePostings {
  /** Postings to add, in the order added (flushed term by term), and row ids whose postings go, by term id. */
  private adds = new PendingPostings();
  private removes = new Map<number, number[]>();
  private addedRows = new Set<number>();
  /** Store term ids of each numbering's numbers (0: not looked up); forgotten when a write rolls back. */
  private termIds = new Map<string, Int32Array>();
  /** Scratch: an entry's slot (+1) of each store term id while its postings are merged. */
  private slots = new Int32Array(1024);
  private readonly statements;

  constructor(private readonly db: Database.Database) {
    const columns = 'first_rowid, last_rowid, n, n_own, max_all, max_own, min_len, data';
    this.statements = {
      termId: db.prepare<[string], number>('SELECT id FROM posting_terms WHERE term = ?').pluck(),
      addTerm: db.prepare<[string]>('INSERT INTO posting_terms (term) VALUES (?)'),
      readTerms: db.prepare<[number], Buffer>('SELECT terms FROM entry_terms WHERE rowid = ?').pluck(),
      deleteTerms: db.prepare<[number]>('DELETE FROM entry_terms WHERE rowid = ?'),
      insertTerms: db.prepare<[number, Buffer]>('INSERT INTO entry_terms (rowid, terms) VALUES (?, ?)'),
      tail: db.prepare<[number], BlockRow>(`SELECT ${columns} FROM postings WHERE term_id = ? ORDER BY first_rowid DESC LIMIT 1`),
      holding: db.prepare<[number, number], BlockRow>(
        `SELECT ${columns} FROM postings WHERE term_id = ? AND first_rowid <= ? ORDER BY first_rowid DESC LIMIT 1`,
      ),
      first: db.prepare<[number], BlockRow>(`SELECT ${columns} FROM postings WHERE term_id = ? ORDER BY first_rowid LIMIT 1`),
      range: db.prepare<[number, number, number], BlockRow>(`SELECT ${columns} FROM postings WHERE term_id = ? AND first_rowid > ? AND first_rowid <= ? ORDER BY first_rowid`),
      insert: db.prepare(
        `INSERT INTO postings (term_id, ${columns}) VALUES (@term_id, @first_rowid, @last_rowid, @n, @n_own, @max_all, @max_own, @min_len, @data)`,
      ),
      extend: db.prepare(
        `UPDATE postings SET last_rowid = @last_rowid, n = @n, n_own = @n_own, max_all = @max_all, max_own = @max_own,
           min_len = @min_len, data = @data
         WHERE term_id = @term_id AND first_rowid = @first_rowid`,
      ),
      delete: db.prepare<[number, number]>('DELETE FROM postings WHERE term_id = ? AND first_rowid = ?'),
      read: db.prepare<[number], BlockRow>(`SELECT ${columns} FROM postings WHERE term_id = ? ORDER BY first_rowid`),
    };
  }

  /** The entry's postings go (within the caller's transaction; the blocks change at the next flush). */
  remove(rowid: number): void {
    if (this.addedRows.has(rowid)) this.flush();
    const stored = this.statements.readTerms.get(rowid);
    if (!stored) return;
    for (const termId of unpackTermIds(stored)) {
      const rowids = this.removes.get(termId);
      if (rowids) rowids.push(rowid);
      else this.removes.set(termId, [rowid]);
    }
    this.statements.deleteTerms.run(rowid);
  }

  /**
   * The entry's postings, replacing any it had: its own columns', and its neighbours' heads as its context
   * column. `fresh`: the row was inserted by this write, so it had none.
   */
  add(rowid: number, own: OwnPostings, heads: readonly { numbering: string; head: Uint32Array }[], fresh: boolean): void {
    if (!fresh || this.addedRows.has(rowid)) this.remove(rowid);
    const ids: number[] = [];
    const all: number[] = [];
    const ownTenths: number[] = [];
    let length = own.length;
    const place = (termId: number, tenths: number, isOwn: boolean): void => {
      const slots = this.slotsFor(termId);
      const slot = slots[termId]!;
      if (slot === 0) {
        ids.push(termId);
        all.push(tenths);
        ownTenths.push(isOwn ? tenths : 0);
        slots[termId] = ids.length;
      } else {
        all[slot - 1] = all[slot - 1]! + tenths;
        if (isOwn) ownTenths[slot - 1] = ownTenths[slot - 1]! + tenths;
      }
    };
    const ownIds = this.idsOf(own.numbering);
    for (let index = 0; index < own.terms.length; index += 1) place(this.resolve(own.numbering, ownIds, own.terms[index]!), own.tenths[index]!, true);
    for (const { numbering, head } of heads) {
      length += head.length;
      const headIds = this.idsOf(numbering);
      for (const number of head) place(this.resolve(numbering, headIds, number), WEIGHT_TENTHS.context, false);
    }
    for (const termId of ids) this.slots[termId] = 0;
    this.statements.insertTerms.run(rowid, packTermIds(Uint32Array.from(ids)));
    for (let slot = 0; slot < ids.length; slot += 1) this.adds.push(ids[slot]!, rowid, all[slot]!, ownTenths[slot]!, length);
    this.addedRows.add(rowid);
    if (this.adds.count >= FLUSH_POSTINGS) this.flush();
  }

  /** A write rolled back: nothing it recorded is applied, and term ids it may have added are forgotten. */
  discard(): void {
    this.adds = new PendingPostings();
    this.removes = new Map();
    this.addedRows = new Set();
    this.termIds = new Map();
  }

  /** Apply the pending changes to the blocks, term by term; called inside the write's transaction. */
  flush(): void {
    if (this.adds.count === 0 && this.removes.size === 0) return;
    const adds = this.adds;
    const removes = this.removes;
    this.adds = new PendingPostings();
    this.removes = new Map();
    this.addedRows = new Set();
    const segments = adds.byTerm();
    const termIds = [...new Set([...segments.keys(), ...removes.keys()])].sort((a, b) => a - b);
    for (const termId of termIds) {
      const run = segments.get(termId);
      const removed = removes.get(termId) ?? [];
      if (run && removed.length === 0 && isAscending(run.rowids) && this.append(termId, run)) continue;
      this.rewrite(termId, removed.sort((a, b) => a - b), run ? toSortedBlock(run) : emptyBlock());
    }
  }

  /** The scratch slots, grown to hold `termId`. */
  private slotsFor(termId: number): Int32Array {
    if (termId >= this.slots.length) {
      const grown = new Int32Array(Math.max(termId + 1, this.slots.length * 2));
      grown.set(this.slots);
      this.slots = grown;
    }
    return this.slots;
  }

  private idsOf(numbering: string): Int32Array {
    return this.termIds.get(numbering) ?? new Int32Array(0);
  }

  /** The store's term id of a numbering's number: looked up (or added) once per term and numbering. */
  private resolve(numbering: string, known: Int32Array, number: number): number {
    const cached = number < known.length ? known[number]! : 0;
    if (cached !== 0) return cached;
    const term = termOf(numbering, number);
    const termId = this.statements.termId.get(term) ?? Number(this.statements.addTerm.run(term).lastInsertRowid);
    let ids = this.termIds.get(numbering) ?? new Int32Array(0);
    if (number >= ids.length) {
      const grown = new Int32Array(Math.max(number + 1, ids.length * 2, 1024));
      grown.set(ids);
      ids = grown;
      this.termIds.set(numbering, ids);
    }
    ids[number] = termId;
    return termId;
  }

  /** Each term's blocks, in row id order (a term no entry holds: none). */
  readBlocks(terms: Iterable<string>): Map<string, StoredBlock[]> {
    const blocks = new Map<string, StoredBlock[]>();
    for (const term of terms) {
      if (blocks.has(term)) continue;
      const termId = this.statements.termId.get(term);
      blocks.set(term, termId === undefined ? [] : this.statements.read.all(termId).map(toStoredBlock));
    }
    return blocks;
  }

  /**
   * Postings past the term's last block: appended to it as bytes while it has room, then new blocks. False when
   * some are not past it.
   */
  private append(termId: number, adds: PostingColumns): boolean {
    const tail = this.statements.tail.get(termId);
    if (tail && adds.rowids[0]! <= tail.last_rowid) return false;
    let from = 0;
    if (tail && tail.n < BLOCK_SIZE) {
      from = Math.min(BLOCK_SIZE - tail.n, adds.rowids.length);
      const more = sliceColumns(adds, 0, from);
      const stats = mergeStats(toStats(tail), measureBlock(more));
      this.statements.extend.run({ term_id: termId, ...statsParams(stats), data: Buffer.concat([tail.data, encodeBlock(more, tail.last_rowid)]) });
    }
    for (let at = from; at < adds.rowids.length; at += BLOCK_SIZE) this.insertBlock(termId, sliceColumns(adds, at, at + BLOCK_SIZE));
    return true;
  }

  /**
   * Removals, and insertions not past the last block: the blocks they land in (block-edits.ts, the rule every
   * engine applies) — the one holding the lowest added row id and every block from there to the highest, and the
   * one holding each removed row id — edited and written back.
   */
  private rewrite(termId: number, removes: number[], adds: PostingBlock): void {
    const loaded = new Map<number, LoadedBlock>();
    const load = (row: BlockRow | undefined) => {
      if (row && !loaded.has(row.first_rowid)) loaded.set(row.first_rowid, { first: row.first_rowid, block: decodeBlock(row.data) });
    };
    const loadHolding = (rowid: number) => load(this.statements.holding.get(termId, rowid) ?? this.statements.first.get(termId));
    if (adds.rowids.length > 0) {
      const low = adds.rowids[0]!;
      loadHolding(low);
      for (const row of this.statements.range.all(termId, low, adds.rowids[adds.rowids.length - 1]!)) load(row);
    }
    for (const rowid of removes) loadHolding(rowid);
    const blocks = [...loaded.values()].sort((a, b) => a.first - b.first);
    const { dropped, written } = editTermBlocks(blocks, { removes, adds });
    for (const first of dropped) this.statements.delete.run(termId, first);
    for (const block of written) this.insertBlock(termId, block);
  }

  private insertBlock(termId: number, block: PostingColumns): void {
    if (block.rowids.length === 0) return;
    this.statements.insert.run({ term_id: termId, ...statsParams(measureBlock(block)), data: encodeBlock(block) });
  }
}

/** Whether every entry has its postings (no migration backfill pending). */
export function hasAllPostings(db: Database.Database): boolean {
  return db.prepare('SELECT 1 FROM meta WHERE key = ?').get(POSTINGS_PENDING) === undefined;
}

function toStoredBlock(row: BlockRow): StoredBlock {
  return { ...toStats(row), data: row.data };
}

function toStats(row: BlockRow): BlockStats {
  return {
    firstRowid: row.first_rowid,
    lastRowid: row.last_rowid,
    count: row.n,
    ownCount: row.n_own,
    maxAll: row.max_all,
    maxOwn: row.max_own,
    minLength: row.min_len,
  };
}

function statsParams(stats: BlockStats): Omit<BlockRow, 'data'> {
  return {
    first_rowid: stats.firstRowid,
    last_rowid: stats.lastRowid,
    n: stats.count,
    n_own: stats.ownCount,
    max_all: stats.maxAll,
    max_own: stats.maxOwn,
    min_len: stats.minLength,
  };
}

function sliceColumns(block: PostingColumns, from: number, to: number): PostingColumns {
  const slice = (values: ArrayLike<number>) =>
    values instanceof Float64Array || values instanceof Uint32Array ? values.subarray(from, to) : Array.prototype.slice.call(values, from, to);
  return { rowids: slice(block.rowids), all: slice(block.all), own: slice(block.own), lengths: slice(block.lengths) };
}

function isAscending(values: ArrayLike<number>): boolean {
  for (let index = 1; index < values.length; index += 1) if (values[index]! <= values[index - 1]!) return false;
  return true;
}

/** A run as a block of arrays, sorted by row id; of two postings of one row, the later. */
function toSortedBlock(run: PostingColumns): PostingBlock {
  const order = Array.from({ length: run.rowids.length }, (_, index) => index).sort((a, b) => run.rowids[a]! - run.rowids[b]! || b - a);
  const kept = order.filter((index, at) => at === 0 || run.rowids[index] !== run.rowids[order[at - 1]!]);
  return { rowids: kept.map((i) => run.rowids[i]!), all: kept.map((i) => run.all[i]!), own: kept.map((i) => run.own[i]!), lengths: kept.map((i) => run.lengths[i]!) };
}

