import type Database from 'better-sqlite3';
import { COLUMN_WEIGHTS } from '../index-document.js';
import { phraseBound, rankExactTopK, roundScore } from '../top-k.js';
import type { Candidate, LexicalQuery } from '../types.js';
import { type RenderedFilters, andClauses, joinSessions, renderFilters } from './filters.js';
import { joinFtsParts, joinFtsPhrases, renderFtsParts, renderTrigramPhrases } from './fts-query.js';
import { type EntryRow, toEntry } from './rows.js';

/** BM25 column weights in the FTS table's column order: text, role, tool, target, keywords, context. */
const BM25_WEIGHTS = [COLUMN_WEIGHTS.text, COLUMN_WEIGHTS.role, COLUMN_WEIGHTS.tool, COLUMN_WEIGHTS.target, COLUMN_WEIGHTS.keywords, COLUMN_WEIGHTS.context]
  .map((weight) => weight.toFixed(1))
  .join(', ');

type FtsTable = 'entries_fts' | 'entries_tri';

/**
 * One FTS5 list as exact top-k needs it: the expressions that match the query (or the rows holding some of its
 * phrases), and one phrase at a time for the bounds.
 */
interface FtsList {
  table: FtsTable;
  rankExpression: string;
  /** How many ranked phrases the query has. */
  phrases: number;
  /** Required phrases, each alone: every match holds them. */
  required: string[];
  /** Ranked phrases joined by AND: every match holds all of them, and none can be left unscored. */
  every: boolean;
  /** The query; with `holding`, only rows holding one of those ranked phrases, which are then counted twice. */
  match(holding?: readonly number[]): string;
  /** Those ranked phrases alone (with their column filter); one alone is counted for its document frequency. */
  holdingAlone(holding: readonly number[]): string;
  filters: RenderedFilters;
  limit: number;
}

/** The word list: BM25 over text, tool, target, split identifiers and (unless turned off) neighbours' text. */
export function searchWords(db: Database.Database, query: LexicalQuery): Candidate[] {
  const parts = renderFtsParts(query);
  if (parts === null) return [];
  return rankList(db, {
    table: 'entries_fts',
    rankExpression: `bm25(entries_fts, ${BM25_WEIGHTS})`,
    phrases: parts.ranked.length,
    required: parts.required,
    every: parts.every,
    match: (holding) => joinFtsParts(parts, holding),
    holdingAlone: (holding) => joinFtsPhrases(parts, holding),
    filters: renderFilters(query.filters),
    limit: query.limit,
  });
}

/** The substring list: BM25 over the trigram index of technical tokens; required and excluded terms as filters. */
export function searchSubstrings(db: Database.Database, query: LexicalQuery): Candidate[] {
  const phrases = renderTrigramPhrases(query.any);
  if (phrases.length === 0) return [];
  const any = (indexes: readonly number[]) => indexes.map((index) => phrases[index]!).join(' OR ');
  const all = phrases.map((_, index) => index);
  return rankList(db, {
    table: 'entries_tri',
    rankExpression: 'bm25(entries_tri)',
    phrases: phrases.length,
    required: [],
    every: false,
    match: (holding) => (holding ? `(${any(holding)}) AND (${any(all)})` : any(all)),
    holdingAlone: any,
    filters: renderFilters(query.filters, query),
    limit: query.limit,
  });
}

/**
 * The exact top `limit` of one list (store/top-k.ts): rows holding the rarest phrases are scored first, with
 * every phrase, and common phrases are read only where a rarer one brought the row — unless their bound could
 * still lift an unscored row into the top.
 */
function rankList(db: Database.Database, list: FtsList): Candidate[] {
  if (list.every || list.phrases <= 1) return rankAll(db, list);
  const rows = readRowCount(db, list.table);
  const bound = (phrase: string) => phraseBound(rows, countRows(db, list.table, phrase));
  const plan = {
    bounds: Array.from({ length: list.phrases }, (_, index) => bound(list.holdingAlone([index]))),
    fixed: list.required.reduce((sum, phrase) => sum + bound(phrase), 0),
    limit: list.limit,
  };
  return rankExactTopK(plan, (holding) => (holding.length === list.phrases ? rankAll(db, list) : rankHolding(db, list, holding)));
}

/**
 * Every match scored, the top `limit` kept. Without a filter, entries rows are read for the top rows alone —
 * joining before the sort would read one for every match (3–4× slower for common words on a 100k-entry index).
 */
