#!/usr/bin/env node
// Does indexing stall the HTTP API when both run in one process (`moon watch --daemon --serve`)? A corpus is
// dropped into the watcher's source root while a client asks GET /v1/health and POST /v1/recall every 25 ms;
// the latency of every request during the indexing is recorded (p50, p95, p99, max), beside the same requests
// against an idle server.
//
//   node bench/serve-while-indexing.mjs [--corpus 10k]
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { bin, ensureCorpus, readOption, repo } from './lib/setup.mjs';

const args = process.argv.slice(2);
const corpusName = readOption(args, '--corpus', '10k');
const corpus = ensureCorpus(corpusName);

const work = mkdtempSync(join(tmpdir(), 'moon-bench-serve-'));
const home = join(work, 'home');
const sources = join(work, 'sources');
mkdirSync(home, { recursive: true });
mkdirSync(sources);
const env = { ...process.env, MOON_HOME: home, MOON_SOURCES: sources, MOON_INDEX_WORKERS: '0' };
const child = spawn(process.execPath, [bin, 'watch', '--daemon', '--serve', '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
let stderr = '';
const url = await new Promise((resolve, reject) => {
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    const match = /serving (http:\/\/\S+)/.exec(stderr);
    if (match) resolve(match[1]);
  });
  child.on('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
});

const log = join(home, 'logs', 'moon-watch.log');
const events = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line)) : []);

async function probe(until) {
  const latencies = [];
  let turn = 0;
  while (!until()) {
    const started = performance.now();
    const response =
      turn++ % 2 === 0
        ? await fetch(`${url}/v1/health`)
        : await fetch(`${url}/v1/recall`, { method: 'POST', body: JSON.stringify({ query: 'retry vitest sourcemap', limit: 3 }) });
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return latencies;
}

const summarize = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);
  return { requests: values.length, p50Ms: at(50), p95Ms: at(95), p99Ms: at(99), maxMs: Math.round(sorted[sorted.length - 1]) };
};

// Idle: two seconds of requests against the empty index.
const idleUntil = Date.now() + 2000;
const idle = summarize(await probe(() => Date.now() > idleUntil));

// Busy: copy the corpus in; requests go on until the watcher logs the cycle that indexed it.
const copiedAt = Date.now();
cpSync(corpus, join(sources, corpusName), { recursive: true });
const busy = await probe(() => events().some((event) => event.event === 'cycle done' && Date.parse(event.at) > copiedAt && event.indexed > 0));
const indexedIn = (Date.parse(events().filter((event) => event.event === 'cycle done').at(-1).at) - copiedAt) / 1000;
child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));

console.log(
  JSON.stringify(
    {
      date: new Date().toISOString().slice(0, 10),
      machine: `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}, Node ${process.version}`,
      corpus: corpusName,
      indexedInSeconds: indexedIn,
      idle,
      whileIndexing: summarize(busy),
    },
    null,
    2,
  ),
);
rmSync(work, { recursive: true, force: true });
