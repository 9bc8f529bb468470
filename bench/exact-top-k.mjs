#!/usr/bin/env node
// Two builds of exact top-k recall side by side in one run: one index per engine (both builds read the same
// format; the after build indexes it), the fixed query set with natural questions (bench/queries.mjs), each query
// timed in-process through each build's library, interleaved query by query so machine noise hits both. Hybrid
// and lexical (`--strategy bm25`) recall, on SQLite and — with `--postgres` — on a temp PostgreSQL server
// (scripts/lib/postgres-server.mjs, bench profile). Also counts the queries whose results differ between the
// builds (sessions, their messages and scores): a faster exact top-k must not change any.
//
//   node bench/exact-top-k.mjs --before DIR [--after DIR] [--messages 100000 | --corpus DIR] [--reps 5]
//                              [--postgres] [--before-label before] [--after-label after] [--out FILE]
//                              [--project NAME] [--no-sqlite] [--clients N [--rounds R]]
//
// --no-sqlite times PostgreSQL alone (with --postgres).
// --clients N then runs N clients at once against PostgreSQL (hybrid; one worker thread and library each), each
// build in turn, R rounds of the query set each (default 3): throughput, p50, p95, max.
// --project NAME scopes every query to one project (recall's `project` filter), as an agent's hook and a recall
// in a project's folder do: the lists that test a filtered set of rows rather than each match's entry.
// DIR is a checkout with `npm run build` done (e.g. `git worktree add --detach /tmp/before main`).
import { execFileSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startPostgres } from '../scripts/lib/postgres-server.mjs';
import { generateCorpus } from './generate-corpus.mjs';
import { QUERIES } from './queries.mjs';
import { BENCH_DIR, REPO, makeWorkDir, readFlag as flag } from './script.mjs';

const before = flag('before', null);
if (!before) {
  console.error('usage: node bench/exact-top-k.mjs --before DIR [--after DIR] [--messages N | --corpus DIR] [--reps N] [--postgres] [--out FILE]');
  process.exit(2);
}
const after = resolve(flag('after', REPO));
const reps = Number(flag('reps', '5'));
const labels = [flag('before-label', 'before'), flag('after-label', 'after')];
const withPostgres = process.argv.includes('--postgres');
const clients = Number(flag('clients', '0'));
const out = flag('out', join(BENCH_DIR, 'out', 'exact-top-k.md'));
const work = makeWorkDir('moon-exact-top-k-');
const given = flag('corpus', null);
const corpus = given ? resolve(given) : generateCorpus({ messages: Number(flag('messages', '100000')), out: join(work, 'corpora'), log: () => {} }).dir;
const now = '2026-11-26T00:00:00Z';
const project = flag('project', null);
const scope = project === null ? {} : { project: [project] };

