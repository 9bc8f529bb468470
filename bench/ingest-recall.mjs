#!/usr/bin/env node
// Ingest and recall benchmark, with the seed-002 approach (rg + jq over the raw JSONL) as the baseline.
//
//   node bench/ingest-recall.mjs [--full] [--sizes 10k,100k] [--reps 3] [--baseline-reps 1] [--timeout 120]
//                                [--baseline-subset-above 100k] [--strategy hybrid|bm25] [--no-baseline] [--no-merge]
//                                [--no-postgres] [--pg-set NAME=VALUE] [--docs-file FILE]
//                                [--no-write] [--keep] [--seed 42]
//
// For each corpus size (default 10k and 100k messages; --full adds 1M):
//  1. generate the corpus if needed (bench/generate-corpus.mjs, deterministic);
//  2. run the real CLI `node bin/moon.js index <corpus> --home <tmp> --json` as a child process: wall time, CPU time,
//     MB/s, messages/s, peak RSS (GNU time %M, else /proc/<pid>/status VmHWM polling), index size;
//  3. recall latency in-process through the library (createMoon(...).recall) over a fixed query set, after a warm-up;
//  4. the baseline: per query, `rg -i -l` then `rg -i` over the raw JSONL piped to `jq` to pull out the matching
//     message text (seed 002's search pipeline, run on the raw files since it has no index);
//  5. the same corpus on the PostgreSQL engine (unless --no-postgres): a temp server (scripts/lib/postgres-server.mjs,
//     bench profile; --pg-set overrides a setting), a fresh database per size, the same ingest and recall
//     measurements with MOON_DATABASE_URL set, the index size from `moon status --json` (the moon schema's relations),
//     and the server's own CPU time; missing PostgreSQL binaries fail the run (pass --no-postgres to leave it out);
// then print markdown tables and replace the "## Ingest and recall at scale" section of docs/benchmarks.md
// (--docs-file FILE writes the section to FILE instead; --no-write writes nothing).
// Above --baseline-subset-above messages the baseline runs only BASELINE_SUBSET (it takes minutes per query there).
// Rows for sizes not run this time are kept from bench/out/ingest-recall-latest.json when the machine and seed match
// (--no-merge drops them), so `--sizes 1M` can be run on its own and still land in the same table.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, freemem, release, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startPostgres } from '../scripts/lib/postgres-server.mjs';
import { generateCorpus, parseSize, sizeLabel } from './generate-corpus.mjs';
import { BASELINE_SUBSET, JQ_FILTER, QUERIES } from './queries.mjs';

export { BASELINE_SUBSET, QUERIES };

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..');
const bin = join(repo, 'bin', 'moon.js');
const docPath = join(repo, 'docs', 'benchmarks.md');
const SECTION = '## Ingest and recall at scale';
/** Earlier names of the same section, replaced too so a rename leaves no stale copy behind. */
const OLD_SECTIONS = ['## Ingest and recall (issue: foundation)'];

/** Targets the foundation issue sets. */
const TARGETS = { ingestMBpsPerCore: 50, recallP95Ms: 50, recallP95AtMessages: 1_000_000, peakRssMB: 300 };

// ---------------------------------------------------------------------------------------------------------
// Arguments.

function parseArgs(argv) {
  const options = {
    sizes: null,
    full: false,
    reps: 3,
    baselineReps: 1,
    timeoutS: 120,
    baselineSubsetAbove: 100_000,
    baseline: true,
    merge: true,
    write: true,
    keep: false,
    seed: 42,
    strategy: null,
    recallWorker: null,
    postgres: true,
    pgSettings: {},
    docsFile: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === '--full') options.full = true;
    else if (arg === '--sizes') options.sizes = value().split(',').map(parseSize);
    else if (arg === '--reps') options.reps = positive(arg, value());
    else if (arg === '--baseline-reps') options.baselineReps = positive(arg, value());
    else if (arg === '--timeout') options.timeoutS = positive(arg, value());
    else if (arg === '--seed') options.seed = Number(value());
    else if (arg === '--baseline-subset-above') options.baselineSubsetAbove = parseSize(value());
    else if (arg === '--no-baseline') options.baseline = false;
    else if (arg === '--no-merge') options.merge = false;
    else if (arg === '--strategy') options.strategy = value();
    else if (arg === '--recall-worker') options.recallWorker = value();
    else if (arg === '--no-write') options.write = false;
    else if (arg === '--no-postgres') options.postgres = false;
    else if (arg === '--pg-set') {
      const pair = value();
      const eq = pair.indexOf('=');
      if (eq <= 0 || !/^[a-z_.]+$/.test(pair.slice(0, eq))) throw new Error(`--pg-set: expected NAME=VALUE, got ${pair}`);
      options.pgSettings[pair.slice(0, eq)] = pair.slice(eq + 1);
    } else if (arg === '--docs-file') options.docsFile = resolve(value());
    else if (arg === '--keep') options.keep = true;
    else if (arg === '-h' || arg === '--help') {
      const lines = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1);
      console.log(lines.slice(0, lines.findIndex((line) => !line.startsWith('//'))).map((line) => line.replace(/^\/\/ ?/, '')).join('\n'));
      process.exit(0);
    } else throw new Error(`unknown argument: ${arg}`);
  }
  options.sizes ??= options.full ? [10_000, 100_000, 1_000_000] : [10_000, 100_000];
  return options;
}

