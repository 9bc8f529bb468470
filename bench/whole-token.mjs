#!/usr/bin/env node
// Would an FTS5 table that keeps paths and identifiers whole answer them faster than today's lists? Builds one
// beside an index (unicode61 with `/._-` as token characters, over each entry's technical tokens — what the
// trigram body holds) and times each path and identifier query three ways: that table, the word phrase and the
// trigram substring, each newest first with bm25() and capped as recall caps them (docs/benchmarks.md, "Recall
// at scale against ripgrep").
//
//   node bench/whole-token.mjs --corpus bench/corpora/1M [--home DIR]   (npm run build first)
import Database from 'better-sqlite3';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildTrigramBody } from '../dist/text/trigram.js';
import { QUERIES } from './queries.mjs';
import { BENCH_DIR, ensureIndexedHome, makeWorkDir, readFlag } from './script.mjs';

const CAP = 20_000;
const work = makeWorkDir('moon-whole-token-');
const home = ensureIndexedHome(resolve(readFlag('corpus', join(BENCH_DIR, 'corpora', '100k'))), work);
const index = new Database(join(home, 'moon.db'), { readonly: true });
const side = new Database(join(work, 'whole-token.db'));
side.exec(`CREATE VIRTUAL TABLE ids USING fts5(body, content='', contentless_delete=1, tokenize="unicode61 tokenchars '/._-'")`);
const insert = side.prepare('INSERT INTO ids (rowid, body) VALUES (?, ?)');
let started = performance.now();
side.transaction(() => {
  for (const row of index.prepare('SELECT rowid, text, tool_target, result FROM entries').iterate()) insert.run(row.rowid, buildTrigramBody(row.text, row.tool_target, row.result));
})();
const buildS = (performance.now() - started) / 1000;
const sizeMb = side.prepare('SELECT page_count * page_size AS b FROM pragma_page_count, pragma_page_size').get().b / 1e6;

/** Median ms of three runs after one warm-up, and the rows returned. */
function time(db, table, match) {
  const statement = db.prepare(`SELECT rowid, bm25(${table}) AS score FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid DESC LIMIT ${CAP}`);
  let rows = statement.all(match);
  const times = [];
  for (let i = 0; i < 3; i += 1) {
    started = performance.now();
    rows = statement.all(match);
    times.push(performance.now() - started);
  }
  return { ms: times.sort((a, b) => a - b)[1], rows: rows.length };
}

const quote = (text) => `"${text.replaceAll('"', '""')}"`;
const wordsOf = (term) => term.split(/[^\p{L}\p{N}]+/u).filter(Boolean).join(' ');
const entries = index.prepare('SELECT count(*) AS n FROM entries').get().n;
console.log(`Measured ${new Date().toISOString().slice(0, 10)}; ${entries.toLocaleString('en')} entries; whole-token table ${sizeMb.toFixed(0)} MB, built in ${buildS.toFixed(1)} s; median of 3, capped at ${CAP.toLocaleString('en')}.\n`);
console.log('| query | kind | whole token ms (rows) | word phrase ms (rows) | trigram substring ms (rows) |');
console.log('|---|---|---:|---:|---:|');
for (const { query, kind } of QUERIES.filter((item) => item.kind === 'path' || item.kind === 'identifier')) {
  const whole = time(side, 'ids', quote(query));
  const words = time(index, 'entries_fts', quote(wordsOf(query)));
  const grams = time(index, 'entries_tri', quote(query));
  const cell = ({ ms, rows }) => `${ms.toFixed(1)} (${rows.toLocaleString('en')})`;
  console.log(`| \`${query}\` | ${kind} | ${cell(whole)} | ${cell(words)} | ${cell(grams)} |`);
}
