#!/usr/bin/env node
// Hostile message shapes through the real CLI: does indexing cost the same per byte whatever one message holds?
//
//   node bench/hostile-shapes.mjs [--sizes 200k,4m,32m] [--shapes token,base64,hex,prose] [--timeout 600] [--keep]
//
// For each size and shape, a temporary corpus holds two Claude Code transcripts: one session with one hostile user
// message (a single `x` token, base64, hex or prose) after a one-line prompt, and a normal small session beside it. The real
// `node bin/moon.js index <corpus> --home <tmp> --json` runs as a child process. Reported: wall time, the run's own
// `duration_ms` (the index run without process start and module loading) net of a run over the small session
// alone, MB/s on that net time, and the ratio of each shape's MB/s to prose of the same size (200 KB: median of
// three runs). Every run must exit 0 with both sessions indexed.
// Then a query benchmark: `moon recall` with a 590 KB query of 100,000 distinct words, net of a one-word recall.
// Nothing is written to the repository: the corpora are generated under the system temp folder and removed.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(repo, 'bin', 'moon.js');

const SHAPES = ['token', 'base64', 'hex', 'prose'];
const SIZES = { '200k': 200_000, '4m': 4_000_000, '32m': 32_000_000 };

function parseArgs(argv) {
  const options = { sizes: Object.keys(SIZES), shapes: SHAPES, timeoutSec: 600, keep: false };
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    const next = () => argv[++index] ?? '';
    if (arg === '--sizes') options.sizes = next().split(',').map((s) => s.trim().toLowerCase());
    else if (arg === '--shapes') options.shapes = next().split(',').map((s) => s.trim());
    else if (arg === '--timeout') options.timeoutSec = Number(next());
    else if (arg === '--keep') options.keep = true;
    else throw new Error(`unknown argument ${arg}`);
  }
  for (const size of options.sizes) if (!(size in SIZES)) throw new Error(`unknown size ${size} (200k, 4m, 32m)`);
  for (const shape of options.shapes) if (!SHAPES.includes(shape)) throw new Error(`unknown shape ${shape}`);
  return options;
}

/** A deterministic pseudo-random source, so prose is the same text on every run. */
function makeRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** A vocabulary of 5,000 pronounceable words drawn with a Zipf-like skew: prose with a realistic spread of terms. */
function makeProse(chars) {
  const random = makeRandom(42);
  const syllables = ['ka', 'lo', 'mi', 'ten', 'sor', 'pa', 'ri', 'dex', 'ul', 'ver', 'an', 'co', 'ste', 'bri', 'na', 'qu', 'fi', 'mo'];
  const vocabulary = Array.from({ length: 5000 }, () => {
    const count = 1 + Math.floor(random() * 3);
    return Array.from({ length: count }, () => syllables[Math.floor(random() * syllables.length)]).join('');
  });
  const parts = [];
  let length = 0;
  let sentence = 0;
  while (length < chars) {
    const word = vocabulary[Math.floor(vocabulary.length * random() ** 3)];
    sentence += 1;
    const end = sentence > 8 + random() * 12 ? (random() < 0.15 ? '.\n\n' : '. ') : ' ';
    if (end !== ' ') sentence = 0;
    parts.push(word, end);
    length += word.length + end.length;
  }
  return parts.join('').slice(0, chars);
}

function makeShape(shape, chars) {
  if (shape === 'token') return 'x'.repeat(chars);
  if (shape === 'hex') return randomBytes(Math.ceil(chars / 2)).toString('hex').slice(0, chars);
  if (shape === 'base64') return randomBytes(Math.ceil((chars * 3) / 4) + 3).toString('base64').slice(0, chars);
  return makeProse(chars);
}

/** One Claude Code record per turn, the shape test/helpers/transcripts.ts writes. */
function claudeRecord(sessionId, index, role, text) {
  const uuid = `${sessionId}-u${index}`;
  const base = {
    parentUuid: index > 1 ? `${sessionId}-u${index - 1}` : null,
    isSidechain: false,
    userType: 'external',
    cwd: '/home/dev/bench',
    sessionId,
    version: '2.1.0',
    gitBranch: 'main',
    timestamp: new Date(Date.parse('2026-03-01T10:00:00Z') + index * 60_000).toISOString(),
    uuid,
  };
  if (role === 'user') return JSON.stringify({ ...base, type: 'user', message: { role: 'user', content: text } });
  return JSON.stringify({
    ...base,
    type: 'assistant',
    requestId: `req_${uuid}`,
    message: { id: `msg_${uuid}`, type: 'message', role: 'assistant', model: 'bench', content: [{ type: 'text', text }] },
  });
}

function writeSmallSession(corpus) {
  const lines = [
    claudeRecord('small', 1, 'user', 'Why does the invoice total round the tax twice in src/billing/totals.ts?'),
    claudeRecord('small', 2, 'assistant', 'roundTax is applied per line and again on the sum; I removed the second call.'),
    claudeRecord('small', 3, 'user', 'Run the billing tests again please and tell me if they pass.'),
    claudeRecord('small', 4, 'assistant', 'All 42 billing tests pass now after the rounding fix.'),
  ];
  writeFileSync(join(corpus, 'small.jsonl'), `${lines.join('\n')}\n`);
}