function positive(flag, text) {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag}: expected a positive number, got ${text}`);
  return n;
}

// ---------------------------------------------------------------------------------------------------------
// Helpers.

const MB = 1e6;

function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

function median(values) {
  return percentile(values, 50);
}

function fileSize(path) {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function treeSize(dir) {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const dirent of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (dirent.isFile()) total += fileSize(join(dirent.parentPath ?? dirent.path, dirent.name));
  }
  return total;
}

function which(command) {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
}

function firstLine(command, args) {
  const run = spawnSync(command, args, { encoding: 'utf8' });
  return run.status === 0 ? run.stdout.split('\n')[0].trim() : null;
}

/** Busy CPU seconds of the whole machine so far (all cores), from /proc/stat; null where there is none. */
function machineBusyS() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = fields;
    return (user + nice + system + irq + softirq + (steal ?? 0)) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/** The product version measured: short commit, plus "+dirty" when the working tree has changes (read-only git). */
function productVersion() {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8' });
  if (head.status !== 0) return 'unknown';
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'src'], { cwd: repo, encoding: 'utf8' });
  return `${head.stdout.trim()}${dirty.stdout.trim() ? '+dirty' : ''}`;
}

function fmt(value, digits = 1) {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function machineInfo() {
  const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown';
  return {
    cpu: model,
    cores: cpus().length,
    ramGB: totalmem() / 1024 ** 3,
    freeGB: freemem() / 1024 ** 3,
    node: process.version,
    os: `${process.platform} ${release()}`,
    rg: firstLine('rg', ['--version']),
    jq: firstLine('jq', ['--version']),
    gnuTime: existsSync('/usr/bin/time'),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Ingest: the real CLI in a child process.

/** Process groups of the measured children still running, so a signal can stop them with the benchmark. */
const running = new Set();
/** Folders holding GNU time's output files of running children. */
const timeDirs = new Set();

function stopChildren() {
  for (const pid of running) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  for (const dir of timeDirs) rmSync(dir, { recursive: true, force: true });
}

/** Run a command, return wall ms, stdout, stderr tail, exit code, and (when GNU time is present) rusage figures. */
function runMeasured(command, args, { env, timeoutMs }) {
  const gnuTime = existsSync('/usr/bin/time');
  const timeFile = gnuTime ? join(mkdtempSync(join(tmpdir(), 'moon-bench-time-')), 'time.txt') : null;
  if (timeFile) timeDirs.add(dirname(timeFile));
  const argv = gnuTime ? ['/usr/bin/time', '-f', '%M %e %U %S', '-o', timeFile, command, ...args] : [command, ...args];
  return new Promise((resolvePromise) => {
    const started = performance.now();
    // Its own process group: a timeout or a signal stops `time` and the node process under it together.
    const child = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child.pid);
    const out = [];
    let errTail = '';
    let errLines = 0;
    let hwmKB = 0;
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => {
      const text = chunk.toString('utf8');
      errLines += (text.match(/\n/g) ?? []).length;
      errTail = (errTail + text).slice(-4000);
    });
    // Without GNU time: poll the child's high-water mark. (With it, the pid is time's, not node's.)
    const poll = gnuTime
      ? null
      : setInterval(() => {
          try {
            const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
            const kb = Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? 0);
            if (kb > hwmKB) hwmKB = kb;
          } catch {
            // The process has exited between polls.
          }
        }, 25);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, timeoutMs);
    child.on('close', (code, signal) => {
      const wallMs = performance.now() - started;
      running.delete(child.pid);
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      let rusage = null;
      if (timeFile && existsSync(timeFile)) {
        // GNU time may prepend "Command exited with non-zero status N"; the figures are on the last line.
        const last = readFileSync(timeFile, 'utf8').trim().split('\n').pop() ?? '';
        const [maxKB, elapsed, user, sys] = last.split(/\s+/).map(Number);
        if (Number.isFinite(maxKB)) rusage = { maxRssKB: maxKB, elapsedS: elapsed, userS: user, sysS: sys };
      }
      if (timeFile) {
        rmSync(dirname(timeFile), { recursive: true, force: true });
        timeDirs.delete(dirname(timeFile));
      }
      resolvePromise({
        code,
        signal,
        wallMs,
        stdout: Buffer.concat(out).toString('utf8'),
        stderrTail: errTail,
        stderrLines: errLines,
        peakRssKB: rusage?.maxRssKB ?? (hwmKB || null),
        cpuS: rusage ? rusage.userS + rusage.sysS : null,
        rssSource: rusage ? 'GNU time %M' : 'VmHWM poll',
      });
    });
  });
}

/**
 * The environment of a measured moon process: the caller's, minus what would change what is indexed, with the
 * engine chosen here (SQLite unless a PostgreSQL database URL is given).
 */
function moonEnv(home, databaseUrl) {
  const env = { ...process.env, MOON_HOME: home };
  for (const name of ['MOON_SOURCES', 'MOON_CURRENT_SESSION_ID', 'MOON_DATABASE_URL']) delete env[name];
  if (databaseUrl) env.MOON_DATABASE_URL = databaseUrl;
  return env;
}

/**
 * CPU seconds the PostgreSQL server has used so far: the postmaster, its finished children (backends that have
 * exited, counted in its cutime/cstime) and its running ones. Linux /proc only; null elsewhere.
 */
function serverCpuS(server) {
  if (!server) return null;
  try {
    const pid = Number(readFileSync(join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const fieldsOf = (p) => {
      const text = readFileSync(`/proc/${p}/stat`, 'utf8');
      return text.slice(text.lastIndexOf(')') + 2).split(' ');
    };
    // After the comm field: [0] state, [1] ppid, ... [11] utime, [12] stime, [13] cutime, [14] cstime.
    const own = fieldsOf(pid);
    let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry) || Number(entry) === pid) continue;
      try {
        const fields = fieldsOf(entry);
        if (Number(fields[1]) === pid) ticks += Number(fields[11]) + Number(fields[12]);
      } catch {
        // Gone meanwhile.
      }
    }
    return ticks / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/** db_bytes of `moon status --json`: for PostgreSQL, the moon schema's tables, indexes and TOAST. */
function statusDbBytes(home, env) {
  const run = spawnSync(process.execPath, [bin, 'status', '--json', '--home', home], { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  try {
    return Number(JSON.parse(run.stdout).db_bytes);
  } catch {
    throw new Error(`moon status --json failed (exit ${run.status}): ${run.stderr.slice(-500)}`);
  }
}

async function benchIngest(corpus, home, options, engine = {}) {
  const env = moonEnv(home, engine.databaseUrl);
  const busyBefore = machineBusyS();
  const serverBefore = serverCpuS(engine.server);
  const run = await runMeasured(process.execPath, [bin, 'index', corpus.dir, '--home', home, '--json'], {
    env,
    // PostgreSQL gets longer: its ingest rate is what is being found out.
    timeoutMs: Math.max(600, options.timeoutS * 20) * 1000 * (engine.databaseUrl ? 3 : 1),
  });
  const busyAfter = machineBusyS();
  const serverAfter = serverCpuS(engine.server);
  const serverCpu = serverBefore !== null && serverAfter !== null ? serverAfter - serverBefore : null;
  // CPU the rest of the machine used meanwhile, in cores: other work skews the figures when this is well above 0.
  // The PostgreSQL server's CPU is part of the work measured, not other load.
  const otherCores =
    busyBefore !== null && busyAfter !== null && run.cpuS !== null ? Math.max(0, busyAfter - busyBefore - run.cpuS - (serverCpu ?? 0)) / (run.wallMs / 1000) : null;
  if (run.code !== 0) {
    throw new Error(`moon index exited with ${run.code ?? run.signal} after ${(run.wallMs / 1000).toFixed(1)} s\n${run.stderrTail}`);
  }
  let report;
  try {
    report = JSON.parse(run.stdout);
  } catch (error) {
    throw new Error(`moon index --json printed no JSON (${error.message}): ${run.stdout.slice(0, 400)}`);
  }
  const bytes = corpus.manifest.bytes;
  const wallS = run.wallMs / 1000;
  const db = engine.databaseUrl ? statusDbBytes(home, env) : fileSize(join(home, 'moon.db'));
  const wal = engine.databaseUrl ? 0 : fileSize(join(home, 'moon.db-wal'));
  return {
    engine: engine.databaseUrl ? 'postgres' : 'sqlite',
    wallS,
    cpuS: run.cpuS,
    serverCpuS: serverCpu,
    mbPerTotalCpuS: run.cpuS && serverCpu !== null ? bytes / MB / (run.cpuS + serverCpu) : null,
    coresUsed: run.cpuS ? run.cpuS / wallS : null,
    mbPerS: bytes / MB / wallS,
    mbPerCpuS: run.cpuS ? bytes / MB / run.cpuS : null,
    messagesPerS: corpus.manifest.messages / wallS,
    peakRssMB: run.peakRssKB ? (run.peakRssKB * 1024) / MB : null,
    rssSource: run.rssSource,
    dbBytes: db,
    walBytes: wal,
    indexBytes: db + wal,
    projectionBytes: treeSize(join(home, 'archives', 'mlib')),
    rawArchiveBytes: treeSize(join(home, 'archives', 'raw')),
    stderrLines: run.stderrLines,
    otherCores,
    report: {
      files: report.files,
      indexed: report.indexed,
      failed: report.failed,
      entries: report.entries,
      filtered: report.filtered,
      projections: report.projections,
      warnings: Array.isArray(report.warnings) ? report.warnings.length : report.warnings,
      durationMs: report.duration_ms,
      firstWarnings: Array.isArray(report.warnings) ? report.warnings.slice(0, 3) : [],
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Recall: in-process through the library.

/**
 * Recall runs in a fresh process per corpus, so it measures the dist/ that exists now (an import would be cached
 * for the whole run) and its heap does not carry the previous corpus.
 */
async function benchRecall(home, options, engine = {}) {
  const args = [fileURLToPath(import.meta.url), '--recall-worker', home, '--reps', String(options.reps), ...(options.strategy ? ['--strategy', options.strategy] : [])];
  const busyBefore = machineBusyS();
  const serverBefore = serverCpuS(engine.server);
  const run = await runMeasured(process.execPath, args, { env: moonEnv(home, engine.databaseUrl), timeoutMs: 30 * 60 * 1000 * (engine.databaseUrl ? 4 : 1) });
  const busyAfter = machineBusyS();
  const serverAfter = serverCpuS(engine.server);
  const serverCpu = serverBefore !== null && serverAfter !== null ? serverAfter - serverBefore : null;
  if (run.code !== 0) throw new Error(`recall worker exited with ${run.code ?? run.signal}: ${run.stderrTail}`);
  const result = JSON.parse(run.stdout);
  result.otherCores =
    busyBefore !== null && busyAfter !== null && run.cpuS !== null ? Math.max(0, busyAfter - busyBefore - run.cpuS - (serverCpu ?? 0)) / (run.wallMs / 1000) : null;
  if (engine.databaseUrl) result.serverCpuS = serverCpu;
  return result;
}

async function recallWorker(home, options) {
  const { loadConfig, createMoon } = await import(pathToFileURL(join(repo, 'dist', 'index.js')).href);
  const env = { ...process.env, MOON_HOME: home };
  for (const name of Object.keys(env)) if (/^MOON_(SOURCES|CURRENT_SESSION_ID|RECALL_|EMBED_)/.test(name)) delete env[name];
  if (options.strategy) env.MOON_RECALL_STRATEGY = options.strategy;
  const config = loadConfig({ env });
  const moon = createMoon(config);
  try {
    const rssBefore = process.memoryUsage().rss;
    // recall() may return the result or a promise of it (the API became async with vector search); await covers both.
    await moon.history.recall({ query: 'warm up the index', limit: 10 });
    const perQuery = QUERIES.map((q) => ({ ...q, ms: [], sessions: 0, matches: 0 }));
    for (let rep = 0; rep < options.reps; rep++) {
      for (const q of perQuery) {
        const started = performance.now();
        const result = await moon.history.recall({ query: q.query, limit: 10 });
        q.ms.push(performance.now() - started);
        q.sessions = result.matches.length;
        q.matches = result.matches.reduce((sum, match) => sum + (match.metadata.match_count ?? 0), 0);
        q.ids = result.matches.map((match) => match.metadata.session_id ?? match.archive_path ?? null);
      }
    }
    const medians = perQuery.map((q) => median(q.ms));
    const all = perQuery.flatMap((q) => q.ms);
    return {
      strategy: config.recall?.strategy ?? 'default',
      embed: config.embed?.provider ?? 'none',
      p50: percentile(medians, 50),
      p95: percentile(medians, 95),
      max: Math.max(...all),
      allP95: percentile(all, 95),
      rssGrowthMB: (process.memoryUsage().rss - rssBefore) / MB,
      perQuery: perQuery.map((q) => ({ query: q.query, kind: q.kind, medianMs: median(q.ms), sessions: q.sessions, matches: q.matches, ids: q.ids })),
    };
  } finally {
    await moon.close();
  }
}

/** What an agent hook pays: a fresh `node bin/moon.js recall --json` process per query. */
async function benchCliRecall(home, engine = {}) {
  const env = moonEnv(home, engine.databaseUrl);
  const samples = [];
  for (const query of ['flaky test', 'src/lib/payments.ts', 'idempotency', 'deploy to production', 'error']) {
    const run = await runMeasured(process.execPath, [bin, 'recall', query, '--json', '--home', home], { env, timeoutMs: 60_000 });
    if (run.code !== 0) throw new Error(`moon recall "${query}" exited with ${run.code}: ${run.stderrTail}`);
    samples.push(run.wallMs);
  }
  return { p50: median(samples), max: Math.max(...samples) };
}

// ---------------------------------------------------------------------------------------------------------
// Baseline: seed 002's pipeline over the raw JSONL (rg finds the files and lines, jq extracts the message text).

function regexEscape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function shellQuote(text) {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Seed 002 simple mode ORs the query words: `rg -i "(authentication|jwt)"`. */
function baselinePipeline(dir, query) {
  const terms = query.split(/\s+/).filter(Boolean).map(regexEscape);
  const pattern = shellQuote(terms.length === 1 ? terms[0] : `(${terms.join('|')})`);
  return [
    `rg -i -l -g '*.jsonl' -e ${pattern} ${shellQuote(dir)}`,
    `xargs -r -d '\\n' rg -i --no-filename --no-line-number -e ${pattern}`,
    `jq -r -c ${shellQuote(JQ_FILTER)}`,
    `rg -i -e ${pattern}`,
    'sort -u',
    'wc -l',
  ].join(' | ');
}

async function benchBaseline(dir, messages, options) {
  // Warm the page cache for the raw files, as the index is warm for moon.
  spawnSync('rg', ['-c', '-g', '*.jsonl', 'zzzz-warm-cache-zzzz', dir], { stdio: 'ignore' });
  const subset = messages > options.baselineSubsetAbove;
  const queries = subset ? QUERIES.filter((q) => BASELINE_SUBSET.includes(q.query)) : QUERIES;
  const perQuery = [];
  for (const q of queries) {
    const ms = [];
    let lines = null;
    let timedOut = false;
    for (let rep = 0; rep < options.baselineReps; rep++) {
      const run = await runShell(baselinePipeline(dir, q.query), options.timeoutS * 1000);
      ms.push(run.wallMs);
      if (run.timedOut) {
        timedOut = true;
        break;
      }
      if (run.code !== 0) throw new Error(`baseline pipeline failed for "${q.query}" (exit ${run.code}): ${run.stderr.slice(-500)}`);
      lines = Number(run.stdout.trim());
    }
    perQuery.push({ query: q.query, medianMs: median(ms), lines, timedOut });
    if (subset) console.log(`  rg+jq "${q.query}": ${timedOut ? `timed out at ${options.timeoutS} s` : `${fmt(median(ms), 0)} ms, ${lines} lines`}`);
  }
  const medians = perQuery.map((q) => q.medianMs);
  return { p50: percentile(medians, 50), p95: percentile(medians, 95), timeouts: perQuery.filter((q) => q.timedOut).length, subset, perQuery };
}

function runShell(script, timeoutMs) {
  return new Promise((resolvePromise) => {
    const started = performance.now();
    // A process group of its own, so a timeout kills the whole pipeline and nothing else.
    const child = spawn('bash', ['-o', 'pipefail', '-c', script], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      // `rg` exits 1 when nothing matched, which pipefail passes on; that is an empty result, not a failure.
      const empty = code === 1 && stdout.trim() === '0';
      resolvePromise({ code: empty ? 0 : code, stdout, stderr, timedOut, wallMs: performance.now() - started });
    });
  });
}

// ---------------------------------------------------------------------------------------------------------
// Reporting.

function ingestTable(results) {
  const rows = results.map((r) => {
    const i = r.ingest;
    return `| ${r.label} | ${r.manifest.messages.toLocaleString('en-US')} | ${r.manifest.sessions.toLocaleString('en-US')} | ${fmt(r.manifest.bytes / MB)} | ${fmt(i.wallS, 2)} | ${fmt(i.cpuS, 2)} | ${fmt(i.mbPerS)} | ${fmt(i.mbPerCpuS)} | ${fmt(i.messagesPerS, 0)} | ${fmt(i.peakRssMB, 0)} | ${fmt(i.indexBytes / MB)} | ${fmt(i.projectionBytes / MB)} | ${i.report.entries.toLocaleString('en-US')} | ${i.report.failed} / ${i.report.warnings} |`;
  });
  return [
    '| corpus | messages | sessions | JSONL MB | wall s | CPU s | MB/s (wall) | MB/s per core (CPU s) | messages/s | peak RSS MB | index MB (db+wal) | projections MB | entries | failed / warnings |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

/** moon's p50 / p95 over the queries the baseline ran, so the ratios compare like with like. */
function comparableMoon(result) {
  const b = result.baseline;
  if (!b?.subset) return { p50: result.recall.p50, p95: result.recall.p95 };
  const ran = new Set(b.perQuery.map((q) => q.query));
  const medians = result.recall.perQuery.filter((q) => ran.has(q.query)).map((q) => q.medianMs);
  return { p50: percentile(medians, 50), p95: percentile(medians, 95) };
}

function recallTable(results) {
  const rows = results.map((r) => {
    const m = r.recall;
    const b = r.baseline;
    const same = comparableMoon(r);
    // A timed-out query counts as the timeout, so its ratio is a lower bound.
    const bound = b && b.timeouts > 0 ? '≥ ' : '';
    const ratio = (x, y) => (b && Number.isFinite(x) && Number.isFinite(y) && x > 0 ? `${bound}${fmt(y / x, 0)}×` : '–');
    const notes = [
      ...(b?.subset ? [`${b.perQuery.length} of ${QUERIES.length} queries; moon on the same: p50 ${fmt(same.p50, 1)} / p95 ${fmt(same.p95, 1)} ms`] : []),
      ...(b && b.timeouts > 0 ? [`${b.timeouts} timed out at ${r.timeoutS} s`] : []),
    ];
    const note = notes.length > 0 ? ` (${notes.join('; ')})` : '';
    return `| ${r.label} | ${fmt(m.p50, 2)} | ${fmt(m.p95, 2)} | ${fmt(m.max, 1)} | ${fmt(r.cli?.p50, 0)} | ${b ? fmt(b.p50, 0) : 'not run'} | ${b ? fmt(b.p95, 0) : 'not run'}${note} | ${ratio(same.p50, b?.p50)} | ${ratio(same.p95, b?.p95)} |`;
  });
  return [
    '| corpus | moon p50 ms | moon p95 ms | moon max ms | CLI recall (new process) p50 ms | rg+jq p50 ms | rg+jq p95 ms | p50 speed-up | p95 speed-up |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

function perQueryTable(result) {
  const baseline = new Map((result.baseline?.perQuery ?? []).map((q) => [q.query, q]));
  const pg = result.pg ? new Map(result.pg.recall.perQuery.map((q) => [q.query, q])) : null;
  const rows = result.recall.perQuery.map((q) => {
    const b = baseline.get(q.query);
    const p = pg?.get(q.query);
    const pgCells = pg ? ` ${fmt(p?.medianMs, 2)} | ${p && q.medianMs > 0 ? `${fmt(p.medianMs / q.medianMs, 1)}×` : '–'} | ${p?.ids && q.ids ? (JSON.stringify(p.ids) === JSON.stringify(q.ids) ? 'yes' : 'no') : '–'} |` : '';
    return `| \`${q.query}\` | ${q.kind} | ${fmt(q.medianMs, 2)} | ${q.sessions} | ${q.matches} | ${b ? (b.timedOut ? `>${fmt(b.medianMs / 1000, 0)} s` : fmt(b.medianMs, 0)) : '–'} | ${b?.lines ?? '–'} |${pgCells}`;
  });
  return [
    `| query | kind | moon median ms | sessions returned | matched messages (in returned sessions) | rg+jq ms | rg+jq matching lines |${pg ? ' PostgreSQL median ms | pg / sqlite | same sessions |' : ''}`,
    `|---|---|---:|---:|---:|---:|---:|${pg ? '---:|---:|---|' : ''}`,
    ...rows,
  ].join('\n');
}