function rankAll(db: Database.Database, list: FtsList): Candidate[] {
  const { table, rankExpression, filters } = list;
  // A few rows past the limit, so rows whose scores round equal at the cut are ordered by time as well.
  const take = list.limit + CUT_SLACK;
  if (filters.where.length === 0) {
    return orderCandidates(
      readCandidates(
        db,
        `WITH scored AS (SELECT rowid, ${rankExpression} AS rank FROM ${table} WHERE ${table} MATCH ?),
           hits AS (SELECT rowid, rank FROM scored ORDER BY rank LIMIT ?)
         SELECT e.*, hits.rank FROM hits JOIN entries e ON e.rowid = hits.rowid`,
        [list.match(), take],
      ),
      list.limit,
    );
  }
  return orderCandidates(
    readCandidates(
      db,
      `SELECT e.*, ${rankExpression} AS rank
       FROM ${table} JOIN entries e ON e.rowid = ${table}.rowid ${joinSessions(filters)}
       WHERE ${table} MATCH ? ${andClauses(filters)}
       ORDER BY rank, e.ts DESC, e.rowid LIMIT ?`,
      [list.match(), ...filters.params, take],
    ),
    list.limit,
  );
}

/** Rows read past the limit at the cut (rankAll). */
const CUT_SLACK = 16;

/** Best first: rounded score, then newest, then row id; the first `limit`. */
function orderCandidates(candidates: Candidate[], limit: number): Candidate[] {
  return candidates
    .sort((a, b) => b.score - a.score || (b.entry.ts ?? -Infinity) - (a.entry.ts ?? -Infinity) || a.rowid - b.rowid)
    .slice(0, limit);
}

/**
 * Every match holding one of the `holding` phrases, scored with every phrase of the query. FTS5 walks only the
 * rows of the holding phrases and seeks the others' doclists to them. The holding phrases appear twice in that
 * expression, so their own score (the same phrases alone, on the same rows) is subtracted: BM25 is a sum over
 * phrases. The best `limit` (with every row tied with the last of them) are read and ordered as rankAll orders.
 */
function rankHolding(db: Database.Database, list: FtsList, holding: readonly number[]): Candidate[] {
  const { table, rankExpression, filters } = list;
  const own = new Map<number, number>();
  const alone = db.prepare<[string], { rowid: number; rank: number }>(`SELECT rowid, ${rankExpression} AS rank FROM ${table} WHERE ${table} MATCH ?`);
  for (const row of alone.iterate(list.holdingAlone(holding))) own.set(row.rowid, row.rank);
  const combined =
    filters.where.length === 0
      ? db.prepare<unknown[], { rowid: number; rank: number }>(`SELECT rowid, ${rankExpression} AS rank FROM ${table} WHERE ${table} MATCH ?`)
      : db.prepare<unknown[], { rowid: number; rank: number }>(
          `SELECT e.rowid, ${rankExpression} AS rank
           FROM ${table} JOIN entries e ON e.rowid = ${table}.rowid ${joinSessions(filters)}
           WHERE ${table} MATCH ? ${andClauses(filters)}`,
        );
  // FTS5's bm25 is the negated score: the query's own is the holding phrases' part minus the doubled whole.
  const scored: { rowid: number; score: number }[] = [];
  for (const row of combined.iterate(list.match(holding), ...filters.params)) scored.push({ rowid: row.rowid, score: roundScore((own.get(row.rowid) ?? 0) - row.rank) });
  if (scored.length === 0) return [];
  scored.sort((a, b) => b.score - a.score);
  const last = scored[Math.min(list.limit, scored.length) - 1]!.score;
  const kept = scored.filter((row) => row.score >= last);
  const scores = new Map(kept.map((row) => [row.rowid, row.score]));
  const entries = db
    .prepare<[string], EntryRow>('SELECT e.* FROM entries e WHERE e.rowid IN (SELECT value FROM json_each(?))')
    .all(JSON.stringify(kept.map((row) => row.rowid)));
  return orderCandidates(
    entries.map((row) => ({ rowid: row.rowid, entry: toEntry(row), score: scores.get(row.rowid)! })),
    list.limit,
  );
}

function readCandidates(db: Database.Database, sql: string, params: unknown[]): Candidate[] {
  return db
    .prepare<unknown[], EntryRow & { rank: number }>(sql)
    .all(...params)
    .map((row) => ({ rowid: row.rowid, entry: toEntry(row), score: roundScore(-row.rank) }));
}

/** Rows matching one expression: a phrase's document frequency, as FTS5's bm25 counts it. */
function countRows(db: Database.Database, table: FtsTable, expression: string): number {
  return (db.prepare(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ?`).pluck().get(expression) as number) ?? 0;
}

/** The row count FTS5 keeps in its averages record (BM25's N), read from its first varint. */
function readRowCount(db: Database.Database, table: FtsTable): number {
  const block = db.prepare(`SELECT block FROM ${table}_data WHERE id = 1`).pluck().get() as Buffer | undefined;
  if (!block || block.length === 0) return 0;
  return readVarint(block);
}

/** SQLite's varint: big-endian groups of 7 bits, the ninth byte whole. */
function readVarint(bytes: Buffer): number {
  let value = 0;
  for (let index = 0; index < 9 && index < bytes.length; index += 1) {
    const byte = bytes[index]!;
    if (index === 8) return value * 256 + byte;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return value;
  }
  return value;
}
