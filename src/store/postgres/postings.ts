import { type PostingColumns, decodeBlock, encodeBlock, measureBlock, packTermIds, unpackTermIds } from '../postings/block-codec.js';
import { type LoadedBlock, type TermChanges, editTermBlocks } from '../postings/block-edits.js';
import { type OwnPostings, WEIGHT_TENTHS } from '../postings/entry-postings.js';
import type { StoredBlock } from '../postings/posting-cursor.js';
import { termOf } from '../postings/term-numbering.js';
import type { PgClient } from './client.js';

/**
 * The PostgreSQL engine's postings of moon's own (store/postings/; the tables of migration 19, as SQLite's:
 * docs/formats.md). A write transaction records what its entries add and remove, on the client it runs on; the
 * changes are applied before it commits (engine.ts), under the ingest lock, in a few set-based statements: the
 * removed entries' terms, the new terms' ids, the blocks the changes land in, the blocks written back.
 */
interface EntryAdd {
  rowid: number;
  length: number;
  /** Own columns' and neighbours' heads' terms: numbering, number, tenths, own (1) or context (0). */
  parts: { numbering: string; terms: ArrayLike<number>; tenths: number | ArrayLike<number>; own: boolean }[];
}

class PendingPostings {
  readonly removed = new Set<number>();
  readonly added = new Map<number, EntryAdd>();
}

const pending = new WeakMap<PgClient, PendingPostings>();

function pendingOf(client: PgClient): PendingPostings {
  let found = pending.get(client);
  if (!found) {
    found = new PendingPostings();
    pending.set(client, found);
  }
  return found;
}

/** The entries' postings go when the transaction commits. */
export function removePostings(client: PgClient, rowids: Iterable<number>): void {
  const work = pendingOf(client);
  for (const rowid of rowids) {
    work.added.delete(rowid);
    work.removed.add(rowid);
  }
}

/** The entry's postings are its own columns' and its neighbours' heads' (its context column), replacing any it had. */
export function addPostings(client: PgClient, rowid: number, own: OwnPostings, heads: readonly { numbering: string; head: Uint32Array }[]): void {
  const work = pendingOf(client);
  work.removed.add(rowid);
  let length = own.length;
  const parts: EntryAdd['parts'] = [{ numbering: own.numbering, terms: own.terms, tenths: own.tenths, own: true }];
  for (const { numbering, head } of heads) {
    length += head.length;
    parts.push({ numbering, terms: head, tenths: WEIGHT_TENTHS.context, own: false });
  }
  work.added.set(rowid, { rowid, length, parts });
}

/** A rolled-back transaction's changes are forgotten. */
export function discardPostings(client: PgClient): void {
  pending.delete(client);
}

/** Apply the transaction's changes; called inside it, before it commits. */
export async function flushPostings(client: PgClient): Promise<void> {
  const work = pending.get(client);
  pending.delete(client);
  if (!work || (work.removed.size === 0 && work.added.size === 0)) return;
  const changes = new Map<number, { removes: number[]; adds: { rowid: number; all: number; own: number; length: number }[] }>();
  const changesOf = (termId: number) => {
    let found = changes.get(termId);
    if (!found) {
      found = { removes: [], adds: [] };
      changes.set(termId, found);
    }
    return found;
  };
  if (work.removed.size > 0) {
    const gone = await client.query<{ rowid: number; terms: Buffer }>('DELETE FROM moon.entry_terms WHERE rowid = ANY ($1::bigint[]) RETURNING rowid, terms', [
      [...work.removed],
    ]);
    for (const row of gone.rows) for (const termId of unpackTermIds(row.terms)) changesOf(termId).removes.push(Number(row.rowid));
  }
  if (work.added.size > 0) {
    const ids = await resolveTermIds(client, work.added.values());
    const entryRows: number[] = [];
    const entryTerms: string[] = [];
    for (const entry of work.added.values()) {
      const merged = new Map<number, { all: number; own: number }>();
      for (const part of entry.parts) {
        const known = ids.get(part.numbering)!;
        for (let index = 0; index < part.terms.length; index += 1) {
          const termId = known.get(part.terms[index]!)!;
          const tenths = typeof part.tenths === 'number' ? part.tenths : part.tenths[index]!;
          const counts = merged.get(termId) ?? { all: 0, own: 0 };
          counts.all += tenths;
          if (part.own) counts.own += tenths;
          merged.set(termId, counts);
        }
      }
      for (const [termId, counts] of merged) changesOf(termId).adds.push({ rowid: entry.rowid, all: counts.all, own: counts.own, length: entry.length });
      entryRows.push(entry.rowid);
      entryTerms.push(packTermIds([...merged.keys()]).toString('hex'));
    }
    await client.query("INSERT INTO moon.entry_terms (rowid, terms) SELECT r, decode(t, 'hex') FROM unnest($1::bigint[], $2::text[]) AS u(r, t)", [entryRows, entryTerms]);
  }
  await rewriteBlocks(client, changes);
}