// PostgreSQL beside SQLite.

function ratio(pg, sqlite, digits = 2) {
  return Number.isFinite(pg) && Number.isFinite(sqlite) && sqlite > 0 ? `${fmt(pg / sqlite, digits)}×` : '–';
}

function pgIngestTable(results) {
  const rows = [];
  for (const r of results.filter((x) => x.pg)) {
    const line = (engine, i) =>
      `| ${r.label} | ${engine} | ${fmt(i.wallS, 2)} | ${fmt(i.mbPerS)} | ${fmt(i.cpuS, 2)} | ${i.serverCpuS === undefined ? '–' : fmt(i.serverCpuS, 2)} | ${fmt(i.mbPerTotalCpuS ?? i.mbPerCpuS)} | ${fmt(i.messagesPerS, 0)} | ${fmt(i.peakRssMB, 0)} | ${fmt(i.indexBytes / MB)} | ${i.report.entries.toLocaleString('en-US')} | ${i.report.failed} / ${i.report.warnings} |`;
    rows.push(line('SQLite', r.ingest), line('PostgreSQL', r.pg.ingest));
    const a = r.ingest;
    const b = r.pg.ingest;
    rows.push(
      `| ${r.label} | **pg / sqlite** | ${ratio(b.wallS, a.wallS)} | ${ratio(b.mbPerS, a.mbPerS)} | ${ratio(b.cpuS, a.cpuS)} | | ${ratio(b.mbPerTotalCpuS, a.mbPerCpuS)} | ${ratio(b.messagesPerS, a.messagesPerS)} | ${ratio(b.peakRssMB, a.peakRssMB)} | ${ratio(b.indexBytes, a.indexBytes)} | | |`,
    );
  }
  return [
    '| corpus | engine | wall s | MB/s (wall) | CPU s (moon) | CPU s (server) | MB/s per core (all CPU s) | messages/s | peak RSS MB (moon) | index MB | entries | failed / warnings |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

function pgRecallTable(results) {
  const rows = results
    .filter((r) => r.pg)
    .map((r) => {
      const a = r.recall;
      const b = r.pg.recall;
      const same = r.pg.sameResults;
      return `| ${r.label} | ${fmt(a.p50, 2)} | ${fmt(a.p95, 2)} | ${fmt(b.p50, 2)} | ${fmt(b.p95, 2)} | ${fmt(b.max, 1)} | ${ratio(b.p50, a.p50, 1)} | ${ratio(b.p95, a.p95, 1)} | ${fmt(r.cli?.p50, 0)} / ${fmt(r.pg.cli?.p50, 0)} | ${same ? `${same.same} / ${same.compared}` : '–'} |`;
    });
  return [
    '| corpus | SQLite p50 ms | SQLite p95 ms | PostgreSQL p50 ms | PostgreSQL p95 ms | PostgreSQL max ms | p50 pg / sqlite | p95 pg / sqlite | CLI recall p50 ms (sqlite / pg) | same sessions returned |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

/** p50 / p95 over the per-query medians of each query kind, both engines. */
function pgKindTable(result) {
  const kinds = [...new Set(QUERIES.map((q) => q.kind))];
  const pg = new Map(result.pg.recall.perQuery.map((q) => [q.query, q]));
  const rows = kinds.map((kind) => {
    const lite = result.recall.perQuery.filter((q) => q.kind === kind);
    const a = lite.map((q) => q.medianMs);
    const b = lite.map((q) => pg.get(q.query)?.medianMs).filter((v) => Number.isFinite(v));
    const [a50, a95, b50, b95] = [percentile(a, 50), percentile(a, 95), percentile(b, 50), percentile(b, 95)];
    return `| ${kind} | ${lite.length} | ${fmt(a50, 2)} | ${fmt(a95, 2)} | ${fmt(b50, 2)} | ${fmt(b95, 2)} | ${ratio(b50, a50, 1)} | ${ratio(b95, a95, 1)} |`;
  });
  return [
    `| query kind (${result.label}) | queries | SQLite p50 ms | SQLite p95 ms | PostgreSQL p50 ms | PostgreSQL p95 ms | p50 pg / sqlite | p95 pg / sqlite |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

function pgSection(results, options) {
  const withPg = results.filter((r) => r.pg);
  if (withPg.length === 0) return [];
  const server = withPg[withPg.length - 1].pg.server;
  const settings = Object.entries(server?.settings ?? {})
    .filter(([name]) => name !== 'listen_addresses')
    .map(([name, value]) => `\`${name}=${value}\``)
    .join(', ');
  return [
    '### PostgreSQL beside SQLite — the same corpora, the same run',
    '',
    `The PostgreSQL engine (\`MOON_DATABASE_URL\`) on a temp ${server?.version ?? 'PostgreSQL'} server on the same machine, started by \`scripts/lib/postgres-server.mjs\` (bench profile), one fresh database per corpus size and a fresh \`MOON_HOME\` for the archives.`,
    `Server settings: ${settings}; everything else, the planner's settings included, at PostgreSQL's defaults. Durability is off (\`fsync\`, \`synchronous_commit\`, \`full_page_writes\`): the cluster is thrown away after the run, and a durable server would ingest slower.`,
    '',
    pgIngestTable(results),
    '',
    'The server does part of the work, so its CPU seconds (the postmaster and its backends, from /proc) are counted: "MB/s per core" is JSONL bytes per CPU second of moon plus server for PostgreSQL, of moon alone for SQLite. Peak RSS is the moon process only.',
    'The PostgreSQL index size is `moon status --json` dbBytes: the moon schema\'s tables with their indexes and TOAST (`pg_total_relation_size`); WAL and the catalog are not counted.',
    '',
    pgRecallTable(results),
    '',
    `Timed like the SQLite rows (in-process, ${QUERIES.length} queries, median of ${options.reps} runs after a warm-up; p50 / p95 over the per-query medians); for PostgreSQL the time includes the round trips to the local server. "Same sessions returned": queries whose top-10 sessions are identical, in order, on both engines.`,
    '',
    ...withPg.flatMap((r) => [pgKindTable(r), '']),
  ];
}

function verdicts(results) {
  const lines = [];
  for (const r of results) {
    const i = r.ingest;
    const ingestOk = i.mbPerCpuS !== null ? i.mbPerCpuS >= TARGETS.ingestMBpsPerCore : i.mbPerS >= TARGETS.ingestMBpsPerCore;
    const rssOk = i.peakRssMB !== null && i.peakRssMB < TARGETS.peakRssMB;
    const recallOk = r.recall.p95 < TARGETS.recallP95Ms;
    lines.push(
      `- ${r.label}: ingest ${fmt(i.mbPerCpuS ?? i.mbPerS)} MB/s per core ${ingestOk ? '✅' : '❌'} (target ≥ ${TARGETS.ingestMBpsPerCore}); ` +
        `peak RSS ${fmt(i.peakRssMB, 0)} MB ${rssOk ? '✅' : '❌'} (target < ${TARGETS.peakRssMB}); ` +
        `recall p95 ${fmt(r.recall.p95, 1)} ms ${recallOk ? '✅' : '❌'} (target < ${TARGETS.recallP95Ms} ms${r.manifest.messages === TARGETS.recallP95AtMessages ? '' : ` at 1M; measured here at ${r.label}`})`,
    );
  }
  for (const r of results.filter((x) => x.pg)) {
    const i = r.pg.ingest;
    const perCore = i.mbPerTotalCpuS ?? i.mbPerCpuS ?? i.mbPerS;
    lines.push(
      `- ${r.label} on PostgreSQL: ingest ${fmt(perCore)} MB/s per core (moon + server CPU) ${perCore >= TARGETS.ingestMBpsPerCore ? '✅' : '❌'} (target ≥ ${TARGETS.ingestMBpsPerCore}); ` +
        `peak RSS ${fmt(i.peakRssMB, 0)} MB (moon process) ${i.peakRssMB !== null && i.peakRssMB < TARGETS.peakRssMB ? '✅' : '❌'} (target < ${TARGETS.peakRssMB}); ` +
        `recall p95 ${fmt(r.pg.recall.p95, 1)} ms ${r.pg.recall.p95 < TARGETS.recallP95Ms ? '✅' : '❌'} (target < ${TARGETS.recallP95Ms} ms${r.manifest.messages === TARGETS.recallP95AtMessages ? '' : ` at 1M; measured here at ${r.label}`})`,
    );
  }
  if (!results.some((r) => r.manifest.messages >= TARGETS.recallP95AtMessages)) {
    lines.push('- 1M messages: not run in this pass (`npm run bench -- --full` runs it); the recall target is defined at 1M.');
  }
  return lines.join('\n');
}

function renderSection(results, machine, options, startedAt) {
  const largest = results[results.length - 1];
  return [
    SECTION,
    '',
    `Measured ${[...new Set(results.map((r) => (r.measuredAt ?? startedAt.toISOString()).slice(0, 10)))].join(', ')}` +
      ` (moon ${[...new Set(results.map((r) => `${r.version ?? 'unknown'}`))].join(', ')}; src/ changes not yet committed are marked +dirty) on ${machine.cpu}, ${machine.cores} cores, ${fmt(machine.ramGB, 1)} GB RAM, Node ${machine.node}, ${machine.os}` +
      ` (baseline: ${machine.rg ?? 'rg missing'}, ${machine.jq ?? 'jq missing'}).`,
    '',
    '**Reproduce:** `npm run bench` (builds, then 10k and 100k messages) or `npm run bench -- --full` (adds 1M), i.e. `node bench/ingest-recall.mjs [--full]`; both measure SQLite and PostgreSQL (a temp server; `--no-postgres` leaves it out).',
    `Corpora come from \`node bench/generate-corpus.mjs <size>\` (seed ${options.seed}, deterministic, written to the git-ignored \`bench/corpora/\`):`,
    'Claude Code / Codex / OpenClaw sessions of 50–400 messages in a 55 / 30 / 15 split, prose from a ~2k-word Zipf vocabulary with',
    'technical terms, identifiers, paths, commands and ticket ids, tool calls with their results, timestamps over six months.',
    '',
    '### Ingest — `node bin/moon.js index <corpus> --home <tmp> --json`, one cold run into an empty home',
    '',
    ingestTable(results),
    '',
    `Wall time is measured around the child process; CPU seconds (user + sys) and peak RSS come from ${largest?.ingest.rssSource ?? 'GNU time'}.`,
    `Other work on the machine during ingest / recall, in cores: ${results.map((r) => `${r.label} ${fmt(r.ingest.otherCores, 2)} / ${fmt(r.recall.otherCores, 2)}`).join(', ')} (from /proc/stat; near 0 means the figures are clean).`,
    '"MB/s per core" is JSONL bytes per CPU second. The index is `moon.db` + `moon.db-wal`; projections are the markdown files under `archives/mlib`',
    '(the verbatim raw copies under `archives/raw` are not counted).',
    '',
    `### Recall — ${QUERIES.length} fixed queries, \`limit: 10\`, median of ${options.reps} runs per query after one warm-up`,
    '',
    `Recall strategy: ${[...new Set(results.map((r) => `${r.label}: \`${r.recall.strategy}\` (embeddings: ${r.recall.embed})`))].join(', ')}.`,
    '',
    recallTable(results),
    '',
    'moon is timed in-process through the library (`createMoon(config).recall(...)`), the way MCP and HTTP serve it; the CLI column is a fresh',
    '`node bin/moon.js recall --json` process per query (5 queries), which adds Node start-up and opening the database.',
    `The baseline is seed 002's search run on the raw transcripts (it has no index): \`rg -i -l\` finds the files, \`rg -i\` the lines, \`jq\` extracts`,
    'the message text of all three formats, a second `rg -i` keeps the lines whose text matches, then `sort -u` (query words ORed, as seed 002 does).',
    `It is timed as a shell pipeline per query (${options.baselineReps} run${options.baselineReps === 1 ? '' : 's'} each, page cache warm) and does no ranking or grouping, so it is a lower bound for that approach.`,
    `p50 / p95 are taken over the per-query medians. Above ${sizeLabel(options.baselineSubsetAbove)} messages the baseline runs ${BASELINE_SUBSET.length} of the queries (one per kind; the full set would take hours), and the ratios compare moon on the same queries.`,
    '',
    ...pgSection(results, options),
    '### Against the targets',
    '',
    verdicts(results),
    '',
    `<details><summary>Per query at ${largest.label}</summary>`,
    '',
    perQueryTable(largest),
    '',
    '</details>',
    '',
  ].join('\n');
}

