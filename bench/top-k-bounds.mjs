#!/usr/bin/env node
// How far tighter per-phrase bounds could take exact top-k (store/top-k.ts) on an index: for the multi-word,
// command and natural-question queries of bench/queries.mjs, the rows MaxScore scores with today's bound per
// phrase (idf × (k1 + 1)) against the tightest bound any per-phrase statistic could give — the phrase's exact
// largest contribution to any entry, read from the index (a block-max or max-tf/min-length statistic is looser).
// The word list as recall asks it (stopwords dropped, neighbours' context on), SQLite only; MaxScore is simulated
// step by step with the real scores, as rankExactTopK runs it.
//
//   node bench/top-k-bounds.mjs --home DIR [--limit 400]      (DIR: a MOON_HOME indexed by `moon index`)
import { join } from 'node:path';
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

const lines = [
  `${rowCount.toLocaleString('en')} entries, limit ${limit}; rows scored by MaxScore with each bound (fewer is faster)`,
  '',
  '| query | kind | matches | idf × 2.2: rows (steps) | exact max: rows (steps) | exact max / idf × 2.2, per phrase |',
  '|---|---|---:|---:|---:|---|',
];
const totals = { matches: 0, loose: 0, tight: 0 };
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
  totals.matches += scores.size;
  totals.loose += a.rows;
  totals.tight += b.rows;
  const ratios = largest.map((value, index) => (loose[index] > 0 ? (value / loose[index]).toFixed(2) : '–')).join(' ');
  lines.push(`| ${query.length > 48 ? `${query.slice(0, 45)}…` : query} | ${kind} | ${scores.size} | ${a.rows} (${a.steps}) | ${b.rows} (${b.steps}) | ${ratios} |`);
}
lines.push(`| **all** | | ${totals.matches} | ${totals.loose} | ${totals.tight} (${(totals.tight / totals.loose).toFixed(2)}×) | |`);
console.log(lines.join('\n'));
