#!/usr/bin/env node
// Wall time of each `moon hook <event>` as the agent runs it — a new `node bin/moon.js hook <event>` process with
// the payload on stdin — on an index of a real-sized history. Budgets (issue 32), beyond node's own start at p95 on
// the 100k-message corpus: session-start 150 ms, user-prompt-submit with recall 120 ms, stop 60 ms, session-end 100 ms.
// The hooks that hand the agent context are measured as an agent meets them — answered by the home's hook server,
// which the first of them starts — and in their own process (hooks.server = "off"). Runs are interleaved (one of each hook per round), so a burst of load on the
// machine touches every hook alike. Prints one JSON object: date, machine, load, and per hook min/p50/p95/max.
//
//   node bench/hooks.mjs [--corpus 100k] [--runs 30] [--keep] [--with-index] [--before <checkout>] [--budgeted] [--postgres]
//
// --budgeted runs only the hooks with a budget, as the agent meets them (session-start startup and compact,
// user-prompt-submit on, stop, session-end): more rounds in the same time, for a p95 that is not one slow run.
//
// Uses the built CLI (npm run build). --before runs every hook of every round with another built checkout's
// bin/moon.js too, on the same home, in alternating order, and reports both side by side with their ratio (the
// machine's noise touches both alike). The corpus comes from bench/generate-corpus.mjs (generated if missing) and
// is indexed into a temporary home with `moon index`.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '../scripts/lib/postgres-server.mjs';
import { bin, ensureCorpus, readOption, repo } from './lib/setup.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => readOption(args, name, fallback);
const corpusName = option('--corpus', '100k');
const runs = Number(option('--runs', '30'));
const keep = args.includes('--keep');
// --with-index: a `moon index` loop writes to the same home while the hooks run (a second corpus copy, re-indexed
// with --force), as when the watcher or a manual index runs beside an agent.
const withIndex = args.includes('--with-index');
const beforeDir = option('--before', null);
const builds = beforeDir ? { after: bin, before: join(beforeDir, 'bin', 'moon.js') } : { after: bin };

const corpus = ensureCorpus(corpusName);
const manifest = JSON.parse(readFileSync(join(corpus, 'manifest.json'), 'utf8'));

const work = mkdtempSync(join(tmpdir(), 'moon-bench-hooks-'));
const home = join(work, 'home');
const live = join(work, 'live');
mkdirSync(live, { recursive: true });
// --postgres: the index is a temp PostgreSQL server's database (scripts/lib/postgres-server.mjs), the home holds
// everything else; every hook and index process is pointed at it. One build only (no --before).
const withPostgres = args.includes('--postgres');
if (withPostgres && beforeDir) throw new Error('--postgres runs one build: leave out --before');
const server = withPostgres ? await startPostgres({ profile: 'bench' }) : null;
const databaseUrl = server ? await server.createDatabase('hooks') : null;
const env = { PATH: process.env.PATH, MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'UTC', ...(databaseUrl ? { MOON_DATABASE_URL: databaseUrl } : {}) };

function cli(argv, extraEnv = {}, build = bin) {
  const run = spawnSync(process.execPath, [build, ...argv], { env: { ...env, ...extraEnv }, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`moon ${argv.join(' ')} exited ${run.status}: ${run.stderr}`);
  return run.stdout;
}

/** One hook process: spawn, payload on stdin, wait for exit. Wall milliseconds, stdout and stderr. */
function hook(event, payload, extraEnv = {}, build = bin) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [build, 'hook', event], { env: { ...env, ...extraEnv }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, code, stdout, stderr }));
    child.stdin.end(JSON.stringify(payload));
  });
}

