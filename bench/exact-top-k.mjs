#!/usr/bin/env node
// Exact top-k against the score cap it replaced, side by side in one run: one index (both builds read the same
// format), the fixed query set with natural questions (bench/queries.mjs), each query timed in-process through
// each build's library, interleaved query by query so machine noise hits both. Also counts the queries whose
// top sessions differ between the builds (the cap changes results; exact top-k must not).
//
//   node bench/exact-top-k.mjs --before DIR [--after DIR] [--messages 100000] [--reps 5] [--out FILE]
//
// DIR is a checkout with `npm run build` done (e.g. `git worktree add /tmp/before 7264d2f`).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateCorpus } from './generate-corpus.mjs';
import { QUERIES } from './queries.mjs';
import { BENCH_DIR, REPO, makeWorkDir, readFlag as flag } from './script.mjs';

const before = flag('before', null);
if (!before) {
  console.error('usage: node bench/exact-top-k.mjs --before DIR [--after DIR] [--messages N] [--reps N] [--out FILE]');
  process.exit(2);
}
const after = resolve(flag('after', REPO));
const messages = Number(flag('messages', '100000'));
const reps = Number(flag('reps', '5'));
const out = flag('out', join(BENCH_DIR, 'out', 'exact-top-k.md'));
const work = makeWorkDir('moon-exact-top-k-');
const corpus = generateCorpus({ messages, out: join(work, 'corpora'), log: () => {} }).dir;
const home = join(work, 'home');
const started = performance.now();
execFileSync(process.execPath, [join(after, 'bin', 'moon.js'), 'index', corpus, '--json'], {
  env: { PATH: process.env.PATH, MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'UTC' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
console.error(`indexed ${messages} messages in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const open = async (dir) => {
  const { createMoon, loadConfig } = await import(pathToFileURL(join(resolve(dir), 'dist', 'index.js')).href);
  return createMoon(loadConfig({ env: { MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'UTC' } }));
};
const builds = [
  { name: 'cap (before)', moon: await open(before), times: new Map() },
  { name: 'exact (after)', moon: await open(after), times: new Map() },
];
const now = '2026-11-26T00:00:00Z';
const sessionsOf = (result) => result.matches.map((match) => match.metadata.session_id).join(',');
const differing = [];
for (const { query } of QUERIES) {
  const answers = [];
  for (const build of builds) answers.push(sessionsOf(await build.moon.recall({ query, now }))); // warm-up, and the answer
  if (answers[0] !== answers[1]) differing.push(query);
}
for (let rep = 0; rep < reps; rep += 1) {
  for (const { query } of QUERIES) {
    for (const build of rep % 2 === 0 ? builds : [...builds].reverse()) {
      const t = performance.now();
      await build.moon.recall({ query, now });
      const list = build.times.get(query) ?? [];
      list.push(performance.now() - t);
      build.times.set(query, list);
    }
  }
}
for (const build of builds) await build.moon.close();

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const kinds = [...new Set(QUERIES.map((item) => item.kind))];
const lines = [
  `${messages.toLocaleString('en')} generated messages, ${reps} interleaved reps of ${QUERIES.length} queries, in-process recall (hybrid, no embeddings).`,
  '',
  '| kind | queries | cap p50 (ms) | cap p95 (ms) | exact p50 (ms) | exact p95 (ms) | exact/cap p50 |',
  '|---|---:|---:|---:|---:|---:|---:|',
];
const row = (label, queries) => {
  const [cap, exact] = builds.map((build) => queries.flatMap((query) => build.times.get(query)));
  const p50 = [percentile(cap, 50), percentile(exact, 50)];
  lines.push(`| ${label} | ${queries.length} | ${p50[0].toFixed(1)} | ${percentile(cap, 95).toFixed(1)} | ${p50[1].toFixed(1)} | ${percentile(exact, 95).toFixed(1)} | ${(p50[1] / p50[0]).toFixed(2)} |`);
};
for (const kind of kinds) row(kind, QUERIES.filter((item) => item.kind === kind).map((item) => item.query));
row('**all**', QUERIES.map((item) => item.query));
lines.push('', `Queries whose top sessions differ between the builds: ${differing.length} of ${QUERIES.length}${differing.length ? ` (${differing.map((query) => `"${query.slice(0, 60)}"`).join('; ')})` : ''}.`);
const text = `${lines.join('\n')}\n`;
writeFileSync(out, text);
console.log(text);