/** Indexes the corpus with the after build's CLI; returns the environment both builds open it with. */
function indexCorpus(name, databaseUrl) {
  const env = { PATH: process.env.PATH, MOON_HOME: join(work, `home-${name}`), MOON_RESIDENTIAL_TIMEZONE: 'UTC', ...(databaseUrl ? { MOON_DATABASE_URL: databaseUrl } : {}) };
  const started = performance.now();
  const report = JSON.parse(execFileSync(process.execPath, [join(after, 'bin', 'moon.js'), 'index', corpus, '--json'], { env, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 30 }).toString());
  console.error(`${name}: indexed ${report.entries ?? '?'} entries from ${corpus} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return env;
}

async function openBuild(dir, env) {
  const { createMoon, loadConfig } = await import(pathToFileURL(join(resolve(dir), 'dist', 'index.js')).href);
  return createMoon(loadConfig({ env }));
}

/** Per query and build: the median of `reps` interleaved runs; and the queries whose results differ. */
async function timeEngine(env, strategy) {
  const builds = [
    { name: labels[0], moon: await openBuild(before, env), medians: new Map() },
    { name: labels[1], moon: await openBuild(after, env), medians: new Map() },
  ];
  const answer = (result) => JSON.stringify(result.matches.map((match) => [match.metadata.session_id, match.metadata.message_ids, match.score]));
  const differing = [];
  for (const { query } of QUERIES) {
    const answers = [];
    for (const build of builds) answers.push(answer(await (build.moon.history ?? build.moon).recall({ query, now, strategy, ...scope }))); // warm-up, and the answer
    if (answers[0] !== answers[1]) differing.push(query);
  }
  const times = builds.map(() => new Map());
  for (let rep = 0; rep < reps; rep += 1) {
    for (const { query } of QUERIES) {
      for (const index of rep % 2 === 0 ? [0, 1] : [1, 0]) {
        const started = performance.now();
        await (builds[index].moon.history ?? builds[index].moon).recall({ query, now, strategy, ...scope });
        const list = times[index].get(query) ?? [];
        list.push(performance.now() - started);
        times[index].set(query, list);
      }
    }
  }
  for (const build of builds) await build.moon.close();
  return { medians: times.map((map) => new Map([...map].map(([query, list]) => [query, percentile(list, 50)]))), differing };
}

/**
 * `clients` agents asking at once: one worker thread each with its own library and connections, each answering the
 * 36 queries `rounds` times in its own order, all released together; each build in turn. Throughput is the
 * recalls answered per second of wall time; p50, p95 and max over every recall.
 */
async function timeClients(env, strategy, clients, rounds) {
  const results = [];
  for (const [index, dir] of [before, after].entries()) {
    const workers = Array.from({ length: clients }, (_, n) =>
      new Worker(new URL('./lib/recall-worker.mjs', import.meta.url), {
        workerData: { dir: resolve(dir), env, queries: QUERIES.map((item) => item.query), rounds, seed: 7 + n, now, strategy, scope },
      }),
    );
    const message = (worker) => new Promise((done, fail) => { worker.once('message', done); worker.once('error', fail); });
    await Promise.all(workers.map(message));
    const started = performance.now();
    const finished = workers.map(message);
    for (const worker of workers) worker.postMessage('go');
    const times = (await Promise.all(finished)).flatMap((answer) => answer.times);
    const seconds = (performance.now() - started) / 1000;
    results.push({ label: labels[index], recalls: times.length, perSecond: times.length / seconds, p50: percentile(times, 50), p95: percentile(times, 95), max: Math.max(...times), overOneSecond: times.filter((time) => time > 1000).length });
  }
  return [
    `**${clients} clients at once, ${strategy}** — ${rounds} rounds of the ${QUERIES.length} queries each (ms)`,
    '',
    '| build | recalls | recalls / s | p50 | p95 | max | over 1 s |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...results.map((r) => `| ${r.label} | ${r.recalls} | ${r.perSecond.toFixed(1)} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.max.toFixed(1)} | ${r.overOneSecond} |`),
    '',
  ].join('\n');
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))];
}

function renderTable(title, { medians, differing }) {
  const lines = [
    `**${title}** — p50 / p95 over the per-query medians of ${reps} interleaved runs (ms)`,
    '',
    `| kind | queries | ${labels[0]} p50 | ${labels[0]} p95 | ${labels[1]} p50 | ${labels[1]} p95 | p50 ${labels[1]}/${labels[0]} | p95 ${labels[1]}/${labels[0]} |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const row = (label, queries) => {
    const [b, a] = medians.map((map) => queries.map((query) => map.get(query)));
    const figures = [percentile(b, 50), percentile(b, 95), percentile(a, 50), percentile(a, 95)];
    lines.push(`| ${label} | ${queries.length} | ${figures.map((value) => value.toFixed(1)).join(' | ')} | ${(figures[2] / figures[0]).toFixed(2)} | ${(figures[3] / figures[1]).toFixed(2)} |`);
  };
  for (const kind of [...new Set(QUERIES.map((item) => item.kind))]) row(kind, QUERIES.filter((item) => item.kind === kind).map((item) => item.query));
  row('**all**', QUERIES.map((item) => item.query));
  lines.push('', `Queries whose results differ between the builds: ${differing.length} of ${QUERIES.length}${differing.length ? ` (${differing.map((query) => `"${query.slice(0, 60)}"`).join('; ')})` : ''}.`, '');
  return lines.join('\n');
}

const sections = [`Corpus ${corpus}; ${QUERIES.length} queries${project === null ? '' : ` in project "${project}"`}; in-process recall (no embeddings), limit 10.`, ''];
if (!process.argv.includes('--no-sqlite')) {
  const sqlite = indexCorpus('sqlite');
  for (const strategy of ['hybrid', 'bm25']) sections.push(renderTable(`SQLite, ${strategy}`, await timeEngine(sqlite, strategy)));
}
if (withPostgres) {
  const server = await startPostgres({ profile: 'bench' });
  try {
    const postgres = indexCorpus('postgres', await server.createDatabase('exact_top_k'));
    for (const strategy of ['hybrid', 'bm25']) sections.push(renderTable(`PostgreSQL, ${strategy}`, await timeEngine(postgres, strategy)));
    if (clients > 0) sections.push(await timeClients(postgres, 'hybrid', clients, Number(flag('rounds', '3'))));
  } finally {
    server.stop();
  }
}
const text = `${sections.join('\n')}\n`;
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, text);
console.log(text);
