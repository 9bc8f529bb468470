import type Database from 'better-sqlite3';
import { COLUMN_WEIGHTS } from '../index-document.js';
import { orderCandidates, phraseBound, rankExactTopK, roundScore, selectNewestAtCut } from '../top-k.js';
import type { Candidate, LexicalQuery } from '../types.js';
import { type RenderedFilters, andClauses, joinSessions, renderFilters } from './filters.js';
import { OWN_COLUMNS, SEARCH_COLUMNS, joinFtsHolding, joinFtsParts, joinFtsPhrases, renderFtsParts, renderTrigramPhrases } from './fts-query.js';
import { type EntryRow, toEntry } from './rows.js';
import type { SqlitePostings } from './postings.js';
import { toPostingPhrases } from '../postings/query-phrases.js';
import { type RankedRow, type ScoredEntries, rankPostings } from '../postings/rank-postings.js';
import type { QueryPhrase } from '../postings/query-phrases.js';

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
  /** The query: every row it matches. */
  match(): string;
  /** The rows of the query holding one of those ranked phrases, as two expressions (fts-query.ts joinFtsHolding). */
  matchHolding(holding: readonly number[]): { withRest: string; withoutRest: string };
  /** Those ranked phrases alone (with their column filter); one alone is counted for its document frequency. */
  holdingAlone(holding: readonly number[]): string;
  filters: RenderedFilters;
  limit: number;
}

/**
 * The word list: BM25 over text, tool, target, split identifiers and (unless turned off) neighbours' text —
 * from the postings (store/postings/) when every phrase is one term and every entry has them, else from FTS5.
 * Both give the same list.
 */