/** Each numbering's numbers used by the entries, as the database's term ids (new terms added). */
async function resolveTermIds(client: PgClient, entries: Iterable<EntryAdd>): Promise<Map<string, Map<number, number>>> {
  const wanted = new Map<string, Set<number>>();
  for (const entry of entries) {
    for (const part of entry.parts) {
      let numbers = wanted.get(part.numbering);
      if (!numbers) {
        numbers = new Set();
        wanted.set(part.numbering, numbers);
      }
      for (let index = 0; index < part.terms.length; index += 1) numbers.add(part.terms[index]!);
    }
  }
  const terms = new Set<string>();
  for (const [numbering, numbers] of wanted) for (const number of numbers) terms.add(termOf(numbering, number));
  const list = [...terms].sort();
  await client.query('INSERT INTO moon.posting_terms (term) SELECT unnest($1::text[]) ON CONFLICT (term) DO NOTHING', [list]);
  const found = await client.query<{ id: number; term: string }>('SELECT id, term FROM moon.posting_terms WHERE term = ANY ($1::text[])', [list]);
  const byTerm = new Map(found.rows.map((row) => [row.term, Number(row.id)]));
  const ids = new Map<string, Map<number, number>>();
  for (const [numbering, numbers] of wanted) {
    const known = new Map<number, number>();
    for (const number of numbers) known.set(number, byTerm.get(termOf(numbering, number))!);
    ids.set(numbering, known);
  }
  return ids;
}

/**
 * The blocks the changes land in — for each term the one holding its lowest added row id and every block from there
 * to its highest, and the one holding each removed row id — edited (block-edits.ts) and written back.
 */
