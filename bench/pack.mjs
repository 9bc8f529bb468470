#!/usr/bin/env node
// Context pack assembly time (seed 003 §4, issue 24): `Moon.contextPack` in-process — planning (Beads), history
// (fix patterns, decisions, run digests of every session, recall over the namespace's sessions), long-term
// (approved memories and MEMORY.md) and documents — on an index of the 100k-message
// corpus, without an LLM or an embedding model. Goal: p95 under 100 ms. The first pack (cold: tokenizer load,
// index open) is reported apart; the rest are warm, one task after another, rotating tasks so no cache helps.
//
//   node bench/pack.mjs [--corpus 100k] [--runs 40] [--keep] [--home DIR] [--write]
//
// --write replaces the block between `<!-- pack:latest -->` and `<!-- /pack:latest -->` in docs/benchmarks.md with
// this run's figures (`npm run bench` runs it so).
//
// Uses the built CLI (npm run build) to index the corpus into a temporary home (or reuses --home), and moon's own
// docs as the documents of the namespace /home/dev/shop (the corpus's busiest project). Prints one JSON object.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bin, ensureCorpus, readOption, repo } from './lib/setup.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => readOption(args, name, fallback);
const corpusName = option('--corpus', '100k');
const runs = Number(option('--runs', '40'));
const keep = args.includes('--keep');
const write = args.includes('--write');
const givenHome = option('--home', null);

const corpus = ensureCorpus(corpusName);
const manifest = JSON.parse(readFileSync(join(corpus, 'manifest.json'), 'utf8'));

const work = mkdtempSync(join(tmpdir(), 'moon-bench-pack-'));
const home = givenHome ?? join(work, 'home');
const env = { PATH: process.env.PATH, MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'UTC' };
function cli(argv) {
  const run = spawnSync(process.execPath, [bin, ...argv], { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`moon ${argv.join(' ')} exited ${run.status}: ${run.stderr}`);
  return run.stdout;
}

let indexMs = null;
if (!givenHome || !existsSync(join(home, 'moon.db'))) {
  const started = performance.now();
  cli(['index', corpus]);
  indexMs = Math.round(performance.now() - started);
}
// Run digests of every session, so the history's digest search has its real work to do.
cli(['digest', '--all']);

// A shop repository: moon's own docs as its documents, a Beads file, MEMORY.md lines about it.
const shop = join(work, 'shop');
mkdirSync(join(shop, '.beads'), { recursive: true });
cpSync(join(repo, 'docs'), join(shop, 'docs'), { recursive: true });
cpSync(join(repo, 'README.md'), join(shop, 'README.md'));
const issues = Array.from({ length: 200 }, (_, index) => ({
  id: `shop-${index}`,
  title: `Task ${index}: deploy step ${index % 7}`,
  status: index % 3 === 0 ? 'closed' : 'open',
  priority: index % 5,
  issue_type: 'task',
  acceptance_criteria: 'the deploy passes',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-02T00:00:00Z',
  dependencies: [{ issue_id: `shop-${index}`, depends_on_id: `shop-${index % 10}`, type: index < 10 ? 'blocks' : 'parent-child' }],
}));
writeFileSync(join(shop, '.beads', 'issues.jsonl'), `${issues.map((issue) => JSON.stringify(issue)).join('\n')}\n`);
writeFileSync(join(home, 'MEMORY.md'), '# Memory\n\n- shop: deploys go through wrangler; secrets via wrangler secret put.\n- shop: run the migration check before release.\n');
const namespace = 'path:/home/dev/shop';
cli(['docs', 'index', shop, '--namespace', namespace]);

const { loadConfig } = await import(pathToFileURL(join(repo, 'dist', 'config.js')).href);
const { createMoon } = await import(pathToFileURL(join(repo, 'dist', 'moon.js')).href);
const moon = createMoon(loadConfig({ home, env }));
const tasks = [
  'deploy the shop with wrangler and fix the failing build',
  'why does the stripe webhook return 401',
  'flaky invoice test near the month end',
  'migrate postgres and keep the backups running',
  'add a recall filter by project',
  'TypeError: Cannot read properties of undefined (reading map)',
];
const pack = (index) =>
  moon.memory.contextPack({ task: tasks[index % tasks.length], planning: `shop-${20 + (index % 50)}`, error: index % 2 ? 'TS2339: Property does not exist' : null, cwd: shop, namespace, budget: 2000 });

let started = performance.now();
const first = await pack(0);
const coldMs = performance.now() - started;
const times = [];
let maxUsed = 0;
const omitted = new Set();
for (let index = 1; index <= runs; index += 1) {
  started = performance.now();
  const result = await pack(index);
  times.push(performance.now() - started);
  maxUsed = Math.max(maxUsed, result.used_tokens);
  for (const omission of result.omitted) omitted.add(`${omission.subsystem}:${omission.reason}`);
}
await moon.close();
times.sort((a, b) => a - b);
const at = (q) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))] * 10) / 10;

const report = {
      bench: 'pack',
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? null, memGiB: Math.round(totalmem() / 2 ** 30), os: release(), node: process.version, load: loadavg().map((v) => Math.round(v * 100) / 100) },
      corpus: { name: corpusName, messages: manifest.messages, sessions: manifest.sessions },
      index_ms: indexMs,
      runs,
      budget: 2000,
      cold_ms: Math.round(coldMs),
      cold_items: first.items.length,
      warm_ms: { min: at(0), p50: at(0.5), p95: at(0.95), max: at(1) },
      max_used_tokens: maxUsed,
      omitted: [...omitted].sort(),
      goal: { p95_ms: 100, met: at(0.95) < 100 },
};
console.log(JSON.stringify(report, null, 2));
if (write) writeDocs(report);
if (!keep) rmSync(work, { recursive: true, force: true });
else console.error(`kept ${work}`);

/** The latest figures into docs/benchmarks.md, between the pack:latest markers. */
function writeDocs(result) {
  const file = join(repo, 'docs', 'benchmarks.md');
  const text = readFileSync(file, 'utf8');
  const open = '<!-- pack:latest -->';
  const close = '<!-- /pack:latest -->';
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`docs/benchmarks.md has no ${open} … ${close} block`);
  const m = result.machine;
  const w = result.warm_ms;
  const block = [
    open,
    `Latest \`npm run bench\` (${result.date.slice(0, 16).replace('T', ' ')} UTC; ${m.cpus} × ${m.model}, ${m.memGiB} GiB, Node ${m.node}, 1-minute load ${m.load[0]}):`,
    `${result.corpus.messages.toLocaleString('en-US')} messages in ${result.corpus.sessions} sessions, ${result.runs} packs of ${result.budget} tokens, no LLM.`,
    '',
    '| cold ms | warm min | p50 | p95 | max | goal p95 < 100 ms |',
    '| ---: | ---: | ---: | ---: | ---: | --- |',
    `| ${result.cold_ms} | ${w.min} | ${w.p50} | ${w.p95} | ${w.max} | ${result.goal.met ? 'met' : 'not met'} |`,
    close,
  ].join('\n');
  writeFileSync(file, text.slice(0, start) + block + text.slice(end + close.length));
  console.error(`wrote the pack figures to ${file}`);
}
