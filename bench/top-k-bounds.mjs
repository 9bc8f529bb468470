#!/usr/bin/env node
// How far tighter per-phrase bounds could take exact top-k (store/top-k.ts) on an index: for the multi-word,
// command and natural-question queries of bench/queries.mjs, the rows MaxScore scores with today's bound per
// phrase (idf × (k1 + 1)) against the tightest bound any per-phrase statistic could give — the phrase's exact
// largest contribution to any entry, read from the index (a block-max or max-tf/min-length statistic is looser).
// The word list as recall asks it (stopwords dropped, neighbours' context on), SQLite only; MaxScore is simulated
// step by step with the real scores, as rankExactTopK runs it. Beside them, block-max WAND over postings of our
// own (each phrase's rows in rowid order with their exact contributions, in blocks of --block rows with each
// block's maximum): the rows it scores fully, and its time in memory — what postings kept beside FTS5 could do.
//
//   node bench/top-k-bounds.mjs --home DIR [--limit 400] [--block 128]   (DIR: a MOON_HOME indexed by `moon index`)
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { dropStopwords, splitQueryTerms } from '../dist/search/terms.js';
import { QUERIES } from './queries.mjs';
import { readFlag } from './script.mjs';

const home = readFlag('home', null);
if (!home) {
  console.error('usage: node bench/top-k-bounds.mjs --home DIR [--limit 400]');
  process.exit(2);
}
const limit = Number(readFlag('limit', '400'));
const blockSize = Number(readFlag('block', '128'));
const db = new Database(join(home, 'moon.db'), { readonly: true });
const RANK = 'bm25(entries_fts, 1.0, 0.0, 2.0, 1.5, 0.6, 0.3)';
const COLUMNS = '{text tool target keywords context}';
const rowCount = db.prepare('SELECT count(*) FROM entries').pluck().get();
const quote = (term) => `"${term.replace(/"/g, '""')}"`;
const match = (expression, sql) => db.prepare(sql).all(expression);

/** Rows scored (the holding sets, summed over the steps) and steps, as rankExactTopK takes them with `bounds`. */
function simulate(bounds, holders, scores) {
  const order = bounds.map((bound, index) => ({ bound, index })).sort((a, b) => b.bound - a.bound || a.index - b.index);
  const tail = new Array(order.length + 1).fill(0);
  for (let m = order.length - 1; m >= 0; m -= 1) tail[m] = tail[m + 1] + order[m].bound;
  let essential = 1;
  let rows = 0;
  let steps = 0;
  for (;;) {
    const holding = new Set(order.slice(0, essential).flatMap((item) => holders[item.index]));
    rows += holding.size;
    steps += 1;
    if (essential >= order.length) return { rows, steps };
    const best = [...holding].map((rowid) => scores.get(rowid)).sort((a, b) => b - a);
    if (best.length < limit) {
      essential += 1;
      continue;
    }
    let next = essential;
    while (next < order.length && tail[next] * (1 + 1e-9) >= best[limit - 1]) next += 1;
    if (next === essential) return { rows, steps };
    essential = next;
  }
}

/** One phrase's postings: rowids ascending, their contributions, and blocks (last rowid, maximum contribution). */
function buildPostings(rows, bound) {
  rows.sort((a, b) => a.rowid - b.rowid);
  const docs = rows.map((row) => row.rowid);
  const gains = rows.map((row) => row.score);
  const blocks = [];
  for (let start = 0; start < docs.length; start += blockSize) {
    const end = Math.min(docs.length, start + blockSize);
    let max = 0;
    for (let at = start; at < end; at += 1) max = Math.max(max, gains[at]);
    blocks.push({ last: docs[end - 1], max });
  }
  return { docs, gains, blocks, bound, at: 0 };
}

