#!/usr/bin/env node
// The watcher's costs on a real-sized history: L1 over every projection of an index (wall time, peak memory),
// the same cycle with nothing pending, L2 on the busiest day, and how long after a write a growing transcript is
// indexed by a running `moon watch --daemon` (from the write to the daemon's "indexed" log line).
//
//   node bench/watch-distill.mjs [--corpus 100k] [--appends 20] [--debounce-ms 200]
//
// Uses the built CLI (npm run build). The corpus comes from bench/generate-corpus.mjs (generated if missing).
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { bin, ensureCorpus, readOption, repo } from './lib/setup.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => readOption(args, name, fallback);
const corpusName = option('--corpus', '100k');
const appends = Number(option('--appends', '20'));
const debounceMs = Number(option('--debounce-ms', '200'));

const corpus = ensureCorpus(corpusName);

const work = mkdtempSync(join(tmpdir(), 'moon-bench-watch-'));
const home = join(work, 'home');
const empty = join(work, 'empty');
mkdirSync(home, { recursive: true });
mkdirSync(empty);
writeFileSync(join(home, 'moon.toml'), `[distill]\nmax_per_cycle = 100000\nresidential_timezone = "Australia/Sydney"\n[watcher]\ncooldown_secs = 0\npoll_interval_secs = 3600\ndebounce_ms = ${debounceMs}\n`);
const env = { ...process.env, MOON_HOME: home };

/** Run the CLI under /usr/bin/time: wall seconds and peak RSS in MB. */
function timed(argv, extraEnv = {}) {
  const started = process.hrtime.bigint();
  const run = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, bin, ...argv], { env: { ...env, ...extraEnv }, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0) {
    console.error(run.stderr);
    throw new Error(`moon ${argv.join(' ')} exited ${run.status}`);
  }
  const rssKb = Number(run.stderr.trim().split('\n').pop());
  return { seconds, rssMb: rssKb / 1024, stdout: run.stdout };
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

console.error(`indexing ${corpus} …`);
const index = timed(['index', corpus, '--json']);
const indexed = JSON.parse(index.stdout);
const projections = readdirSync(join(home, 'archives', 'mlib')).length;

console.error('L1 over every projection …');
const l1 = timed(['watch', '--once', '--json'], { MOON_SOURCES: empty });
const cycle = JSON.parse(l1.stdout);
const days = readdirSync(join(home, 'memory'));
const dayBytes = days.map((day) => statSync(join(home, 'memory', day)).size);
const busiest = days[dayBytes.indexOf(Math.max(...dayBytes))];

console.error('the same cycle with nothing pending …');
const idle = timed(['watch', '--once', '--json'], { MOON_SOURCES: empty });

console.error(`L2 (local) on the busiest day, ${busiest} …`);
const l2 = timed(['distill', '--mode', 'syns', '--file', join(home, 'memory', busiest), '--json']);
const memoryLines = readFileSync(join(home, 'MEMORY.md'), 'utf8').split('\n').length - 1;

console.error(`a running daemon: ${appends} appends to a growing transcript …`);
const live = join(work, 'live');
mkdirSync(live);
const sample = readdirSync(join(corpus, 'claude-code'), { recursive: true }).find((file) => String(file).endsWith('.jsonl'));
// The sample's session is in the index already: the live transcript is a new session, under its own id.
const original = readFileSync(join(corpus, 'claude-code', String(sample)), 'utf8');
const sampleId = JSON.parse(original.split('\n')[0]).sessionId;
const lines = original.replaceAll(sampleId, randomUUID()).trim().split('\n');
const userLine = JSON.parse(lines.find((line) => line.includes('"type":"user"') && line.includes('"content":"')));
const transcript = join(live, 'growing.jsonl');
writeFileSync(transcript, `${lines.slice(0, 5).join('\n')}\n`);
const daemon = spawn(process.execPath, [bin, 'watch', '--daemon'], { env: { ...env, MOON_SOURCES: live }, stdio: 'ignore' });
const log = join(home, 'logs', 'moon-watch.log');
const events = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line)) : []);
const waitFor = async (test, what, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = test();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
await waitFor(() => events().some((event) => event.event === 'watching') && events().some((event) => event.event === 'indexed'), 'the daemon to start');
const latencies = [];
for (let i = 0; i < appends; i++) {
  const seen = events().filter((event) => event.event === 'indexed').length;
  // A new user turn: a message the index must take in, with its own id and time.
  const turn = { ...userLine, uuid: `bench-${i}-${Date.now()}`, timestamp: new Date().toISOString(), message: { role: 'user', content: `benchmark turn ${i}: does the watcher see this append quickly?` } };
  const wroteAt = Date.now();
  appendFileSync(transcript, `${JSON.stringify(turn)}\n`);
  const event = await waitFor(() => events().filter((item) => item.event === 'indexed')[seen], `append ${i + 1} to be indexed`);
  latencies.push(Date.parse(event.at) - wroteAt);
  await new Promise((resolve) => setTimeout(resolve, 300));
}
daemon.kill('SIGTERM');
await new Promise((resolve) => daemon.once('exit', resolve));

const result = {
  date: new Date().toISOString().slice(0, 10),
  machine: `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}, Node ${process.version}`,
  corpus: corpusName,
  sessions: projections,
  entries: indexed.entries,
  index: { seconds: index.seconds, rssMb: index.rssMb },
  l1: { written: cycle.l1.written, seconds: l1.seconds, rssMb: l1.rssMb, perSecond: cycle.l1.written / l1.seconds, days: days.length, dailyMb: dayBytes.reduce((a, b) => a + b, 0) / 2 ** 20 },
  idle: { seconds: idle.seconds, rssMb: idle.rssMb },
  l2: { day: busiest, dayKb: Math.max(...dayBytes) / 1024, seconds: l2.seconds, rssMb: l2.rssMb, memoryLines },
  live: { appends, debounceMs, p50Ms: percentile(latencies, 50), p95Ms: percentile(latencies, 95), maxMs: Math.max(...latencies) },
};
console.log(JSON.stringify(result, null, 2));
rmSync(work, { recursive: true, force: true });