/**
 * A short prompt first: format detection reads the first 4 MiB of a file, so a transcript whose very first line is
 * 32 MB is not recognised at all (reported separately; detection is not what this measures).
 */
function writeHostileSession(corpus, text) {
  const lines = [
    claudeRecord('hostile', 1, 'user', 'Here is the file I mentioned, pasted below.'),
    claudeRecord('hostile', 2, 'user', text),
    claudeRecord('hostile', 3, 'assistant', 'That is a very large paste.'),
  ];
  writeFileSync(join(corpus, 'hostile.jsonl'), `${lines.join('\n')}\n`);
}

/** GNU time reports the child's CPU seconds: on a shared machine they vary far less than wall time does. */
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
let timeFiles = 0;

function runMoon(args, timeoutSec) {
  return new Promise((resolvePromise) => {
    const started = performance.now();
    const timeFile = GNU_TIME ? join(tmpdir(), `moon-hostile-time-${process.pid}-${(timeFiles += 1)}.txt`) : null;
    const command = GNU_TIME ? [GNU_TIME, '-f', '%U %S', '-o', timeFile, process.execPath, bin, ...args] : [process.execPath, bin, ...args];
    const child = spawn(command[0], command.slice(1), {
      env: { PATH: process.env.PATH, MOON_RESIDENTIAL_TIMEZONE: 'UTC' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutSec * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr, seconds: (performance.now() - started) / 1000, cpu: readCpuSeconds(timeFile) });
    });
  });
}

function readCpuSeconds(timeFile) {
  if (!timeFile || !existsSync(timeFile)) return null;
  const fields = readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  rmSync(timeFile, { force: true });
  return fields.length === 2 && fields.every(Number.isFinite) ? fields[0] + fields[1] : null;
}

async function indexCorpus(root, name, write, timeoutSec) {
  const corpus = join(root, name, 'corpus');
  const home = join(root, name, 'home');
  mkdirSync(corpus, { recursive: true });
  write(corpus);
  const run = await runMoon(['index', corpus, '--home', home, '--json'], timeoutSec);
  rmSync(corpus, { recursive: true, force: true });
  return { ...run, home };
}

function checkIndexRun(run, files) {
  if (run.signal) return `killed (${run.signal}) after ${run.seconds.toFixed(0)} s`;
  if (run.code !== 0) return `exit ${run.code}: ${run.stderr.trim().split('\n').slice(-1)[0] ?? ''}`;
  const report = JSON.parse(run.stdout);
  if (report.indexed !== files) return `indexed ${report.indexed} of ${files} files`;
  return null;
}

