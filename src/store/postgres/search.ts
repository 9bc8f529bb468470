import type { Candidate, LexicalQuery, TimeSearch, VectorQuery } from '../types.js';
import type { PgClient } from './client.js';
import { Params, andClauses, joinSessions, renderFilters } from './filters.js';
import {
  OWN_LABELS,
  type Phrase,
  RANK_WEIGHTS,
  likePattern,
  renderLexicalQuery,
  renderAnyColumnPhrase,
  renderPhrase,
  toOwnPhrases,
  toTrigramNeedles,
  toTsvectorPhrase,
} from './lexical.js';
import { ENTRY_COLUMNS, type EntryRow, toEntry } from './rows.js';
import { hasAllPostings, readPostingBlocks } from './postings.js';
import { type QueryPhrase, toPostingPhrases } from '../postings/query-phrases.js';
import { type ScoredEntries, rankPostings } from '../postings/rank-postings.js';
import { weighFrequency } from '../postings/posting-cursor.js';
import { SCORE_DECIMALS, inverseDocumentFrequency, orderCandidates, phraseBound, rankExactTopKAsync, selectNewestAtCut } from '../top-k.js';

/**
 * The candidate lists of recall. Word and substring matches are scored by BM25 exactly as FTS5 scores them
 * (lexical.ts), so the fused ranking above — the same code for every engine — sees the same lists.
 */
export async function searchLexical(db: PgClient, query: LexicalQuery): Promise<Candidate[]> {
  const fromPostings = await searchPostings(db, query);
  if (fromPostings !== null) return fromPostings;
  const rendered = renderLexicalQuery(query);
  if (rendered.match === null) return [];
  const { rows, tokens } = await readCorpus(db, 'doc_len');
  if (rows === 0) return [];
  const hits = await countPhraseHits(db, rendered.scored);
  const params = new Params();
  const match = params.add(rendered.match);
  const weights = params.add(RANK_WEIGHTS.labels);
  const scale = params.add(RANK_WEIGHTS.scale);
  const toolExtra = params.add(RANK_WEIGHTS.toolExtra);
  const avgdl = params.add(tokens / rows);
  // Each phrase's column-weighted frequency, from C (ts_rank_cd sums the label weights of its occurrences).
  const phraseQueries = rendered.scored.map((phrase) => params.add(renderPhrase(phrase)));
  const frequencies = phraseQueries.map(
    (phraseQuery, index) => `${scale}::float8 * ts_rank_cd(${weights}::float4[], e.tv, ${phraseQuery}::tsquery, 0)
      + ${toolExtra}::float8 * ts_rank_cd('{1,1,1,1}'::float4[], e.tool_tv, ${phraseQuery}::tsquery, 0) AS f${index}`,
  );
  const terms = rendered.scored.map((_, index) => {
    const idf = params.add(inverseDocumentFrequency(rows, hits[index] ?? 0));
    return `${idf}::float8 * (fr.f${index} * 2.2) / (fr.f${index} + 1.2 * (0.25 + 0.75 * e.doc_len / ${avgdl}::float8))`;
  });
  const filters = renderFilters(query.filters, params);
  const limit = params.add(query.limit);
  /** Every match (holding one of those ranked phrases, when given) scored with every phrase; the best kept. */
  const scoreHolding = (holding: readonly number[] | null) => {
    // The rarest phrases select the rows: GIN reads their posting lists and skips through the others'.
    const selecting = holding === null ? '' : ` AND e.tv @@ (${holding.map((index) => `${phraseQueries[index]}::tsquery`).join(' || ')})`;
    return rankTop(db, {
      from: `moon.entries e ${joinSessions(filters)} CROSS JOIN LATERAL (SELECT ${frequencies.join(', ')}) fr`,
      where: `e.tv @@ ${match}::tsquery${selecting} ${andClauses(filters)}`,
      score: `round((${terms.join(' + ')})::numeric, ${SCORE_DECIMALS})::float8`,
      limit,
      params: params.values,
    });
  };
  if (rendered.every || rendered.ranked <= 1) return scoreHolding(null);
  const bounds = hits.map((count) => phraseBound(rows, count));
  const plan = { bounds: bounds.slice(0, rendered.ranked), fixed: bounds.slice(rendered.ranked).reduce((sum, bound) => sum + bound, 0), limit: query.limit };
  return rankExactTopKAsync(plan, (holding) => scoreHolding(holding.length === rendered.ranked ? null : holding));
}