/**
 * Keep rows of earlier runs for sizes this run skipped, when they were measured on the same machine, Node and seed
 * with the same generator; then save the union as the new "latest".
 */
function mergeWithLatest(results, machine, options, latestPath) {
  let previous = [];
  if (options.merge && existsSync(latestPath)) {
    try {
      const latest = JSON.parse(readFileSync(latestPath, 'utf8'));
      const sameMachine = latest.machine?.cpu === machine.cpu && latest.machine?.cores === machine.cores && latest.machine?.node === machine.node;
      if (sameMachine && latest.seed === options.seed) {
        const fresh = new Set(results.map((r) => r.label));
        previous = (latest.results ?? []).filter(
          (r) => !fresh.has(r.label) && r.manifest?.generatorVersion === results[0]?.manifest.generatorVersion,
        );
      }
    } catch {
      previous = [];
    }
  }
  const merged = [...previous, ...results].sort((a, b) => a.manifest.messages - b.manifest.messages);
  // Only a run that rewrites the docs becomes the "latest": exploratory --no-write runs leave it alone.
  if (options.write) writeFileSync(latestPath, `${JSON.stringify({ machine, seed: options.seed, results: merged }, null, 2)}\n`);
  for (const r of previous) console.log(`kept the ${r.label} row from ${r.measuredAt ?? 'an earlier run'} (--no-merge drops it)`);
  return merged;
}