export function searchWords(db: Database.Database, query: LexicalQuery, postings: SqlitePostings | null = null): Candidate[] {
  const phrases = postings ? toPostingPhrases(query) : null;
  if (postings && phrases) return rankFromPostings(db, query, postings, phrases);
  const parts = renderFtsParts(query);
  if (parts === null) return [];
  return rankList(db, {
    table: 'entries_fts',
    rankExpression: `bm25(entries_fts, ${BM25_WEIGHTS})`,
    phrases: parts.ranked.length,
    required: parts.required,
    every: parts.every,
    match: () => joinFtsParts(parts),
    matchHolding: (holding) => joinFtsHolding(parts, holding),
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
  const others = (indexes: readonly number[]) => phrases.map((_, index) => index).filter((index) => !indexes.includes(index));
  return rankList(db, {
    table: 'entries_tri',
    rankExpression: 'bm25(entries_tri)',
    phrases: phrases.length,
    required: [],
    every: false,
    match: () => phrases.join(' OR '),
    // As joinFtsHolding: each phrase once, over disjoint rows.
    matchHolding: (holding) => ({
      withRest: `(${any(holding)}) AND (${any(others(holding))})`,
      withoutRest: `(${any(holding)}) NOT (${any(others(holding))})`,
    }),
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
  if (list.every || list.phrases <= 1 || isSmallSet(db, list.filters)) return rankAll(db, list);
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
 * Rows a filter may keep for its list to be ranked whole. A filter that keeps some sessions is tested as a set
 * before a match is scored (readTop), so only the matches inside it are scored: where it keeps few rows, one pass
 * over every phrase costs less than pruning's passes (a project of 7,000 entries in 70,000: ~19 ms against ~50).
 */
const SMALL_SET_ROWS = 20_000;

function isSmallSet(db: Database.Database, filters: RenderedFilters): boolean {
  if (!filters.narrowsSessions) return false;
  const kept = db
    .prepare(`SELECT count(*) FROM (SELECT 1 FROM ${keptRowsFrom(filters)} WHERE ${filters.where.join(' AND ')} LIMIT ${SMALL_SET_ROWS + 1})`)
    .pluck()
    .get(...filters.params) as number;
  return kept <= SMALL_SET_ROWS;
}

/** The sessions first (CROSS JOIN keeps that order): the planner, without statistics, may otherwise walk every entry and look its session up. */
function keptRowsFrom(filters: RenderedFilters): string {
  return filters.needsSessions ? 'sessions s CROSS JOIN entries e ON e.session_id = s.id' : 'entries e';
}

/** Every match scored, the top `limit` kept. */
function rankAll(db: Database.Database, list: FtsList): Candidate[] {
  return orderCandidates(readTop(db, list, list.match()), list.limit);
}

/**
 * Every match holding one of the `holding` phrases, scored with every phrase of the query: the rows that also
 * hold another ranked phrase and those that do not, each an expression naming every phrase once (so FTS5 walks
 * only the holding phrases' rows, seeks the others' doclists to them, and its bm25 is the query's score), each
 * ordered and cut inside SQLite. The two lists hold different rows; together they hold the top of their union.
 */
function rankHolding(db: Database.Database, list: FtsList, holding: readonly number[]): Candidate[] {
  const { withRest, withoutRest } = list.matchHolding(holding);
  return orderCandidates([...readTop(db, list, withRest), ...readTop(db, list, withoutRest)], list.limit);
}

/**
 * The rows matching `expression` that can be among the best `limit` (rounded score, then newest, then row id):
 * ordered and cut inside SQLite, with every row whose rounded score ties the `limit`-th. Entries rows are read
 * for the top rows alone where the filters allow — joining before the sort would read one for every match (3–4×
 * slower for common words on a 100k-entry index, more in a new process whose pages are cold):
 * - no filter: the FTS table's rowids and scores alone;
 * - filters that keep some sessions (a project, a session, a source): the filtered rows' ids are gathered once
 *   from the sessions and the (session_id, seq) index, and each match is tested against that set (`+rowid`, so
 *   the set is not handed to FTS5 as rowids to look up one by one);
 * - other filters (a role, a time window over every session): each match's entry is read to test them.
 */
function readTop(db: Database.Database, list: FtsList, expression: string): Candidate[] {
  const { table, rankExpression, filters } = list;
  const joined = filters.where.length > 0 && !filters.narrowsSessions;
  const kept = filters.where.length === 0 ? '' : ` AND +rowid IN (SELECT e.rowid FROM ${keptRowsFrom(filters)} WHERE ${filters.where.join(' AND ')})`;
  const scored = joined
    ? `SELECT e.*, ${rankExpression} AS rank
         FROM ${table} JOIN entries e ON e.rowid = ${table}.rowid ${joinSessions(filters)}
         WHERE ${table} MATCH ? ${andClauses(filters)}`
    : `SELECT rowid, ${rankExpression} AS rank FROM ${table} WHERE ${table} MATCH ?${kept}`;
  const select = (cut: string) =>
    joined
      ? `WITH scored AS (${scored}) SELECT * FROM scored ${cut}`
      : `WITH scored AS (${scored}), hits AS (SELECT rowid, rank FROM scored ${cut})
         SELECT e.*, hits.rank FROM hits JOIN entries e ON e.rowid = hits.rowid`;
  const params = [expression, ...filters.params];
  // A few rows past the limit, so rows whose scores round equal at the cut are ordered by time as well.
  const take = list.limit + CUT_SLACK;
  const rows = readCandidates(db, select(`ORDER BY rank${joined ? ', ts DESC, rowid' : ''} LIMIT ?`), [...params, take]);
  rows.sort((a, b) => b.score - a.score);
  // The raw scores are in order, so a later row can tie the limit-th only when the last one read does: then
  // every row scoring as high is read (FTS5's bm25 is the negated score; a margin for the rounding).
  if (rows.length < take || rows[take - 1]!.score < rows[list.limit - 1]!.score) return rows;
  return readCandidates(db, select('WHERE rank <= ?'), [...params, -rows[list.limit - 1]!.score + 1e-9]);
}

/** Rows read past the limit at the cut (readTop). */
const CUT_SLACK = 16;

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
  return readTotals(db, table).rows;
}

/** FTS5's averages record: its rows, then each column's tokens — BM25's N and (summed) the average length's numerator. */
function readTotals(db: Database.Database, table: FtsTable): { rows: number; tokens: number } {
  const block = db.prepare(`SELECT block FROM ${table}_data WHERE id = 1`).pluck().get() as Buffer | undefined;
  if (!block || block.length === 0) return { rows: 0, tokens: 0 };
  const reader = { at: 0 };
  const rows = readVarint(block, reader);
  let tokens = 0;
  while (reader.at < block.length) tokens += readVarint(block, reader);
  return { rows, tokens };
}

/** SQLite's varint: big-endian groups of 7 bits, the ninth byte whole. */
function readVarint(bytes: Buffer, reader: { at: number } = { at: 0 }): number {
  let value = 0;
  for (let index = 0; index < 9 && reader.at < bytes.length; index += 1) {
    const byte = bytes[reader.at]!;
    reader.at += 1;
    if (index === 8) return value * 256 + byte;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return value;
  }
  return value;
}

/**
 * The word list from postings: the exact top of rankPostings, whose filters are a set of the kept sessions' rows
 * where that set is small, else a lookup of each entry that would be kept; then the entries, ordered as every
 * list is (rounded score, newest, row id).
 */
function rankFromPostings(
  db: Database.Database,
  query: LexicalQuery,
  postings: SqlitePostings,
  plan: NonNullable<ReturnType<typeof toPostingPhrases>>,
): Candidate[] {
  const { rows, tokens } = readTotals(db, 'entries_fts');
  if (rows === 0) return [];
  const terms = [...plan.phrases, ...plan.excluded].flatMap((phrase) => (phrase.term === null ? [] : [phrase.term]));
  const blocks = postings.readBlocks(terms);
  const filters = renderFilters(query.filters);
  const ranked = rankPostings({
    phrases: plan.phrases.map((phrase) => (phrase.term === null ? { ...phrase, scored: scorePhraseAlone(db, phrase) } : phrase)),
    excluded: plan.excluded.map((phrase) => phrase.term ?? scorePhraseAlone(db, phrase).rowids),
    blocks,
    rows,
    avgLength: tokens / rows,
    limit: query.limit,
    accept: buildAccept(db, filters),
  });
  if (ranked.length === 0) return [];
  // Rows tied at the cut are ordered by time (newest first) on their times alone; whole entries are read for the kept.
  const kept = ranked.length <= query.limit ? ranked : readNewestAtCut(db, ranked, query.limit);
  const entries = new Map(
    db
      .prepare<[string], EntryRow>('SELECT * FROM entries WHERE rowid IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(kept.map((row) => row.rowid)))
      .map((row) => [row.rowid, row]),
  );
  const candidates: Candidate[] = [];
  for (const row of kept) {
    const entry = entries.get(row.rowid);
    if (entry) candidates.push({ rowid: row.rowid, entry: toEntry(entry), score: row.score });
  }
  return orderCandidates(candidates, query.limit);
}

/** The best `limit` rows of a list tied at the cut, reading only the rows' times (top-k.ts selectNewestAtCut). */
function readNewestAtCut(db: Database.Database, ranked: RankedRow[], limit: number): RankedRow[] {
  const times = db
    .prepare<[string], { rowid: number; ts: number | null }>('SELECT rowid, ts FROM entries WHERE rowid IN (SELECT value FROM json_each(?))')
    .all(JSON.stringify(ranked.map((row) => row.rowid)));
  return selectNewestAtCut(ranked, new Map(times.map((row) => [row.rowid, row.ts])), limit);
}

/**
 * A phrase of several words or a prefix, scored alone by FTS5 over its columns: each holding row's BM25
 * contribution, exactly the part the phrase adds within the whole query (the same idf, weights and lengths).
 */
function scorePhraseAlone(db: Database.Database, phrase: QueryPhrase): ScoredEntries {
  const quoted = `"${phrase.text.replace(/"/g, '""')}"${phrase.prefix ? '*' : ''}`;
  const expression = `${phrase.columns === 'own' ? OWN_COLUMNS : SEARCH_COLUMNS} : ${quoted}`;
  const rows = db
    .prepare<[string], { rowid: number; rank: number }>(`SELECT rowid, bm25(entries_fts, ${BM25_WEIGHTS}) AS rank FROM entries_fts WHERE entries_fts MATCH ? ORDER BY rowid`)
    .all(expression);
  const scored = { rowids: new Float64Array(rows.length), scores: new Float64Array(rows.length) };
  rows.forEach((row, index) => {
    scored.rowids[index] = row.rowid;
    scored.scores[index] = -row.rank;
  });
  return scored;
}

/** Rows a filter keeps to be gathered as a set; past this, each entry that would be kept is looked up instead. */
const ACCEPT_SET_ROWS = 50_000;

function buildAccept(db: Database.Database, filters: RenderedFilters): ((rowid: number) => boolean) | undefined {
  if (filters.where.length === 0) return undefined;
  if (filters.narrowsSessions) {
    const kept = db
      .prepare(`SELECT e.rowid FROM ${keptRowsFrom(filters)} WHERE ${filters.where.join(' AND ')} LIMIT ${ACCEPT_SET_ROWS + 1}`)
      .pluck()
      .all(...filters.params) as number[];
    if (kept.length <= ACCEPT_SET_ROWS) {
      const set = new Set(kept);
      return (rowid) => set.has(rowid);
    }
  }
  const check = db.prepare(`SELECT 1 FROM entries e ${joinSessions(filters)} WHERE e.rowid = ? ${andClauses(filters)}`).pluck();
  return (rowid) => check.get(rowid, ...filters.params) !== undefined;
}
