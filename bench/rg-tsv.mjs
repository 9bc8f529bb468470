#!/usr/bin/env node
// moon recall against ripgrep over a TSV of every message (docs/benchmarks.md, "Fast at any size"): jq turns the
// corpus into one `id \t timestamp \t kind \t text` file once (bench/queries.mjs, JQ_FILTER), then each query is
// `rg -i -c` over it — the cheapest grep can answer (a count of matching lines, nothing printed) — beside moon's
// in-process hybrid recall on an index of the same corpus, query by query in one run.
//
//   node bench/rg-tsv.mjs [--corpus DIR] [--home DIR] [--reps 3] [--out FILE]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { JQ_FILTER, QUERIES } from './queries.mjs';
import { BENCH_DIR as here, REPO as repo, ensureIndexedHome, makeWorkDir, readFlag as flag } from './script.mjs';

const corpus = resolve(flag('corpus', join(here, 'corpora', '100k')));
const reps = Number(flag('reps', '3'));
const out = flag('out', join(here, 'out', `rg-tsv-${corpus.split('/').pop()}.md`));
const work = makeWorkDir('moon-rg-tsv-');
const home = ensureIndexedHome(corpus, work);

const tsv = join(work, 'messages.tsv');
const madeAt = performance.now();
execFileSync('bash', ['-o', 'pipefail', '-c', `find "$0" -name '*.jsonl' -print0 | xargs -0 cat | jq -r -c "$1" > "$2"`, corpus, JQ_FILTER, tsv], {
  stdio: ['ignore', 'ignore', 'inherit'],
  maxBuffer: 1024 * 1024,
});
const madeMs = performance.now() - madeAt;
const tsvBytes = statSync(tsv).size;
console.error(`TSV: ${(tsvBytes / 1e6).toFixed(0)} MB in ${(madeMs / 1000).toFixed(1)} s`);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Seed 002's simple mode: the query's words ORed, case-insensitive. */
function grep(query) {
  const words = query.split(/\s+/).filter(Boolean).map(escape);
  const pattern = words.length === 1 ? words[0] : `(${words.join('|')})`;
  spawnSync('rg', ['-i', '-c', '-e', pattern, tsv]); // warm
  const times = [];
  let lines = 0;
  for (let rep = 0; rep < reps; rep += 1) {
    const started = performance.now();
    const result = spawnSync('rg', ['-i', '-c', '-e', pattern, tsv], { encoding: 'utf8' });
    times.push(performance.now() - started);
    lines = Number(result.stdout.trim() || '0');
  }
  return { ms: median(times), lines };
}

const { loadConfig, createMoon } = await import(pathToFileURL(join(repo, 'dist', 'index.js')).href);
const env = { ...process.env, MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'UTC' };
for (const name of Object.keys(env)) if (/^MOON_(SOURCES|CURRENT_SESSION_ID|RECALL_|EMBED_|DATABASE_URL)/.test(name)) delete env[name];
const moon = createMoon(loadConfig({ env }));
await moon.history.recall({ query: 'warm up the index', limit: 10 });
const rows = [];
for (const q of QUERIES) {
  const times = [];
  for (let rep = 0; rep < reps; rep += 1) {
    const started = performance.now();
    await moon.history.recall({ query: q.query, limit: 10 });
    times.push(performance.now() - started);
  }
  rows.push({ ...q, moonMs: median(times), ...grep(q.query) });
  console.error(`${q.query}: moon ${rows.at(-1).moonMs.toFixed(1)} ms, rg ${rows.at(-1).ms.toFixed(0)} ms`);
}
await moon.close();

const kinds = [...new Set(rows.map((row) => row.kind))];
const lines = [
  `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus()[0].model}, ${cpus().length} cores, Node ${process.version}; corpus ${corpus.split('/').pop()}; TSV ${(tsvBytes / 1e6).toFixed(0)} MB (jq, once: ${(madeMs / 1000).toFixed(1)} s); median of ${reps} per query, moon in-process hybrid recall (limit 10), \`rg -i -c\` over the TSV.`,
  '',
  '| query kind | queries | moon median ms (worst query) | rg median ms (fastest query) | slowest speed-up (rg / moon, per query) |',
  '|---|---:|---:|---:|---:|',
  ...kinds.map((kind) => {
    const of = rows.filter((row) => row.kind === kind);
    const worst = Math.max(...of.map((row) => row.moonMs));
    const fastest = Math.min(...of.map((row) => row.ms));
    const slowest = Math.min(...of.map((row) => row.ms / row.moonMs));
    return `| ${kind} | ${of.length} | ${worst.toFixed(1)} | ${fastest.toFixed(0)} | ${slowest.toFixed(1)}× |`;
  }),
  '',
  '<details><summary>Per query</summary>',
  '',
  '| query | kind | moon ms | rg ms | rg lines | speed-up |',
  '|---|---|---:|---:|---:|---:|',
  ...rows.map((row) => `| \`${row.query}\` | ${row.kind} | ${row.moonMs.toFixed(1)} | ${row.ms.toFixed(0)} | ${row.lines} | ${(row.ms / row.moonMs).toFixed(1)}× |`),
  '',
  '</details>',
];
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${lines.join('\n')}\n`);
console.log(lines.join('\n'));