async function rewriteBlocks(client: PgClient, changes: Map<number, { removes: number[]; adds: { rowid: number; all: number; own: number; length: number }[] }>): Promise<void> {
  if (changes.size === 0) return;
  const probeTerms: number[] = [];
  const probeLow: number[] = [];
  const probeHigh: number[] = [];
  for (const [termId, change] of changes) {
    change.adds.sort((a, b) => a.rowid - b.rowid);
    change.removes.sort((a, b) => a - b);
    if (change.adds.length > 0) {
      probeTerms.push(termId);
      probeLow.push(change.adds[0]!.rowid);
      probeHigh.push(change.adds[change.adds.length - 1]!.rowid);
    }
    for (const rowid of change.removes) {
      probeTerms.push(termId);
      probeLow.push(rowid);
      probeHigh.push(rowid);
    }
  }
  const found = await client.query<{ term_id: number; first_rowid: number; data: Buffer }>(
    `WITH probe AS (SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS u(term_id, lo, hi))
     SELECT DISTINCT b.term_id, b.first_rowid, b.data FROM probe
     CROSS JOIN LATERAL (
       SELECT p.term_id, p.first_rowid, p.data FROM (
         SELECT coalesce(
           (SELECT first_rowid FROM moon.postings WHERE term_id = probe.term_id AND first_rowid <= probe.lo ORDER BY first_rowid DESC LIMIT 1),
           (SELECT first_rowid FROM moon.postings WHERE term_id = probe.term_id ORDER BY first_rowid LIMIT 1)) AS first_rowid
       ) h JOIN moon.postings p ON p.term_id = probe.term_id AND p.first_rowid = h.first_rowid
       UNION ALL
       SELECT p.term_id, p.first_rowid, p.data FROM moon.postings p
       WHERE p.term_id = probe.term_id AND p.first_rowid > probe.lo AND p.first_rowid <= probe.hi
     ) b`,
    [probeTerms, probeLow, probeHigh],
  );
  const loaded = new Map<number, LoadedBlock[]>();
  for (const row of found.rows) {
    const termId = Number(row.term_id);
    const list = loaded.get(termId) ?? [];
    list.push({ first: Number(row.first_rowid), block: decodeBlock(row.data) });
    loaded.set(termId, list);
  }
  const dropTerms: number[] = [];
  const dropFirsts: number[] = [];
  const rows: { term: number[]; first: number[]; last: number[]; n: number[]; nOwn: number[]; maxAll: number[]; maxOwn: number[]; minLen: number[]; data: string[] } = {
    term: [], first: [], last: [], n: [], nOwn: [], maxAll: [], maxOwn: [], minLen: [], data: [],
  };
  for (const [termId, change] of changes) {
    const blocks = (loaded.get(termId) ?? []).sort((a, b) => a.first - b.first);
    const termChanges: TermChanges = { removes: change.removes, adds: toColumns(change.adds) };
    const { dropped, written } = editTermBlocks(blocks, termChanges);
    for (const first of dropped) {
      dropTerms.push(termId);
      dropFirsts.push(first);
    }
    for (const block of written) {
      const stats = measureBlock(block);
      rows.term.push(termId);
      rows.first.push(stats.firstRowid);
      rows.last.push(stats.lastRowid);
      rows.n.push(stats.count);
      rows.nOwn.push(stats.ownCount);
      rows.maxAll.push(stats.maxAll);
      rows.maxOwn.push(stats.maxOwn);
      rows.minLen.push(stats.minLength);
      rows.data.push(encodeBlock(block).toString('hex'));
    }
  }
  if (dropTerms.length > 0) {
    await client.query('DELETE FROM moon.postings p USING unnest($1::bigint[], $2::bigint[]) AS u(t, f) WHERE p.term_id = u.t AND p.first_rowid = u.f', [
      dropTerms,
      dropFirsts,
    ]);
  }
  if (rows.term.length > 0) {
    await client.query(
      `INSERT INTO moon.postings (term_id, first_rowid, last_rowid, n, n_own, max_all, max_own, min_len, data)
       SELECT t, f, l, n, o, ma, mo, ml, decode(d, 'hex')
       FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::int[], $5::int[], $6::int[], $7::int[], $8::int[], $9::text[]) AS u(t, f, l, n, o, ma, mo, ml, d)`,
      [rows.term, rows.first, rows.last, rows.n, rows.nOwn, rows.maxAll, rows.maxOwn, rows.minLen, rows.data],
    );
  }
}

/** Each term's blocks, in row id order (a term no entry holds: none). */
export async function readPostingBlocks(db: PgClient, terms: readonly string[]): Promise<Map<string, StoredBlock[]>> {
  const blocks = new Map<string, StoredBlock[]>(terms.map((term) => [term, []]));
  if (terms.length === 0) return blocks;
  const found = await db.query<{ term: string; first_rowid: number; last_rowid: number; n: number; n_own: number; max_all: number; max_own: number; min_len: number; data: Buffer }>(
    `SELECT t.term, p.first_rowid, p.last_rowid, p.n, p.n_own, p.max_all, p.max_own, p.min_len, p.data
     FROM moon.posting_terms t JOIN moon.postings p ON p.term_id = t.id
     WHERE t.term = ANY ($1::text[]) ORDER BY t.term, p.first_rowid`,
    [[...new Set(terms)]],
  );
  for (const row of found.rows) {
    blocks.get(row.term)!.push({
      firstRowid: Number(row.first_rowid),
      lastRowid: Number(row.last_rowid),
      count: row.n,
      ownCount: row.n_own,
      maxAll: row.max_all,
      maxOwn: row.max_own,
      minLength: row.min_len,
      data: row.data,
    });
  }
  return blocks;
}

/** Whether every entry has its postings (no backfill pending). */
export async function hasAllPostings(db: PgClient): Promise<boolean> {
  const found = await db.query<{ ok: boolean }>(
    "SELECT NOT EXISTS (SELECT 1 FROM moon.meta WHERE key = 'postings_pending') AND c.rows = c.term_rows AS ok FROM moon.corpus c WHERE c.id = 1",
  );
  return found.rows[0]?.ok === true;
}

function toColumns(adds: { rowid: number; all: number; own: number; length: number }[]): PostingColumns {
  return { rowids: adds.map((a) => a.rowid), all: adds.map((a) => a.all), own: adds.map((a) => a.own), lengths: adds.map((a) => a.length) };
}

