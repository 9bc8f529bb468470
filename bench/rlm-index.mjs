#!/usr/bin/env node
// The RLM history index at scale (seed 004, issue 25): a generated Puffin history of 100k prompts, indexed by the
// built CLI with the local summariser (`moon rlm index`, the default distill.provider), then indexed again with
// --incremental after one prompt was edited. Goals: the full run under 60 s and 300 MB peak RSS; the incremental
// run under 2 s. Peak RSS and CPU time are the child process's own, its worker threads included
// (bench/lib/report-rss.mjs); each run says the machine's 1-minute load when it started.
//
//   node bench/rlm-index.mjs [--prompts 100000] [--branches 15] [--prompt-chars 240] [--response-chars 480] [--keep]
//
// The history has Puffin's shape (test/fixtures/SOURCES.md): branches of threads 1–8 prompts deep, a fork now and
// then, `@/` markers in about 1 % of prompts, epoch-ms timestamps, written as JSON.stringify(history, null, 2).
// Prints one JSON object.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { bin, readOption, repo } from './lib/setup.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => readOption(args, name, fallback);
const total = Number(option('--prompts', '100000'));
const branchCount = Number(option('--branches', '15'));
const promptChars = Number(option('--prompt-chars', '240'));
const responseChars = Number(option('--response-chars', '480'));
const keep = args.includes('--keep');

const WORDS = `index segment summary marker hash store query watcher config schema branch prompt response token budget
overlap thread fork parent child decision migration deploy release test fixture build lint type error cache lock
stream parser reader writer file folder path module import export function class method field value default`.split(/\s+/);
const MARKERS = ['decision', 'breaking', 'security', 'bug', 'api', 'pattern', 'perf', 'todo', 'ref'];

/** A deterministic pseudo-random stream (mulberry32). */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(next, chars) {
  const words = [];
  let length = 0;
  while (length < chars) {
    const word = next() < 0.08 ? `src/${WORDS[Math.floor(next() * WORDS.length)]}/${WORDS[Math.floor(next() * WORDS.length)]}.ts` : WORDS[Math.floor(next() * WORDS.length)];
    words.push(word);
    length += word.length + 1;
    if (next() < 0.08) words[words.length - 1] += '.';
  }
  return `${words.join(' ')}.`;
}

function generateHistory() {
  const next = random(25);
  const branches = {};
  const order = [];
  for (let b = 0; b < branchCount; b++) {
    branches[`branch-${b}`] = { id: `branch-${b}`, name: `Branch ${b}`, prompts: [] };
    order.push(`branch-${b}`);
  }
  let made = 0;
  let clock = Date.UTC(2025, 0, 1);
  let thread = 0;
  while (made < total) {
    const branch = branches[order[Math.floor(next() * branchCount)]];
    const depth = Math.min(total - made, 1 + Math.floor(next() * 8));
    const ids = [];
    for (let d = 0; d < depth; d++) {
      const id = `t${thread}-p${d}`;
      // Mostly a chain; now and then a fork from an earlier prompt of the thread.
      const parentId = d === 0 ? null : next() < 0.15 ? ids[Math.floor(next() * ids.length)] : ids[ids.length - 1];
      let content = sentence(next, promptChars * (0.5 + next()));
      if (next() < 0.01) content += `\n@/${MARKERS[Math.floor(next() * MARKERS.length)]}: ${sentence(next, 40)}`;
      clock += 60_000 + Math.floor(next() * 600_000);
      const prompt = {
        id,
        parentId,
        content,
        title: null,
        timestamp: clock,
        response: { content: sentence(next, responseChars * (0.5 + next())), sessionId: `s-${id}`, cost: 0.01, turns: 2, duration: 9000, filesModified: [], timestamp: clock + 30_000 },
        children: [],
      };
      if (parentId) branch.prompts.find((item) => item.id === parentId)?.children.push(id);
      branch.prompts.push(prompt);
      ids.push(id);
      made += 1;
    }
    thread += 1;
  }
  return { branches, activeBranch: order[0], activePromptId: null, branchOrder: order, lastSelectedPromptPerBranch: {}, updatedAt: new Date(clock).toISOString() };
}

const work = mkdtempSync(join(tmpdir(), 'moon-bench-rlm-'));
const historyPath = join(work, 'history.json');
const indexPath = join(work, 'history.index.json');
const rssFile = join(work, 'rss.json');
const env = { PATH: process.env.PATH, MOON_HOME: join(work, 'home'), MOON_RESIDENTIAL_TIMEZONE: 'UTC', MOON_BENCH_RSS_FILE: rssFile };

function runIndex(extra) {
  // The machine is shared: the 1-minute load when each run starts says how much of it the run had.
  const load1 = Math.round(loadavg()[0] * 100) / 100;
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--import', join(repo, 'bench', 'lib', 'report-rss.mjs'), bin, 'rlm', 'index', '--history', historyPath, '--out', indexPath, '--json', ...extra], {
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const wallMs = Math.round(performance.now() - started);
  if (run.status !== 0) throw new Error(`moon rlm index exited ${run.status}: ${run.stderr}`);
  const stats = JSON.parse(run.stdout);
  const usage = JSON.parse(readFileSync(rssFile, 'utf8'));
  return { load1, wallMs, peakRssMb: Math.round(usage.maxRssBytes / 1024 / 1024), cpuMs: usage.userMs + usage.systemMs, stats };
}

try {
  const generatedAt = performance.now();
  const history = generateHistory();
  writeFileSync(historyPath, JSON.stringify(history, null, 2));
  const generateMs = Math.round(performance.now() - generatedAt);
  const bytes = statSync(historyPath).size;

  const full = runIndex([]);

  // One edited prompt in the middle of the history.
  const branch = history.branches[history.branchOrder[Math.floor(branchCount / 2)]];
  const edited = branch.prompts[Math.floor(branch.prompts.length / 2)];
  edited.content += ' (edited: one more sentence about the watcher.)';
  writeFileSync(historyPath, JSON.stringify(history, null, 2));
  const incremental = runIndex(['--incremental']);

  const result = {
    bench: 'rlm-index',
    machine: { cpus: cpus().length, model: cpus()[0]?.model, memGb: Math.round(totalmem() / 1024 ** 3), load1: loadavg()[0], kernel: release(), node: process.version },
    history: { prompts: total, branches: branchCount, bytes, megabytes: Math.round((bytes / 1024 / 1024) * 10) / 10, generateMs, editedPrompt: edited.id },
    full: {
      load1: full.load1,
      wallMs: full.wallMs,
      peakRssMb: full.peakRssMb,
      cpuMs: full.cpuMs,
      segments: full.stats.segmentsGenerated,
      markers: full.stats.markersExtracted,
      goal: 'under 60 s and 300 MB',
      met: full.wallMs < 60_000 && full.peakRssMb < 300,
    },
    incremental: {
      load1: incremental.load1,
      wallMs: incremental.wallMs,
      peakRssMb: incremental.peakRssMb,
      cpuMs: incremental.cpuMs,
      incrementalStats: incremental.stats.incrementalStats,
      goal: 'under 2 s',
      met: incremental.wallMs < 2_000,
    },
    indexMegabytes: Math.round((statSync(indexPath).size / 1024 / 1024) * 10) / 10,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  if (keep) process.stderr.write(`kept ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
}