/** The index run's own time, in seconds, from its JSON report. */
function readRunSeconds(run) {
  return JSON.parse(run.stdout).duration_ms / 1000;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const root = mkdtempSync(join(tmpdir(), 'moon-hostile-'));
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}`;
  console.error(`machine: ${machine}`);
  try {
    // Fixed cost: process start, schema, the small session and its projection. Median of three.
    const baselines = [];
    const baselineCpu = [];
    for (let run = 0; run < 3; run += 1) {
      const result = await indexCorpus(root, `baseline-${run}`, writeSmallSession, options.timeoutSec);
      const problem = checkIndexRun(result, 1);
      if (problem) throw new Error(`baseline run failed: ${problem}`);
      baselines.push(readRunSeconds(result));
      baselineCpu.push(result.cpu);
    }
    const baseline = median(baselines);
    const cpuBaseline = baselineCpu.every((cpu) => cpu !== null) ? median(baselineCpu) : null;
    console.error(`baseline (small session alone): ${baseline.toFixed(3)} s`);

    const rows = [];
    for (const size of options.sizes) {
      for (const shape of options.shapes) {
        const chars = SIZES[size];
        const text = makeShape(shape, chars);
        // Small messages are near the noise of process start: the median of three runs.
        const reps = chars < 1_000_000 ? 3 : 1;
        const runs = [];
        for (let rep = 0; rep < reps; rep += 1) {
          runs.push(await indexCorpus(root, `${shape}-${size}-${rep}`, (corpus) => {
            writeSmallSession(corpus);
            writeHostileSession(corpus, text);
          }, options.timeoutSec));
        }
        const problem = runs.map((run) => checkIndexRun(run, 2)).find((found) => found !== null) ?? null;
        const result = runs.sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)];
        const net = problem ? 0 : Math.max(0.001, median(runs.map(readRunSeconds)) - baseline);
        const cpu = problem || cpuBaseline === null ? null : Math.max(0.001, median(runs.map((run) => run.cpu)) - cpuBaseline);
        const row = { size, shape, wall: result.seconds, net, cpu, mbps: chars / 1e6 / net, cpuMbps: cpu === null ? null : chars / 1e6 / cpu, problem };
        rows.push(row);
        console.error(`${size} ${shape}: ${problem ?? `${result.seconds.toFixed(2)} s wall, ${row.mbps.toFixed(1)} MB/s net, ${row.cpuMbps?.toFixed(1) ?? '—'} MB/s CPU`}`);
      }
    }

    const query = await runQueryBenchmark(root, options.timeoutSec);
    printReport({ machine, baseline, cpuBaseline, rows, query });
  } finally {
    if (!options.keep) rmSync(root, { recursive: true, force: true });
    else console.error(`kept ${root}`);
  }
}

/** 100,000 distinct lower-case words of 4–6 letters, about 590 KB with the spaces. */
function makeDistinctWords(count) {
  const random = makeRandom(7);
  const words = new Set();
  while (words.size < count) {
    const length = 4 + Math.floor(random() * 3);
    let word = '';
    for (let index = 0; index < length; index += 1) word += String.fromCharCode(97 + Math.floor(random() * 26));
    words.add(word);
  }
  return [...words];
}

async function runQueryBenchmark(root, timeoutSec) {
  const indexed = await indexCorpus(root, 'query', writeSmallSession, timeoutSec);
  const problem = checkIndexRun(indexed, 1);
  if (problem) throw new Error(`query corpus failed: ${problem}`);
  const words = makeDistinctWords(100_000);
  const bytes = words.join(' ').length;
  const recall = (queryWords) => runMoon(['recall', ...queryWords, '--home', indexed.home, '--json'], timeoutSec);
  const short = [];
  const long = [];
  let notes = [];
  for (let run = 0; run < 3; run += 1) {
    short.push((await recall(['invoice'])).seconds);
    const result = await recall(words);
    if (result.code !== 0) throw new Error(`huge query failed: ${result.stderr.trim()}`);
    notes = JSON.parse(result.stdout).notes ?? [];
    long.push(result.seconds);
  }
  const library = await timeLibraryRecall(indexed.home, words.join(' '));
  return { bytes, words: words.length, shortSeconds: median(short), longSeconds: median(long), notes, library };
}

/** The same query in-process through the library (`createMoon(config).recall`): no process start, no argv. */
async function timeLibraryRecall(home, query) {
  const { loadConfig, createMoon } = await import(pathToFileURL(join(repo, 'dist', 'index.js')).href);
  const moon = createMoon(loadConfig({ env: { PATH: process.env.PATH, MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'UTC' } }));
  try {
    await moon.history.recall({ query: 'warm up', limit: 10 });
    const time = async (text) => {
      const runs = [];
      for (let run = 0; run < 5; run += 1) {
        const started = performance.now();
        await moon.history.recall({ query: text, limit: 10 });
        runs.push(performance.now() - started);
      }
      return median(runs);
    };
    return { shortMs: await time('invoice'), longMs: await time(query) };
  } finally {
    moon.close?.();
  }
}

function printReport({ machine, baseline, cpuBaseline, rows, query }) {
  const date = new Date().toISOString().slice(0, 10);
  const prose = new Map(rows.filter((row) => row.shape === 'prose' && !row.problem).map((row) => [row.size, row]));
  const ratio = (row, key) => {
    const base = prose.get(row.size)?.[key];
    return base && row[key] ? (row[key] / base).toFixed(2) : '—';
  };
  const lines = [
    `Measured ${date} on ${machine}, load average ${loadavg().map((load) => load.toFixed(1)).join(' ')} at the end. ` +
      `Net: the run's \`duration_ms\` (wall) and CPU seconds (GNU time, user + system) less those of a run over the ` +
      `small session alone (${baseline.toFixed(2)} s wall, ${cpuBaseline === null ? '—' : cpuBaseline.toFixed(2)} s CPU).`,
    '',
    '| message | shape | wall (s) | net wall (s) | MB/s (net wall) | × prose | net CPU (s) | MB/s (net CPU) | × prose |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    if (row.problem) {
      lines.push(`| ${row.size.toUpperCase()}B | ${row.shape} | ${row.wall.toFixed(2)} | failed: ${row.problem} | | | | | |`);
      continue;
    }
    const cpu = row.cpu === null ? '— | — | —' : `${row.cpu.toFixed(2)} | ${row.cpuMbps.toFixed(1)} | ${ratio(row, 'cpuMbps')}`;
    lines.push(
      `| ${row.size.toUpperCase()}B | ${row.shape} | ${row.wall.toFixed(2)} | ${row.net.toFixed(2)} | ${row.mbps.toFixed(1)} | ${ratio(row, 'mbps')} | ${cpu} |`,
    );
  }
  lines.push(
    '',
    `Query: ${query.words.toLocaleString('en')} distinct words (${(query.bytes / 1000).toFixed(0)} KB) through \`moon recall --json\`: ` +
      `${query.longSeconds.toFixed(2)} s wall against ${query.shortSeconds.toFixed(2)} s for a one-word query ` +
      `(${Math.max(0, query.longSeconds - query.shortSeconds).toFixed(2)} s more); in-process through the library ` +
      `${query.library.longMs.toFixed(0)} ms against ${query.library.shortMs.toFixed(0)} ms (median of five). ` +
      `Notes returned: ${query.notes.map((note) => `"${note}"`).join('; ') || 'none'}.`,
  );
  console.log(lines.join('\n'));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
