#!/usr/bin/env node
// Two builds on the PostgreSQL engine side by side in one run (a temp server, scripts/lib/postgres-server.mjs):
// ingest wall time through each build's CLI into a fresh database, interleaved (before, after, after, before);
// then in-process recall of the 32 bench queries by both builds over one index (the after build's), each query
// run once untimed by both, then three times per build, interleaved, with a check that both return the same matches and scores.
//
//   node bench/pg-builds.mjs --before DIR [--corpus bench/corpora/100k]     (npm run build in both first)
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { startPostgres } from '../scripts/lib/postgres-server.mjs';
import { QUERIES } from './queries.mjs';
import { BENCH_DIR, REPO, makeWorkDir, readFlag } from './script.mjs';

const beforeDir = readFlag('before', null);
if (!beforeDir) {
  console.error('usage: node bench/pg-builds.mjs --before DIR [--corpus DIR]');
  process.exit(2);
}
const corpus = resolve(readFlag('corpus', join(BENCH_DIR, 'corpora', '100k')));
const builds = { before: resolve(beforeDir), after: REPO };
const work = makeWorkDir('moon-pg-builds-');
const env = (url, home) => ({ PATH: process.env.PATH, MOON_HOME: home, MOON_DATABASE_URL: url, MOON_RESIDENTIAL_TIMEZONE: 'UTC' });
const server = await startPostgres({ profile: 'bench' });
try {
  const ingest = { before: [], after: [] };
  let databases = 0;
  let index = null;
  for (const name of ['before', 'after', 'after', 'before']) {
    databases += 1;
    const url = await server.createDatabase(`builds_${databases}`);
    const home = join(work, `home-${databases}`);
    const started = performance.now();
    execFileSync(process.execPath, [join(builds[name], 'bin', 'moon.js'), 'index', corpus, '--json'], { env: env(url, home), stdio: ['ignore', 'ignore', 'inherit'] });
    ingest[name].push((performance.now() - started) / 1000);
    if (name === 'after') index = { url, home };
  }
  const libraries = {};
  for (const [name, dir] of Object.entries(builds)) {
    const { createMoon, loadConfig } = await import(pathToFileURL(join(dir, 'dist', 'index.js')).href);
    libraries[name] = createMoon(loadConfig({ env: env(index.url, index.home) }));
    await (libraries[name].history ?? libraries[name]).recall({ query: 'warm up', limit: 10 });
  }
  const times = { before: [], after: [] };
  const differing = [];
  for (const { query } of QUERIES) {
    const seen = {};
    const mine = { before: [], after: [] };
    // One untimed run by each build first: whichever build ran a query first would otherwise pay for a cold cache.
    for (const name of ['before', 'after']) await (libraries[name].history ?? libraries[name]).recall({ query, limit: 10 });
    for (const name of ['before', 'after', 'after', 'before', 'before', 'after']) {
      const started = performance.now();
      const result = await (libraries[name].history ?? libraries[name]).recall({ query, limit: 10 });
      mine[name].push(performance.now() - started);
      seen[name] = JSON.stringify(result.matches.map((match) => [match.metadata.session_id, match.metadata.message_ids, match.score]));
    }
    for (const name of ['before', 'after']) times[name].push(mine[name].sort((a, b) => a - b)[1]);
    if (seen.before !== seen.after) differing.push(query);
  }
  for (const library of Object.values(libraries)) await library.close();
  const at = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
  const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
  console.log(`Measured ${new Date().toISOString().slice(0, 10)} on ${cpus()[0]?.model.trim()}, ${cpus().length} cores, Node ${process.version}; corpus ${corpus.split('/').pop()}; PostgreSQL (temp server).\n`);
  console.log('| | before | after | after / before |');
  console.log('|---|---:|---:|---:|');
  const best = (values) => Math.min(...values);
  console.log(`| ingest s (best of 2, interleaved) | ${best(ingest.before).toFixed(1)} | ${best(ingest.after).toFixed(1)} | ${ratio(best(ingest.after), best(ingest.before))} |`);
  for (const [label, q] of [['recall p50 ms', 0.5], ['recall p95 ms', 0.95]]) {
    console.log(`| ${label} (${QUERIES.length} queries, median of 3 each) | ${at(times.before, q).toFixed(1)} | ${at(times.after, q).toFixed(1)} | ${ratio(at(times.after, q), at(times.before, q))} |`);
  }
  console.log(`\nSame matches and scores for ${QUERIES.length - differing.length} of ${QUERIES.length} queries${differing.length ? ` (differ: ${differing.join(', ')})` : ''}.`);
  console.log('\n<details><summary>Per query</summary>\n\n| query | kind | before ms | after ms | after / before |\n|---|---|---:|---:|---:|');
  QUERIES.forEach(({ query, kind }, index) => {
    console.log(`| \`${query}\` | ${kind} | ${times.before[index].toFixed(1)} | ${times.after[index].toFixed(1)} | ${ratio(times.after[index], times.before[index])} |`);
  });
  console.log('\n</details>');
} finally {
  await server.stop();
}
