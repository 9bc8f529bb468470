#!/usr/bin/env node
// What each part of the full-text index costs (docs/benchmarks.md, "Fast at any size"): the index documents
// of a real index are inserted again into fresh FTS5 tables, whole and with one part left out, interleaved
// round by round in one run, so machine noise hits every variant alike. Insert time and database size per
// variant, as a ratio of the whole. The documents are built by moon's own index-document.ts (dist/).
//
//   node bench/ablation.mjs [--home DIR | --corpus DIR] [--rounds 2] [--out FILE]
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { BENCH_DIR as here, REPO as repo, ensureIndexedHome, makeWorkDir, readFlag as flag } from './script.mjs';

const rounds = Number(flag('rounds', '2'));
const out = flag('out', join(here, 'out', 'ablation.md'));
const work = makeWorkDir('moon-ablation-');
const corpus = resolve(flag('corpus', join(here, 'corpora', '100k')));
const home = ensureIndexedHome(corpus, work);

const { buildEntryDocument, buildIndexDocument, buildTrigramDocument, CONTEXT_RADIUS } = await import(
  pathToFileURL(join(repo, 'dist', 'store', 'index-document.js')).href
);
const source = new Database(join(home, 'moon.db'), { readonly: true });
const rows = source.prepare('SELECT session_id, role, text, result, tool_target, tool_name FROM entries ORDER BY session_id, seq, rowid').all();
source.close();
const documents = rows.map((row, index) => {
  const before = [];
  const after = [];
  for (let offset = 1; offset <= CONTEXT_RADIUS; offset += 1) {
    if (rows[index - offset]?.session_id === row.session_id) before.push(rows[index - offset].text);
    if (rows[index + offset]?.session_id === row.session_id) after.push(rows[index + offset].text);
  }
  const entry = { text: row.text, result: row.result, toolTarget: row.tool_target };
  const document = buildIndexDocument(buildEntryDocument(entry), { before, after });
  return { rowid: index + 1, role: row.role, tool: row.tool_name, ...document, trigram: buildTrigramDocument(entry) };
});
const megabytes = (field) => documents.reduce((sum, document) => sum + (document[field]?.length ?? 0), 0) / 1e6;

const VARIANTS = [
  { name: 'whole index (as moon builds it)', parts: {} },
  { name: 'without the trigram table', parts: { trigram: false } },
  { name: 'without the context column', parts: { context: false } },
  { name: 'without the keywords column', parts: { keywords: false } },
  { name: 'text, role, tool and target only (≈ the floor’s one table)', parts: { trigram: false, context: false, keywords: false } },
];

/** Insert every document in transactions of 400 rows (about one ingest batch), return ms and bytes. */
function insertAll(variant, path) {
  const keep = { trigram: true, context: true, keywords: true, ...variant.parts };
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE VIRTUAL TABLE entries_fts USING fts5(text, role, tool, target, keywords, context, content = '', contentless_delete = 1,
             tokenize = 'porter unicode61 remove_diacritics 2');
           CREATE VIRTUAL TABLE entries_tri USING fts5(body, content = '', contentless_delete = 1, tokenize = 'trigram');`);
  const words = db.prepare('INSERT INTO entries_fts (rowid, text, role, tool, target, keywords, context) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const grams = db.prepare('INSERT INTO entries_tri (rowid, body) VALUES (?, ?)');
  const started = performance.now();
  for (let from = 0; from < documents.length; from += 400) {
    db.transaction(() => {
      for (const d of documents.slice(from, from + 400)) {
        words.run(d.rowid, d.text, d.role, d.tool, d.target, keep.keywords ? d.keywords : '', keep.context ? d.context : '');
        if (keep.trigram && d.trigram) grams.run(d.rowid, d.trigram);
      }
    })();
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  const ms = performance.now() - started;
  db.close();
  return { ms, bytes: statSync(path).size };
}

const measured = new Map(VARIANTS.map((variant) => [variant.name, []]));
for (let round = 0; round < rounds; round += 1) {
  for (const [index, variant] of VARIANTS.entries()) {
    const path = join(work, `variant-${index}-${round}.db`);
    measured.get(variant.name).push(insertAll(variant, path));
    rmSync(path, { force: true });
    console.error(`round ${round + 1}: ${variant.name} ${(measured.get(variant.name).at(-1).ms / 1000).toFixed(2)} s`);
  }
}
const best = (name) => Math.min(...measured.get(name).map((run) => run.ms));
const whole = VARIANTS[0].name;
const lines = [
  `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus()[0].model}, ${cpus().length} cores, Node ${process.version}; ${documents.length.toLocaleString('en')} entries${home === join(work, 'home') ? ` of ${corpus.split('/').pop()}` : ''}; indexed text ${megabytes('text').toFixed(1)} MB, context ${megabytes('context').toFixed(1)} MB, keywords ${megabytes('keywords').toFixed(1)} MB, trigram body ${megabytes('trigram').toFixed(1)} MB; best of ${rounds} rounds, interleaved.`,
  '',
  '| index | insert s | × whole | size MB | × whole |',
  '|---|---:|---:|---:|---:|',
  ...VARIANTS.map((variant) => {
    const size = measured.get(variant.name)[0].bytes;
    return `| ${variant.name} | ${(best(variant.name) / 1000).toFixed(2)} | ${(best(variant.name) / best(whole)).toFixed(2)} | ${(size / 1e6).toFixed(0)} | ${(size / measured.get(whole)[0].bytes).toFixed(2)} |`;
  }),
];
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${lines.join('\n')}\n`);
console.log(lines.join('\n'));