function writeSection(section, docPath) {
  let doc = existsSync(docPath)
    ? readFileSync(docPath, 'utf8')
    : '# Benchmarks\n\nHow fast moon ingests and recalls, measured with the scripts in `bench/`. Each section is rewritten by the script that produces it.\n';
  for (const old of OLD_SECTIONS) {
    const at = doc.indexOf(`\n${old}\n`);
    if (at < 0) continue;
    const next = doc.indexOf('\n## ', at + old.length + 1);
    doc = `${doc.slice(0, at + 1)}${next >= 0 ? doc.slice(next + 1) : ''}`;
  }
  const start = doc.indexOf(SECTION);
  if (start >= 0) {
    const next = doc.indexOf('\n## ', start + SECTION.length);
    doc = `${doc.slice(0, start)}${section.trimEnd()}\n${next >= 0 ? doc.slice(next) : ''}`;
  } else {
    doc = `${doc.trimEnd()}\n\n${section.trimEnd()}\n`;
  }
  mkdirSync(dirname(docPath), { recursive: true });
  writeFileSync(docPath, doc);
}

// ---------------------------------------------------------------------------------------------------------

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.recallWorker) {
    process.stdout.write(`${JSON.stringify(await recallWorker(options.recallWorker, options))}\n`);
    return;
  }
  const startedAt = new Date();
  const machine = machineInfo();
  if (!existsSync(join(repo, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  if (options.baseline && (!machine.rg || !machine.jq)) {
    throw new Error(`the baseline needs rg and jq (found rg: ${machine.rg ?? 'no'}, jq: ${machine.jq ?? 'no'}); install them or pass --no-baseline`);
  }
  console.log(`machine: ${machine.cpu}, ${machine.cores} cores, ${fmt(machine.ramGB)} GB RAM, Node ${machine.node}; peak RSS via ${machine.gnuTime ? 'GNU time' : '/proc VmHWM polling'}`);
  // The PostgreSQL engine runs on a temp server for the whole run, one fresh database per corpus size.
  let server = null;
  let serverInfo = null;
  if (options.postgres) {
    try {
      server = await startPostgres({ profile: 'bench', settings: options.pgSettings });
    } catch (error) {
      throw new Error(`${error.message}\n(the PostgreSQL rows need a local server; pass --no-postgres to measure SQLite only)`);
    }
    serverInfo = { version: server.version(), settings: server.settings };
    console.log(`postgres: ${serverInfo.version}, temp server on port ${server.port} (${Object.entries(server.settings).filter(([name]) => name !== 'listen_addresses').map(([n, v]) => `${n}=${v}`).join(' ')})`);
  }
  try {
    await measureSizes(options, machine, server, serverInfo, startedAt);
  } finally {
    server?.stop();
  }
}

async function measureSizes(options, machine, server, serverInfo, startedAt) {
  const results = [];
  for (const messages of options.sizes) {
    const label = sizeLabel(messages);
    console.log(`\n== ${label} messages`);
    const corpus = generateCorpus({ messages, seed: options.seed, log: (line) => console.log(`corpus ${line}`) });
    // The version of the code being measured: taken before the run, as dist/ is what the run imports.
    const version = productVersion();
    const home = mkdtempSync(join(tmpdir(), `moon-bench-${label}-`));
    const pgHome = server ? mkdtempSync(join(tmpdir(), `moon-bench-${label}-pg-`)) : null;
    // A run stopped with Ctrl-C or SIGTERM still removes its temporary homes (a 1M one holds ~3.5 GB) and the server.
    const onSignal = (signal) => {
      console.error(`bench: stopped by ${signal} at ${new Date().toISOString()} (${label}); removing the temp homes${server ? ' and stopping the PostgreSQL server' : ''}`);
      stopChildren();
      if (!options.keep) for (const dir of [home, pgHome]) if (dir) rmSync(dir, { recursive: true, force: true });
      server?.stop();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      console.log(`ingest: node bin/moon.js index ${corpus.dir} --home ${home} --json`);
      const ingest = await benchIngest(corpus, home, options);
      console.log(
        `ingest: other load ${fmt(ingest.otherCores, 2)} cores; ${fmt(ingest.wallS, 2)} s wall, ${fmt(ingest.cpuS, 2)} s CPU, ${fmt(ingest.mbPerS)} MB/s, ${fmt(ingest.messagesPerS, 0)} messages/s, ` +
          `peak RSS ${fmt(ingest.peakRssMB, 0)} MB, index ${fmt(ingest.indexBytes / MB)} MB, ${ingest.report.entries} entries, ${ingest.report.failed} failed, ${ingest.report.warnings} warnings`,
      );
      for (const warning of ingest.report.firstWarnings) console.log(`  warning: ${warning}`);
      const recall = await benchRecall(home, options);
      console.log(`recall (in-process, strategy ${recall.strategy}, other load ${fmt(recall.otherCores, 2)} cores): p50 ${fmt(recall.p50, 2)} ms, p95 ${fmt(recall.p95, 2)} ms, max ${fmt(recall.max, 1)} ms`);
      const cli = await benchCliRecall(home);
      console.log(`recall (CLI process): p50 ${fmt(cli.p50, 0)} ms`);
      let baseline = null;
      if (options.baseline) {
        baseline = await benchBaseline(corpus.dir, messages, options);
        console.log(`baseline rg+jq: p50 ${fmt(baseline.p50, 0)} ms, p95 ${fmt(baseline.p95, 0)} ms${baseline.timeouts ? `, ${baseline.timeouts} timeouts` : ''}`);
      }
      let pg = null;
      if (server) {
        if (!options.keep) rmSync(home, { recursive: true, force: true });
        pg = await benchPostgres(corpus, pgHome, options, server, label, { ingest, recall });
        pg.server = serverInfo;
      }
      results.push({ label, measuredAt: new Date().toISOString(), version, manifest: corpus.manifest, ingest, recall, cli, baseline, pg, timeoutS: options.timeoutS });
    } finally {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      if (options.keep) console.log(`kept MOON_HOME ${home}${pgHome ? ` and ${pgHome}` : ''}`);
      else for (const dir of [home, pgHome]) if (dir) rmSync(dir, { recursive: true, force: true });
    }
  }

  const outDir = join(here, 'out');
  mkdirSync(outDir, { recursive: true });
  const rawPath = join(outDir, `ingest-recall-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(rawPath, `${JSON.stringify({ startedAt, machine, options, targets: TARGETS, results }, null, 2)}\n`);
  console.log(`raw results: ${rawPath}`);
  const merged = mergeWithLatest(results, machine, options, join(outDir, 'ingest-recall-latest.json'));
  const section = renderSection(merged, machine, options, startedAt);
  console.log(`\n${section}`);
  if (options.write) {
    const target = options.docsFile ?? docPath;
    writeSection(section, target);
    console.log(`updated ${target}`);
  }
}

/** The same corpus on the PostgreSQL engine: a fresh database, the same ingest, recall and CLI measurements. */
async function benchPostgres(corpus, home, options, server, label, sqlite) {
  const databaseUrl = server.createDatabase(`moon_bench_${label.toLowerCase().replace(/[^a-z0-9]/g, '_')}`);
  const engine = { databaseUrl, server };
  console.log(`postgres ingest: MOON_DATABASE_URL=${databaseUrl} node bin/moon.js index ${corpus.dir} --home ${home} --json`);
  const ingest = await benchIngest(corpus, home, options, engine);
  console.log(
    `postgres ingest: other load ${fmt(ingest.otherCores, 2)} cores; ${fmt(ingest.wallS, 2)} s wall (${fmt(ingest.wallS / sqlite.ingest.wallS, 2)}× SQLite), ${fmt(ingest.cpuS, 2)} s CPU moon + ${fmt(ingest.serverCpuS, 2)} s CPU server, ` +
      `${fmt(ingest.mbPerS)} MB/s, peak RSS ${fmt(ingest.peakRssMB, 0)} MB (moon process), index ${fmt(ingest.indexBytes / MB)} MB (${fmt(ingest.indexBytes / sqlite.ingest.indexBytes, 2)}× SQLite), ` +
      `${ingest.report.entries} entries, ${ingest.report.failed} failed, ${ingest.report.warnings} warnings`,
  );
  if (ingest.report.entries !== sqlite.ingest.report.entries) console.log(`  note: ${ingest.report.entries} entries on PostgreSQL, ${sqlite.ingest.report.entries} on SQLite`);
  for (const warning of ingest.report.firstWarnings) console.log(`  warning: ${warning}`);
  const recall = await benchRecall(home, options, engine);
  const same = sameResults(sqlite.recall, recall);
  console.log(
    `postgres recall (in-process, strategy ${recall.strategy}, other load ${fmt(recall.otherCores, 2)} cores, server CPU ${fmt(recall.serverCpuS, 1)} s): p50 ${fmt(recall.p50, 2)} ms, p95 ${fmt(recall.p95, 2)} ms, max ${fmt(recall.max, 1)} ms; ` +
      `same sessions as SQLite for ${same.same}/${same.compared} queries`,
  );
  for (const q of recall.perQuery) console.log(`  ${q.kind.padEnd(14)} ${JSON.stringify(q.query).padEnd(26)} pg ${fmt(q.medianMs, 1).padStart(9)} ms   sqlite ${fmt(sqlite.recall.perQuery.find((x) => x.query === q.query)?.medianMs, 1).padStart(8)} ms`);
  const cli = await benchCliRecall(home, engine);
  console.log(`postgres recall (CLI process): p50 ${fmt(cli.p50, 0)} ms`);
  return { ingest, recall, cli, sameResults: same };
}

/** How many queries returned the same sessions, in the same order, on both engines. */
function sameResults(a, b) {
  const other = new Map(b.perQuery.map((q) => [q.query, q]));
  let same = 0;
  let compared = 0;
  const differing = [];
  for (const q of a.perQuery) {
    const p = other.get(q.query);
    if (!p || !q.ids || !p.ids) continue;
    compared += 1;
    if (JSON.stringify(q.ids) === JSON.stringify(p.ids)) same += 1;
    else differing.push(q.query);
  }
  return { same, compared, differing };
}


main().catch((error) => {
  console.error(`bench: ${error.message}`);
  process.exitCode = 1;
});