/** First index at or after `from` whose rowid is ≥ doc (galloping, then binary search). */
function seek(list, doc, from = list.at) {
  let low = from;
  let step = 1;
  let high = from;
  while (high < list.docs.length && list.docs[high] < doc) {
    low = high + 1;
    high += step;
    step *= 2;
  }
  high = Math.min(high, list.docs.length);
  while (low < high) {
    const mid = (low + high) >> 1;
    if (list.docs[mid] < doc) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * Exact top `limit` by block-max WAND (Ding & Suel 2011): lists in order of their current rowid; the pivot is the
 * first row the bounds of the lists up to it could lift above the k-th score; the blocks holding the pivot are
 * checked with their maxima before the row is scored, and skipped past when they cannot reach it. Ties with the
 * k-th score are kept (recall breaks them by time). Returns the rows scored fully and the k-th score.
 */
function runBlockMaxWand(lists) {
  const top = [];
  let theta = 0;
  let scored = 0;
  const live = lists.filter((list) => list.docs.length > 0);
  for (const list of live) list.at = 0;
  const current = (list) => (list.at < list.docs.length ? list.docs[list.at] : Infinity);
  for (;;) {
    live.sort((a, b) => current(a) - current(b));
    let sum = 0;
    let pivot = -1;
    for (let i = 0; i < live.length && current(live[i]) !== Infinity; i += 1) {
      sum += live[i].bound;
      if (top.length < limit || sum >= theta) {
        pivot = i;
        break;
      }
    }
    if (pivot < 0) break;
    const doc = current(live[pivot]);
    while (pivot + 1 < live.length && current(live[pivot + 1]) === doc) pivot += 1;
    let blockSum = 0;
    let nextDoc = Infinity;
    for (let i = 0; i <= pivot; i += 1) {
      const list = live[i];
      const block = list.blocks[Math.floor(seek(list, doc) / blockSize)] ?? null;
      if (block) {
        blockSum += block.max;
        nextDoc = Math.min(nextDoc, block.last + 1);
      }
    }
    if (top.length >= limit && blockSum < theta) {
      // No row up to the end of the shortest of these blocks can reach the k-th score.
      const target = Math.min(nextDoc, pivot + 1 < live.length ? current(live[pivot + 1]) : Infinity);
      for (let i = 0; i <= pivot; i += 1) live[i].at = seek(live[i], Math.max(target, doc + 1));
      continue;
    }
    if (current(live[0]) === doc) {
      let score = 0;
      for (const list of live) {
        list.at = seek(list, doc);
        if (list.docs[list.at] === doc) {
          score += list.gains[list.at];
          list.at += 1;
        }
      }
      scored += 1;
      if (top.length < limit || score >= theta) {
        top.push(score);
        top.sort((a, b) => b - a);
        if (top.length > limit) top.length = limit;
        if (top.length >= limit) theta = top[limit - 1] * (1 - 1e-9);
      }
    } else {
      for (let i = 0; i < pivot; i += 1) live[i].at = seek(live[i], doc);
    }
  }
  return { scored, kth: top.length >= limit ? top[limit - 1] : 0, top };
}

const lines = [
  `${rowCount.toLocaleString('en')} entries, limit ${limit}; rows scored by MaxScore with each bound (fewer is faster)`,
  '',
  '| query | kind | matches | idf × 2.2: rows (steps) | exact max: rows (steps) | exact max / idf × 2.2, per phrase | block-max WAND: rows scored (ms in memory) |',
  '|---|---|---:|---:|---:|---|---:|',
];
const totals = { matches: 0, loose: 0, tight: 0, wand: 0, wandMs: 0, mismatched: 0 };
for (const { query, kind } of QUERIES.filter((item) => ['multi-word', 'command', 'natural question'].includes(item.kind))) {
  const terms = [...new Set(dropStopwords(splitQueryTerms(query)))];
  const phrases = terms.map((term) => `${COLUMNS} : ${quote(term)}`);
  const holders = phrases.map((phrase) => match(phrase, 'SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?').map((row) => row.rowid));
  const largest = phrases.map((phrase) =>
    match(phrase, `SELECT -${RANK} AS score FROM entries_fts WHERE entries_fts MATCH ?`).reduce((most, row) => Math.max(most, row.score), 0),
  );
  const loose = holders.map((rows) => (rows.length === 0 ? 0 : Math.max(1e-6, Math.log((rowCount - rows.length + 0.5) / (rows.length + 0.5))) * 2.2));
  const scores = new Map(match(`${COLUMNS} : (${terms.map(quote).join(' OR ')})`, `SELECT rowid, -${RANK} AS score FROM entries_fts WHERE entries_fts MATCH ?`).map((row) => [row.rowid, row.score]));
  const [a, b] = [simulate(loose, holders, scores), simulate(largest, holders, scores)];
  // Each phrase's contribution to each row: BM25 is a sum over phrases, so the phrase alone scores its part.
  const postings = phrases.map((phrase, index) =>
    buildPostings(match(phrase, `SELECT rowid, -${RANK} AS score FROM entries_fts WHERE entries_fts MATCH ?`), loose[index]),
  );
  const started = performance.now();
  const wand = runBlockMaxWand(postings);
  const wandMs = performance.now() - started;
  const exact = [...scores.values()].sort((x, y) => y - x).slice(0, limit);
  if (exact.length !== wand.top.length || exact.some((value, index) => Math.abs(value - wand.top[index]) > 1e-6 * Math.max(1, Math.abs(value)))) totals.mismatched += 1;
  totals.matches += scores.size;
  totals.loose += a.rows;
  totals.tight += b.rows;
  totals.wand += wand.scored;
  totals.wandMs += wandMs;
  const ratios = largest.map((value, index) => (loose[index] > 0 ? (value / loose[index]).toFixed(2) : '–')).join(' ');
  lines.push(`| ${query.length > 48 ? `${query.slice(0, 45)}…` : query} | ${kind} | ${scores.size} | ${a.rows} (${a.steps}) | ${b.rows} (${b.steps}) | ${ratios} | ${wand.scored} (${wandMs.toFixed(1)}) |`);
}
lines.push(`| **all** | | ${totals.matches} | ${totals.loose} | ${totals.tight} (${(totals.tight / totals.loose).toFixed(2)}×) | | ${totals.wand} (${(totals.wand / totals.loose).toFixed(2)}×; ${totals.wandMs.toFixed(0)} ms) |`);
lines.push('', totals.mismatched === 0 ? 'Block-max WAND returned the exact top scores for every query.' : `Block-max WAND differed from the exact top scores on ${totals.mismatched} queries.`);
console.log(lines.join('\n'));