function nodeBaseline() {
  const started = process.hrtime.bigint();
  spawnSync(process.execPath, ['-e', '0']);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const round = (value) => Math.round(value * 10) / 10;

console.error(`indexing ${corpus} into ${home} …`);
const indexStarted = Date.now();
const report = JSON.parse(cli(['index', corpus, '--json']));
// --before: the other build has a home of its own, indexed by itself — what one build keeps in a home (a fold, a
// cache) is never what the other reads.
const homes = { after: home, ...(beforeDir ? { before: join(work, 'home-before') } : {}) };
if (beforeDir) cli(['index', corpus, '--json'], { MOON_HOME: homes.before }, builds.before);
const indexSeconds = (Date.now() - indexStarted) / 1000;

// The busiest Claude Code project: its cwd is where the sessions start; its newest session is "this session".
const listing = JSON.parse(cli(['sessions', '--json']));
const byCwd = new Map();
for (const session of listing.sessions) if (session.cwd && session.source === 'claude-code') byCwd.set(session.cwd, [...(byCwd.get(session.cwd) ?? []), session]);
const [cwd, projectSessions] = [...byCwd.entries()].sort((a, b) => b[1].length - a[1].length)[0];
const newest = { id: projectSessions[0].session_id };
const project = cwd.split('/').pop();
// A MEMORY.md of the size L2 keeps (240 lines at most), some lines about the project.
for (const memoryHome of Object.values(homes)) writeFileSync(
  join(memoryHome, 'MEMORY.md'),
  ['# MEMORY', '', '## Lessons Learned', '', ...Array.from({ length: 230 }, (_, i) => `- ${i % 10 === 0 ? project : `other-${i}`}: lesson number ${i} about retries, caches and deploys`)].join('\n'),
);

// A live transcript of the project, grown by one exchange before each capture hook.
const transcript = join(live, `${newest.id}.jsonl`);
const original = readdirSync(corpus, { recursive: true }).find((file) => String(file).endsWith(`${newest.id}.jsonl`));
copyFileSync(join(corpus, String(original)), transcript);
let grown = 0;
function grow() {
  grown += 1;
  const at = new Date(Date.parse('2026-03-01T00:00:00Z') + grown * 60_000).toISOString();
  const base = { isSidechain: false, userType: 'external', cwd, sessionId: newest.id, version: '2.1.0', gitBranch: 'main', timestamp: at };
  appendFileSync(
    transcript,
    `${JSON.stringify({ ...base, parentUuid: null, uuid: `bench-u-${grown}`, type: 'user', message: { role: 'user', content: `Bench turn ${grown}: check the retry budget of the deploy queue` } })}\n` +
      `${JSON.stringify({ ...base, parentUuid: `bench-u-${grown}`, uuid: `bench-a-${grown}`, type: 'assistant', message: { id: `msg_bench_${grown}`, type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: `Turn ${grown}: the retry budget is fine; we decided to keep it at three.` }] } })}\n`,
  );
}

/** Wait until no detached capture of the live transcript is running (session-end's child), so runs do not overlap. */
async function captureSettled() {
  // Under a concurrent index a capture waits for the writer (index.lock_timeout_ms): two minutes at most here.
  for (let i = 0; i < 2400; i += 1) {
    const running = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').some((line) => line.includes('--capture') && line.includes(transcript));
    if (!running) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the detached capture did not finish');
}

const claude = (event, extra) => ({ session_id: 'bench-new-session', transcript_path: transcript, cwd, hook_event_name: event, permission_mode: 'default', ...extra });
const cases = {
  'session-start (startup)': (build, homeEnv) => hook('session-start', claude('SessionStart', { source: 'startup', model: 'claude-sonnet-4-5' }), homeEnv, build),
  'session-start (compact)': (build, homeEnv) => hook('session-start', claude('SessionStart', { source: 'compact', session_id: newest.id }), homeEnv, build),
  'session-start (unknown project)': (build, homeEnv) => hook('session-start', claude('SessionStart', { source: 'startup', cwd: '/home/nobody/new-project' }), homeEnv, build),
  'user-prompt-submit (off, the default)': (build, homeEnv) => hook('user-prompt-submit', claude('UserPromptSubmit', { prompt: 'why does the deploy queue retry twice?' }), homeEnv, build),
  'user-prompt-submit (on)': (build, homeEnv) =>
    hook('user-prompt-submit', claude('UserPromptSubmit', { prompt: 'why does the deploy queue retry twice?' }), { ...homeEnv, MOON_HOOKS_USER_PROMPT_RECALL: 'true' }, build),
  stop: async (build, homeEnv) => {
    grow();
    const result = await hook('stop', claude('Stop', { session_id: newest.id, stop_hook_active: false }), homeEnv, build);
    await captureSettled();
    return result;
  },
  'pre-compact': (build, homeEnv) => (grow(), hook('pre-compact', claude('PreCompact', { session_id: newest.id, trigger: 'auto', custom_instructions: '' }), homeEnv, build)),
  // The same three hooks answered in their own process (no hook server): what the first of them in a home costs,
  // and every one where hooks.server is off.
  'session-start (startup, own process)': (build, homeEnv) =>
    hook('session-start', claude('SessionStart', { source: 'startup', model: 'claude-sonnet-4-5' }), { ...homeEnv, MOON_HOOKS_SERVER: 'off' }, build),
  'user-prompt-submit (on, own process)': (build, homeEnv) =>
    hook(
      'user-prompt-submit',
      claude('UserPromptSubmit', { prompt: 'why does the deploy queue retry twice?' }),
      { ...homeEnv, MOON_HOOKS_USER_PROMPT_RECALL: 'true', MOON_HOOKS_SERVER: 'off' },
      build,
    ),
  'pre-compact (own process)': (build, homeEnv) =>
    (grow(), hook('pre-compact', claude('PreCompact', { session_id: newest.id, trigger: 'auto', custom_instructions: '' }), { ...homeEnv, MOON_HOOKS_SERVER: 'off' }, build)),
  'session-end (the hook; the capture runs detached)': async (build, homeEnv) => {
    grow();
    const result = await hook('session-end', claude('SessionEnd', { session_id: newest.id, reason: 'prompt_input_exit' }), homeEnv, build);
    await captureSettled();
    return result;
  },
};

const BUDGETED = ['session-start (startup)', 'session-start (compact)', 'user-prompt-submit (on)', 'stop', 'session-end (the hook; the capture runs detached)'];
if (args.includes('--budgeted')) for (const name of Object.keys(cases)) if (!BUDGETED.includes(name)) delete cases[name];

// The live copy is a new file to the index: its first capture reads it whole. Every measured capture reads a grown tail.
// The first session-start also starts the home's hook server (hooks.server = "auto"): the rounds measure hooks as
// an agent's session meets them, served, beside the same hooks in their own process.
for (const build of Object.keys(builds)) {
  await cases.stop(builds[build], { MOON_HOME: homes[build] });
  await cases['session-start (startup)'](builds[build], { MOON_HOME: homes[build] });
}
const serverInfo = (memoryHome) => {
  try {
    return JSON.parse(readFileSync(join(memoryHome, 'run', 'hook-server.json'), 'utf8'));
  } catch {
    return null;
  }
};
for (let wait = 0; wait < 200 && serverInfo(home) === null; wait += 1) await new Promise((resolve) => setTimeout(resolve, 50));
await new Promise((resolve) => setTimeout(resolve, 500));

let indexer = null;
let stopIndexer = false;
let passes = 0;
const indexLoop = async () => {
  while (!stopIndexer) {
    await new Promise((resolve) => {
      // Each build's home in turn, by its own build.
      const build = Object.keys(builds)[(passes += 1) % Object.keys(builds).length];
      indexer = spawn(process.execPath, [builds[build], 'index', corpus, '--force', '--json'], { env: { ...env, MOON_HOME: homes[build] }, stdio: 'ignore' });
      indexer.on('close', resolve);
    });
  }
};
const indexing = withIndex ? indexLoop() : null;

const times = Object.fromEntries(Object.keys(builds).map((build) => [build, Object.fromEntries(Object.keys(cases).map((name) => [name, []]))]));
const tokens = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
const baseline = [];
const loadBefore = loadavg();
console.error(`${runs} rounds of ${Object.keys(cases).length} hooks, project ${cwd} (${projectSessions.length} sessions) …`);
for (let round = 0; round < runs; round += 1) {
  baseline.push(nodeBaseline());
  for (const [name, run] of Object.entries(cases)) {
    // Each build in turn, the order alternating by round.
    const order = round % 2 === 0 ? Object.keys(builds) : Object.keys(builds).reverse();
    for (const build of order) {
      const result = await run(builds[build], { MOON_HOME: homes[build] });
      if (result.code !== 0 || result.stderr !== '') throw new Error(`${name} (${build}): exit ${result.code}, stderr ${result.stderr}`);
      times[build][name].push(result.ms);
      if (build === 'after' && result.stdout !== '') tokens[name].push(result.stdout.length);
    }
  }
}
const loadAfter = loadavg();
stopIndexer = true;
indexer?.kill();
await indexing;
const served = serverInfo(home);
for (const memoryHome of Object.values(homes)) {
  const info = serverInfo(memoryHome);
  if (info !== null) {
    try {
      process.kill(info.pid, 'SIGTERM');
    } catch {
      // Gone already.
    }
  }
}
server?.stop();
const state = JSON.parse(readFileSync(join(home, 'state', 'hooks.json'), 'utf8'));
const today = Object.values(state.days).at(-1) ?? {};

const beyondNode = (byCase) => Object.fromEntries(Object.entries(byCase).map(([name, values]) => [name, round(percentile(values, 95) - percentile(baseline, 50))]));
const summary = (values) => ({ min_ms: round(Math.min(...values)), p50_ms: round(percentile(values, 50)), p95_ms: round(percentile(values, 95)), max_ms: round(Math.max(...values)) });
const result = {
  bench: 'hooks',
  date: new Date().toISOString().slice(0, 10),
  machine: `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}, Node ${process.version}`,
  load_average_1m: { before: round(loadBefore[0]), after: round(loadAfter[0]) },
  corpus: { name: corpusName, messages: manifest.messages, sessions: manifest.sessions, indexed_entries: report.entries, index_seconds: round(indexSeconds) },
  project: { cwd, sessions: projectSessions.length },
  runs,
  concurrent_index: withIndex,
  engine: withPostgres ? 'postgres' : 'sqlite',
  // The hook server answering session-start, user-prompt-submit and pre-compact (null: none ran).
  hook_server: served === null ? null : { pid: served.pid },
  node_baseline: summary(baseline),
  // Budgets (issue 32) are time beyond node's own start, p95: the baseline's p50 taken off each hook's p95.
  beyond_node_p95_ms: beyondNode(times.after),
  hooks: Object.fromEntries(
    Object.entries(times.after).map(([name, values]) => [name, { ...summary(values), ...(tokens[name].length > 0 ? { output_chars_p50: percentile(tokens[name], 50) } : {}) }]),
  ),
  // --before: the other build, run in the same rounds; ratio after/before of the time beyond node, p50 and p95.
  ...(times.before
    ? {
        before: { checkout: beforeDir, beyond_node_p95_ms: beyondNode(times.before), hooks: Object.fromEntries(Object.entries(times.before).map(([name, values]) => [name, summary(values)])) },
        ratio_after_before: Object.fromEntries(
          Object.keys(cases).map((name) => {
            const beyond = (build, p) => percentile(times[build][name], p) - percentile(baseline, 50);
            return [name, { p50: round((beyond('after', 50) / beyond('before', 50)) * 100) / 100, p95: round((beyond('after', 95) / beyond('before', 95)) * 100) / 100 }];
          }),
        ),
      }
    : {}),
  // state/hooks.json for the run (warm-up included): what moon status shows.
  recorded: Object.fromEntries(
    Object.entries(today).map(([event, counts]) => [event, { ...counts, tokens_per_injection: counts.injections > 0 ? Math.round(counts.tokens / counts.injections) : 0 }]),
  ),
};
console.log(JSON.stringify(result, null, 2));
if (!keep) rmSync(work, { recursive: true, force: true });
else console.error(`kept ${work}`);
