#!/usr/bin/env node
// One large Claude Code transcript indexed by two builds side by side (interleaved: A, B, A, B …), through each
// build's CLI: wall time and peak RSS (GNU time's %M). What a daemon meets when an agent writes a long session, and
// what `moon stop` has to cut into.
//
//   node bench/large-transcript.mjs --before DIR [--after DIR] [--mb 40] [--reps 2]
//
// DIR is a checkout with `npm run build` done (e.g. `git worktree add /tmp/before <commit>`); --after defaults to
// this checkout.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, closeSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : fallback;
};
if (!flag('before')) {
  console.error('usage: node bench/large-transcript.mjs --before DIR [--after DIR] [--mb 40] [--reps 2]');
  process.exit(2);
}
const builds = [
  { name: 'before', dir: resolve(flag('before')) },
  { name: 'after', dir: resolve(flag('after', join(import.meta.dirname, '..'))) },
];
const targetBytes = Number(flag('mb', '40')) * 1024 * 1024;
const reps = Number(flag('reps', '2'));

const WORDS = 'deploy wrangler migration schema cache token retry release config build error worker binding route queue'.split(' ');
const SESSION = '3c9e1d2a-5b4f-4e6d-8a7b-9c0d1e2f3a4b';

/** Turns of prose, one JSON line each, until the file holds the target size. */
function writeTranscript(path) {
  const fd = openSync(path, 'w');
  let bytes = 0;
  let parent = null;
  for (let n = 0; bytes < targetBytes; n += 1) {
    const uuid = `${SESSION.slice(0, 24)}${String(n).padStart(12, '0')}`;
    const text = `turn ${n} ` + Array.from({ length: 120 }, (_, k) => `${WORDS[(n * 7 + k * 13) % WORDS.length]}${(n + k) % 97}`).join(' ');
    const base = { parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/home/dev/big', sessionId: SESSION, version: '2.1.0', gitBranch: 'main', timestamp: new Date(Date.UTC(2026, 1, 1) + n * 1000).toISOString(), uuid };
    const record =
      n % 2 === 0
        ? { ...base, type: 'user', message: { role: 'user', content: text } }
        : { ...base, type: 'assistant', requestId: `req_${uuid}`, message: { id: `msg_${uuid}`, type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text }] } };
    const line = `${JSON.stringify(record)}\n`;
    writeSync(fd, line);
    bytes += Buffer.byteLength(line);
    parent = uuid;
  }
  closeSync(fd);
}

const work = mkdtempSync(join(tmpdir(), 'moon-large-'));
const sources = join(work, 'sources', '-home-dev-big');
mkdirSync(sources, { recursive: true });
const transcript = join(sources, `${SESSION}.jsonl`);
writeTranscript(transcript);
const size = statSync(transcript).size;

function indexOnce(build) {
  const home = join(work, `home-${build.name}`);
  rmSync(home, { recursive: true, force: true });
  const started = process.hrtime.bigint();
  const run = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, join(build.dir, 'bin', 'moon.js'), 'index', join(work, 'sources'), '--json'], {
    env: { ...process.env, MOON_HOME: home },
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== 0) throw new Error(`${build.name}: moon index exited ${run.status}: ${run.stderr}`);
  return { ms, rssMb: Number(run.stderr.trim().split('\n').at(-1)) / 1024 };
}

const results = Object.fromEntries(builds.map((build) => [build.name, []]));
try {
  for (let rep = 0; rep < reps; rep += 1) {
    for (const build of rep % 2 === 0 ? builds : [...builds].reverse()) results[build.name].push(indexOnce(build));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`one Claude Code transcript of ${(size / 1024 / 1024).toFixed(1)} MB, ${reps} runs per build, interleaved`);
console.log('| build | index (median) | peak RSS (median) |');
console.log('| --- | --- | --- |');
for (const build of builds) {
  const runs = results[build.name];
  console.log(`| ${build.name} | ${(median(runs.map((run) => run.ms)) / 1000).toFixed(1)} s | ${Math.round(median(runs.map((run) => run.rssMb)))} MB |`);
}
const ratio = median(results.after.map((run) => run.ms)) / median(results.before.map((run) => run.ms));
console.log(`after / before: ${ratio.toFixed(2)}× the time`);
