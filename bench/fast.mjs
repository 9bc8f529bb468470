#!/usr/bin/env node
// Ingest against its floor, and a cold `moon recall`, side by side in one run (docs/benchmarks.md, "Fast at any
// size"): the floor (bench/floor.mjs), optionally an earlier build (--before DIR, a checkout with `npm run build`
// done), and this build with and without ingest workers, interleaved round by round so machine noise hits all;
// then the ablation of the full-text index (bench/ablation.mjs) on an index this run built.
//
//   node bench/fast.mjs [--corpus DIR] [--before DIR] [--rounds 2] [--out FILE]
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { measureFloor } from './floor.mjs';
import { BENCH_DIR as here, REPO, makeWorkDir, readFlag as flag } from './script.mjs';

const corpus = resolve(flag('corpus', join(here, 'corpora', '100k')));
const before = flag('before', null);
const rounds = Number(flag('rounds', '2'));
const out = flag('out', join(here, 'out', 'fast.md'));
const work = makeWorkDir('moon-fast-');
const bytes = Number(execFileSync('du', ['-sb', corpus]).toString().split('\t')[0]);

const runs = [
  ...(before ? [{ name: 'before', bin: join(resolve(before), 'bin', 'moon.js'), env: {} }] : []),
  { name: 'workers 0', bin: join(REPO, 'bin', 'moon.js'), env: { MOON_INDEX_WORKERS: '0' } },
  { name: 'workers 1', bin: join(REPO, 'bin', 'moon.js'), env: { MOON_INDEX_WORKERS: '1' } },
  { name: 'workers 2', bin: join(REPO, 'bin', 'moon.js'), env: { MOON_INDEX_WORKERS: '2' } },
];

/** Wall, CPU and peak RSS of one cold `moon index` into an empty home, from GNU time. */
function indexOnce(run, home) {
  const result = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', process.execPath, run.bin, 'index', corpus, '--home', home, '--json'], {
    env: { PATH: process.env.PATH, MOON_RESIDENTIAL_TIMEZONE: 'UTC', ...run.env },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const [wall, user, sys, rss] = result.stderr.trim().split('\n').pop().split(' ').map(Number);
  const report = JSON.parse(result.stdout);
  return { wall, cpu: user + sys, rssMb: rss / 1024, entries: report.entries, failed: report.failed };
}

/** Wall ms of a fresh `moon recall` process, median of n. */
function coldRecall(bin, home, n = 11) {
  const times = [];
  for (let i = 0; i < n; i += 1) {
    const started = performance.now();
    spawnSync(process.execPath, [bin, 'recall', 'deploy failed', '--home', home], { env: { PATH: process.env.PATH, MOON_RESIDENTIAL_TIMEZONE: 'UTC' } });
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)];
}

const results = new Map(runs.map((run) => [run.name, []]));
const floors = [];
for (let round = 0; round < rounds; round += 1) {
  floors.push(measureFloor(corpus, join(work, 'floor.db')));
  for (const run of runs) {
    const home = join(work, `${run.name.replace(/\W/g, '-')}-${round}`);
    results.get(run.name).push({ ...indexOnce(run, home), home });
    console.error(`round ${round + 1}: ${run.name} ${results.get(run.name).at(-1).wall} s`);
  }
}
const floorWall = Math.min(...floors.map((floor) => floor.wallMs / 1000));
const node0 = (() => {
  const times = [];
  for (let i = 0; i < 11; i += 1) {
    const started = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[5];
})();
const lines = [
  `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus()[0].model}, ${cpus().length} cores, Node ${process.version}; corpus ${corpus.split('/').pop()} (${(bytes / 1e6).toFixed(1)} MB of JSONL), best of ${rounds} rounds, interleaved.`,
  '',
  '| run | wall s | CPU s | MB/s (wall) | × floor | peak RSS MB | entries |',
  '|---|---:|---:|---:|---:|---:|---:|',
  `| floor (parse + extract + one FTS5 table) | ${floorWall.toFixed(2)} | ${(Math.min(...floors.map((f) => f.cpuMs)) / 1000).toFixed(2)} | ${(bytes / 1e6 / floorWall).toFixed(1)} | 1.00 | – | ${floors[0].texts} texts |`,
];
for (const run of runs) {
  const best = results.get(run.name).reduce((a, b) => (b.wall < a.wall ? b : a));
  lines.push(
    `| moon index, ${run.name} | ${best.wall.toFixed(2)} | ${best.cpu.toFixed(2)} | ${(bytes / 1e6 / best.wall).toFixed(1)} | ${(floorWall / best.wall).toFixed(2)} | ${Math.max(...results.get(run.name).map((r) => r.rssMb)).toFixed(0)} | ${best.entries} |`,
  );
}
lines.push('', '| cold `moon recall "deploy failed"` (new process, median of 11) | ms |', '|---|---:|', `| \`node -e 0\` | ${node0.toFixed(0)} |`);
for (const run of runs) {
  if (run.name !== 'before' && run.name !== 'workers 0') continue;
  lines.push(`| ${run.name === 'before' ? 'before' : 'this build'} | ${coldRecall(run.bin, results.get(run.name)[0].home).toFixed(0)} |`);
}
const ablation = spawnSync(process.execPath, [join(here, 'ablation.mjs'), '--home', results.get('workers 0')[0].home, '--rounds', String(rounds), '--out', join(work, 'ablation.md')], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
if (ablation.status !== 0) throw new Error('bench/ablation.mjs failed');
lines.push('', 'What each part of the full-text index costs (bench/ablation.mjs, the same run):', '', ablation.stdout.trim());
writeFileSync(out, `${lines.join('\n')}\n`);
console.log(lines.join('\n'));