/** Rows a filter may keep for a word list to be ranked from postings; past this, tsvector ranks it. */
const POSTING_FILTER_ROWS = 50_000;

/**
 * The word list from postings (store/postings/), as SQLite ranks it: when every phrase is one term, every entry
 * has its postings, and the list's filters keep a small enough set of rows. Null otherwise (tsvector ranks it).
 */
async function searchPostings(db: PgClient, query: LexicalQuery): Promise<Candidate[] | null> {
  const plan = toPostingPhrases(query);
  if (!plan || !(await hasAllPostings(db))) return null;
  let accept: ((rowid: number) => boolean) | undefined;
  const params = new Params();
  const filters = renderFilters(query.filters, params);
  if (filters.where.length > 0) {
    const kept = await db.query<{ rowid: number }>(
      `SELECT e.rowid FROM moon.entries e ${joinSessions(filters)} WHERE true ${andClauses(filters)} LIMIT ${POSTING_FILTER_ROWS + 1}`,
      params.values,
    );
    if (kept.rows.length > POSTING_FILTER_ROWS) return null;
    const set = new Set(kept.rows.map((row) => Number(row.rowid)));
    accept = (rowid) => set.has(rowid);
  }
  const { rows, tokens } = await readCorpus(db, 'doc_len');
  if (rows === 0) return [];
  const avgLength = tokens / rows;
  const terms = [...plan.phrases, ...plan.excluded].flatMap((phrase) => (phrase.term === null ? [] : [phrase.term]));
  const alone = (phrase: QueryPhrase) => scorePhraseAlone(db, phrase, rows, avgLength);
  const ranked = rankPostings({
    phrases: await Promise.all(plan.phrases.map(async (phrase) => (phrase.term === null ? { ...phrase, scored: await alone(phrase) } : phrase))),
    excluded: await Promise.all(plan.excluded.map(async (phrase) => phrase.term ?? (await alone(phrase)).rowids)),
    blocks: await readPostingBlocks(db, terms),
    rows,
    avgLength,
    limit: query.limit,
    ...(accept ? { accept } : {}),
  });
  if (ranked.length === 0) return [];
  // Rows tied at the cut are ordered by time (newest first) on their times alone; whole entries are read for the kept.
  let kept = ranked;
  if (ranked.length > query.limit) {
    const times = await db.query<{ rowid: number; ts: number | null }>('SELECT rowid, ts FROM moon.entries WHERE rowid = ANY ($1::bigint[])', [ranked.map((row) => row.rowid)]);
    kept = selectNewestAtCut(ranked, new Map(times.rows.map((row) => [Number(row.rowid), row.ts === null ? null : Number(row.ts)])), query.limit);
  }
  const entries = await db.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM moon.entries e WHERE e.rowid = ANY ($1::bigint[])`, [kept.map((row) => row.rowid)]);
  const byRowid = new Map(entries.rows.map((row) => [Number(row.rowid), row]));
  const candidates = kept.flatMap((row) => {
    const entry = byRowid.get(row.rowid);
    return entry ? [{ rowid: row.rowid, entry: toEntry(entry), score: row.score }] : [];
  });
  return orderCandidates(candidates, query.limit);
}

/**
 * A phrase of several words or a prefix, scored alone over its columns, as SQLite's FTS5 scores it there: each
 * holding row's BM25 contribution with the phrase's idf over the rows holding it. Its column-weighted frequency
 * comes from ts_rank_cd (float4, as the tsvector path reads it) and is a sum of weights in tenths, so it is read
 * back to the tenth and weighed as the postings weigh theirs (posting-cursor.ts weighFrequency).
 */
async function scorePhraseAlone(db: PgClient, phrase: QueryPhrase, rows: number, avgLength: number): Promise<ScoredEntries> {
  const tsPhrase = toTsvectorPhrase(phrase);
  if (tsPhrase === null) return { rowids: new Float64Array(0), scores: new Float64Array(0) };
  const found = await db.query<{ rowid: number; tenths: number; doc_len: number }>(
    `SELECT e.rowid, round(10 * ($2::float8 * ts_rank_cd($3::float4[], e.tv, q, 0) + $4::float8 * ts_rank_cd('{1,1,1,1}'::float4[], e.tool_tv, q, 0)))::int AS tenths,
            e.doc_len
     FROM moon.entries e, CAST($1 AS tsquery) q WHERE e.tv @@ $5::tsquery AND e.tv @@ q ORDER BY e.rowid`,
    [renderPhrase(tsPhrase), RANK_WEIGHTS.scale, RANK_WEIGHTS.labels, RANK_WEIGHTS.toolExtra, renderAnyColumnPhrase(tsPhrase)],
  );
  const idf = inverseDocumentFrequency(rows, found.rows.length);
  const scored = { rowids: new Float64Array(found.rows.length), scores: new Float64Array(found.rows.length) };
  found.rows.forEach((row, index) => {
    scored.rowids[index] = Number(row.rowid);
    scored.scores[index] = idf * weighFrequency(row.tenths, row.doc_len, avgLength);
  });
  return scored;
}

/**
 * The best `limit` rows of one scan: each row matching `where` is scored as it is read (its tsvector or trigram
 * body is unpacked there once, not again by a second read of the matches), and only the rows kept are joined
 * back for their columns. Best first: score, then newest, then row id, as on every engine.
 */
function rankTop(db: PgClient, query: { from: string; where: string; score: string; limit: string; params: unknown[] }): Promise<Candidate[]> {
  return rank(
    db,
    `WITH top AS (
       SELECT e.rowid, e.ts, ${query.score} AS score FROM ${query.from} WHERE ${query.where}
       ORDER BY score DESC, e.ts DESC NULLS LAST, e.rowid LIMIT ${query.limit})
     SELECT ${ENTRY_COLUMNS}, top.score FROM top JOIN moon.entries e ON e.rowid = top.rowid
     ORDER BY top.score DESC, top.ts DESC NULLS LAST, top.rowid`,
    query.params,
  );
}

/**
 * Whether any entry holds the term in its own columns. The lexeme counts answer a one-word term, and a term with
 * a word no entry holds, at once: asking the entries with `LIMIT 1` makes PostgreSQL scan the whole table for
 * an absent word (1.2 s at 1M messages). Only a phrase of known words is looked for in the entries.
 */
export async function hasLexicalMatch(db: PgClient, term: string): Promise<boolean> {
  const [phrase] = toOwnPhrases([term]);
  if (!phrase) return false;
  const counts = await readLexemeCounts(db, phrase.lexemes);
  if (!phrase.lexemes.every((lexeme) => (counts.get(lexeme)?.own ?? 0) > 0)) return false;
  if (phrase.lexemes.length === 1) return true;
  const result = await db.query('SELECT 1 FROM moon.entries WHERE tv @@ $2::tsquery AND tv @@ $1::tsquery LIMIT 1', [renderPhrase(phrase), renderAnyColumnPhrase(phrase)]);
  return result.rows.length > 0;
}

export async function searchTrigram(db: PgClient, query: LexicalQuery): Promise<Candidate[]> {
  const needles = toTrigramNeedles(query.any);
  if (needles.length === 0) return [];
  const { rows, tokens } = await readCorpus(db, 'tri_len');
  if (rows === 0) return [];
  const hits = await countHits(
    db,
    needles.map((needle) => ({ sql: "e.tri LIKE $ ESCAPE '\\'", value: likePattern(needle) })),
  );
  const idf = hits.map((count) => inverseDocumentFrequency(rows, count));
  // An index with no trigram at all (only short texts) scores every match alike.
  const avgdl = tokens > 0 ? tokens / rows : 1;
  /** Every row holding one of those needles, scored with every needle; the best kept. */
  const scoreHolding = (holding: readonly number[]) => {
    const params = new Params();
    const holds = holding.map((index) => `e.tri LIKE ${params.add(likePattern(needles[index]!))} ESCAPE '\\'`);
    const scoring = renderSubstringScore(needles, idf, avgdl, params);
    const filters = renderFilters(query.filters, params, query);
    return rankTop(db, {
      from: `moon.entries e ${joinSessions(filters)} CROSS JOIN LATERAL (SELECT ${scoring.frequencies.join(', ')}) sf`,
      where: `(${holds.join(' OR ')}) ${andClauses(filters)}`,
      score: `round(${scoring.score}::numeric, ${SCORE_DECIMALS})::float8`,
      limit: params.add(query.limit),
      params: params.values,
    });
  };
  return rankExactTopKAsync({ bounds: hits.map((count) => phraseBound(rows, count)), fixed: 0, limit: query.limit }, scoreHolding);
}

/**
 * moon.bm25_substr (schema.ts) written into the query, term for term and in its order of operations, so it gives
 * the same floats: a SQL function per row costs more than the scan it scores (46 ms against 14 for one needle
 * over 3,500 rows). Each needle's frequency is counted once per row (`sf.f<i>`, as the word list's `fr.f<i>`): a
 * needle that cannot overlap itself (no proper prefix that is also a suffix) by replace(), in C; one that can
 * ("aba" in "ababa") by moon.count_substr, which counts overlapping occurrences as FTS5's trigram phrases do.
 */
function renderSubstringScore(needles: readonly string[], idf: readonly number[], avgdl: number, params: Params): { frequencies: string[]; score: string } {
  const average = params.add(avgdl);
  const frequencies = needles.map((needle, index) => {
    const value = params.add(needle);
    const count = overlapsItself(needle)
      ? `moon.count_substr(e.tri, ${value}::text)::float8`
      : `((length(e.tri) - length(replace(e.tri, ${value}::text, ''))) / length(${value}::text))::float8`;
    return `${count} AS f${index}`;
  });
  const terms = needles.map(
    (_, index) => `(${params.add(idf[index])}::float8 * (sf.f${index} * 2.2) / (sf.f${index} + 1.2 * (0.25 + 0.75 * e.tri_len / ${average}::float8)))`,
  );
  return { frequencies, score: `coalesce(${terms.join(' + ')}, 0)` };
}

/** Whether two occurrences of the needle can overlap: a proper prefix of it is also a suffix. */
export function overlapsItself(needle: string): boolean {
  const chars = [...needle];
  for (let size = 1; size < chars.length; size += 1) {
    if (chars.slice(0, size).join('') === chars.slice(chars.length - size).join('')) return true;
  }
  return false;
}

export async function searchTime(db: PgClient, query: TimeSearch): Promise<Candidate[]> {
  const params = new Params();
  const center = query.centerMs === null ? null : params.add(query.centerMs);
  const filters = renderFilters(query.filters, params, query);
  return rank(
    db,
    `SELECT ${ENTRY_COLUMNS}, ${center === null ? '0' : `-abs(e.ts - ${center}::bigint)`}::float8 AS score
     FROM moon.entries e ${joinSessions(filters)}
     WHERE e.ts IS NOT NULL ${andClauses(filters)}
     ORDER BY score DESC, e.ts ${center === null ? 'DESC' : 'ASC'}, e.rowid LIMIT ${params.add(query.limit)}`,
    params.values,
  );
}

/**
 * Nearest entries by cosine distance. Unfiltered, the HNSW index answers; with filters, pgvector's iterative scan
 * keeps reading the graph until enough rows pass them, and when that still falls short (a very narrow filter) an
 * exact scan over the filtered rows does — so filters always apply before the top-k.
 */
export async function searchVector(db: PgClient, query: VectorQuery, exact = false): Promise<Candidate[]> {
  const params = new Params();
  const vector = params.add(toVectorLiteral(query.vector));
  const filters = renderFilters(query.filters, params, query);
  // `+ 0` hides the ordering from the planner, so it cannot use the approximate index: an exact scan.
  const distance = `(v.vector <=> ${vector}::public.vector)${exact ? ' + 0' : ''}`;
  const found = await rank(
    db,
    `SELECT ${ENTRY_COLUMNS}, (1 - (v.vector <=> ${vector}::public.vector))::float8 AS score
     FROM moon.embeddings v JOIN moon.entries e ON e.rowid = v.rowid ${joinSessions(filters)}
     WHERE true ${andClauses(filters)}
     ORDER BY ${distance} LIMIT ${params.add(query.limit)}`,
    params.values,
  );
  if (!exact && filters.where.length > 0 && found.length < query.limit) return searchVector(db, query, true);
  // Equal distances in the same order as the SQLite engine: newest first, then by id.
  return found.sort((a, b) => b.score - a.score || (b.entry.ts ?? -Infinity) - (a.entry.ts ?? -Infinity) || a.rowid - b.rowid);
}

export function toVectorLiteral(vector: Float32Array): string {
  return `[${Array.from(vector, (value) => (Number.isFinite(value) ? value : 0)).join(',')}]`;
}

async function rank(db: PgClient, sql: string, params: unknown[]): Promise<Candidate[]> {
  const result = await db.query<EntryRow & { score: number }>(sql, params);
  return result.rows.map((row) => ({ rowid: row.rowid, entry: toEntry(row), score: Number(row.score) }));
}

/** Rows in the index and their total length (words or trigrams): BM25's N and average document length. */
async function readCorpus(db: PgClient, column: 'doc_len' | 'tri_len'): Promise<{ rows: number; tokens: number }> {
  const result = await db.query<{ rows: number; tokens: number }>(
    `SELECT rows, ${column === 'doc_len' ? 'tokens' : 'tri_tokens'} AS tokens FROM moon.corpus WHERE id = 1`,
  );
  return { rows: Number(result.rows[0]?.rows ?? 0), tokens: Number(result.rows[0]?.tokens ?? 0) };
}

/**
 * How many rows hold each phrase (BM25's document frequency). A one-word phrase in every column or in the
 * entry's own ones is read from the lexeme counts the triggers keep (schema.ts, migration 6); the others —
 * several words, a prefix — are counted in one scan over their union.
 */
async function countPhraseHits(db: PgClient, phrases: readonly Phrase[]): Promise<number[]> {
  const kept = (phrase: Phrase): boolean => phrase.lexemes.length === 1 && !phrase.prefix;
  const known = await readLexemeCounts(db, phrases.filter(kept).map((phrase) => phrase.lexemes[0]!));
  const counted = phrases.filter((phrase) => !kept(phrase));
  const counts = counted.length > 0 ? await countHits(db, counted.map((phrase) => ({ sql: 'e.tv @@ $::tsquery', value: renderPhrase(phrase) }))) : [];
  let next = 0;
  return phrases.map((phrase) => {
    if (!kept(phrase)) return counts[next++] ?? 0;
    const stat = known.get(phrase.lexemes[0]!);
    // A phrase is matched in every column (SEARCH_LABELS) or in the entry's own (OWN_LABELS).
    return (phrase.labels === OWN_LABELS ? stat?.own : stat?.rows) ?? 0;
  });
}

/** Each lexeme's kept counts — rows holding it anywhere, and in the entry's own columns — for those it has. */
async function readLexemeCounts(db: PgClient, lexemes: readonly string[]): Promise<Map<string, { rows: number; own: number }>> {
  const counts = new Map<string, { rows: number; own: number }>();
  if (lexemes.length === 0) return counts;
  const found = await db.query<{ lexeme: string; rows: number; own_rows: number }>('SELECT lexeme, rows, own_rows FROM moon.lexemes WHERE lexeme = ANY($1::text[])', [
    [...new Set(lexemes)],
  ]);
  for (const row of found.rows) counts.set(row.lexeme, { rows: Number(row.rows), own: Number(row.own_rows) });
  return counts;
}

/** How many rows each condition matches (BM25's document frequency), in one scan over their union. */
async function countHits(db: PgClient, conditions: { sql: string; value: string }[]): Promise<number[]> {
  const params: unknown[] = [];
  const clause = (condition: { sql: string; value: string }): string => {
    params.push(condition.value);
    return condition.sql.replace('$', `$${params.length}`);
  };
  const each = conditions.map((condition) => `count(*) FILTER (WHERE ${clause(condition)}) AS c${params.length}`);
  const union = conditions.map((condition) => `(${clause(condition)})`).join(' OR ');
  const result = await db.query<Record<string, number>>(`SELECT ${each.join(', ')} FROM moon.entries e WHERE ${union}`, params);
  const row = result.rows[0] ?? {};
  return Object.keys(row).map((key) => Number(row[key] ?? 0));
}
