#!/usr/bin/env node
// Two builds of moon side by side in one run, on one corpus: ingest wall time through each build's CLI and
// in-process recall latency through each build's library, interleaved (A, B, A, B …) so machine noise hits both.
//
//   node bench/compare-builds.mjs --before DIR [--after DIR] [--messages 10000] [--reps 3] [--queries 200]
//
// DIR is a checkout with `npm run build` done (e.g. `git worktree add /tmp/before <commit>`); --after defaults
// to this checkout. Used to show a change costs nothing (the async store seam: docs/benchmarks.md).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateCorpus } from './generate-corpus.mjs';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : fallback;
};
const before = resolve(flag('before', ''));
const after = resolve(flag('after', join(import.meta.dirname, '..')));
const messages = Number(flag('messages', '10000'));
const reps = Number(flag('reps', '3'));
const queryCount = Number(flag('queries', '200'));
if (!flag('before')) {
  console.error('usage: node bench/compare-builds.mjs --before DIR [--after DIR] [--messages N] [--reps N]');
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'moon-compare-'));
const corpus = generateCorpus({ messages, out: join(work, "corpora"), log: () => {} }).dir;
const builds = [
  { name: 'before', dir: before },
  { name: 'after', dir: after },
];
const WORDS = ['deploy', 'wrangler', 'test', 'migration', 'config', 'error', 'build', 'cache', 'token', 'schema', 'release', 'retry'];
const queries = Array.from({ length: queryCount }, (_, index) => `${WORDS[index % WORDS.length]} ${WORDS[(index * 7 + 3) % WORDS.length]}`);

function indexOnce(build, home) {
  rmSync(home, { recursive: true, force: true });
  const started = process.hrtime.bigint();
  execFileSync(process.execPath, [join(build.dir, 'bin', 'moon.js'), 'index', corpus, '--json'], {
    env: { ...process.env, MOON_HOME: home },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function recallAll(build, home) {
  const { createMoon, loadConfig } = await import(pathToFileURL(join(build.dir, 'dist', 'index.js')).href);
  const moon = createMoon(loadConfig({ env: { MOON_HOME: home } }));
  const times = [];
  try {
    for (const query of queries.slice(0, 20)) await (moon.history ?? moon).recall({ query }); // warm-up
    for (const query of queries) {
      const started = performance.now();
      await (moon.history ?? moon).recall({ query });
      times.push(performance.now() - started);
    }
  } finally {
    await moon.close();
  }
  return times;
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const median = (values) => percentile(values, 50);

const results = Object.fromEntries(builds.map((build) => [build.name, { ingest: [], recall: [] }]));
for (let rep = 0; rep < reps; rep += 1) {
  for (const build of rep % 2 === 0 ? builds : [...builds].reverse()) {
    const home = join(work, `home-${build.name}`);
    results[build.name].ingest.push(indexOnce(build, home));
    results[build.name].recall.push(...(await recallAll(build, home)));
  }
}

console.log(`corpus: ${messages} messages; ${reps} reps each, interleaved; ${queries.length} recall queries per rep`);
console.log('| build | ingest median (ms) | recall p50 (ms) | recall p95 (ms) |');
console.log('|---|---:|---:|---:|');
for (const build of builds) {
  const result = results[build.name];
  console.log(`| ${build.name} | ${median(result.ingest).toFixed(0)} | ${median(result.recall).toFixed(2)} | ${percentile(result.recall, 95).toFixed(2)} |`);
}
const ratio = (key, pick) => (pick(results.after[key]) / pick(results.before[key])).toFixed(3);
console.log(`after/before: ingest ${ratio('ingest', median)}, recall p50 ${ratio('recall', median)}, recall p95 ${ratio('recall', (v) => percentile(v, 95))}`);
rmSync(work, { recursive: true, force: true });
