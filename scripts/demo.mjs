#!/usr/bin/env node
// `npm run demo`: index the bundled example transcripts into a fresh MOON_HOME with the real CLI, then show
// status, a few recalls, the session list and one recall match opened in context. Exits non-zero as soon as a
// step fails. The home is kept (its path and three commands to try next are printed at the end), so the
// newcomer can go on exploring it; --clean removes it instead.
//
//   node scripts/demo.mjs [--clean]
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(repo, 'bin', 'moon.js');
const examples = join(repo, 'examples');
const clean = process.argv.includes('--clean');
const unknown = process.argv.slice(2).filter((arg) => arg !== '--clean');
if (unknown.length > 0) {
  console.error(`demo: unknown argument(s): ${unknown.join(' ')} (usage: node scripts/demo.mjs [--clean])`);
  process.exit(2);
}

/** Times in the examples are written by someone in Sydney: show them in that zone, whatever this machine uses. */
const TIMEZONE = 'Australia/Sydney';
/** The fake Stripe key inside a tool result of the Claude Code example; it must never reach the index. */
const PLANTED_SECRET = 'sk_live_FAKE0000EXAMPLE0000NOTREAL0000';

const tty = process.stdout.isTTY;
const bold = (text) => (tty ? `\x1b[1m${text}\x1b[0m` : text);
const dim = (text) => (tty ? `\x1b[2m${text}\x1b[0m` : text);

const home = mkdtempSync(join(tmpdir(), 'moon-demo-'));
// A clean environment for the child: no user config, sources or current-session exclusion leaks into the demo.
const env = { ...process.env, MOON_HOME: home };
for (const name of ['MOON_SOURCES', 'MOON_CURRENT_SESSION_ID', 'MOON_REDACT', 'MOON_RECALL_LIMIT']) delete env[name];

class StepFailed extends Error {}

function section(title) {
  console.log(`\n${bold(`== ${title}`)}`);
}

/** Run the real CLI; stderr (progress, warnings) passes straight through, stdout is returned. */
function moon(args, { print = true } = {}) {
  const argv = ['--home', home, '--timezone', TIMEZONE, ...args];
  console.log(dim(`$ moon ${args.map(quote).join(' ')}`));
  const child = spawnSync(process.execPath, [bin, ...argv], {
    cwd: repo,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (child.error) throw new StepFailed(`could not start the CLI: ${child.error.message}`);
  if (print && child.stdout) process.stdout.write(child.stdout.endsWith('\n') ? child.stdout : `${child.stdout}\n`);
  if (child.status !== 0) {
    throw new StepFailed(`\`moon ${args.join(' ')}\` exited with ${child.status ?? child.signal}`);
  }
  return child.stdout;
}

function quote(arg) {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function ensureBuilt() {
  if (existsSync(join(repo, 'dist', 'interfaces', 'cli', 'main.js'))) return;
  console.log(dim('dist/ is missing: running `npm run build` first'));
  const build = spawnSync('npm', ['run', 'build'], { cwd: repo, stdio: 'inherit', shell: process.platform === 'win32' });
  if (build.status !== 0) throw new StepFailed('npm run build failed');
}

function listFiles(dir, suffix) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((dirent) => dirent.isFile() && dirent.name.endsWith(suffix))
    .map((dirent) => join(dirent.parentPath ?? dirent.path, dirent.name))
    .sort();
}

/** The planted secret may sit verbatim in the raw archive copy (by design), never in projections or the index. */
function checkRedaction() {
  const places = [
    ...listFiles(join(home, 'archives', 'mlib'), '.md'),
    ...['moon.db', 'moon.db-wal'].map((name) => join(home, name)).filter((path) => existsSync(path)),
  ];
  const leaks = places.filter((path) => readFileSync(path).includes(PLANTED_SECRET));
  if (leaks.length > 0) {
    throw new StepFailed(`the planted secret was not redacted in: ${leaks.map((path) => relative(home, path)).join(', ')}`);
  }
  console.log(`the fake STRIPE_SECRET_KEY from the .env tool result is absent from ${places.length} projection/index files ✓`);
}

/** Open the best recall match in context: the entries around the matched message, as `moon show --around` prints them. */
function showInContext() {
  const json = moon(['recall', 'wrangler deploy', '--limit', '1', '--json'], { print: false });
  let match = null;
  try {
    match = JSON.parse(json).matches?.[0] ?? null;
  } catch (error) {
    throw new StepFailed(`recall --json did not print JSON (${error.message})`);
  }
  const sessionId = match?.metadata?.session_id;
  const messageId = match?.metadata?.message_ids?.[0];
  if (!sessionId || !messageId) throw new StepFailed('recall "wrangler deploy" found nothing to open');
  if (!match.archive_path || !existsSync(match.archive_path)) {
    throw new StepFailed(`recall gave archive_path ${JSON.stringify(match.archive_path)}, which does not exist`);
  }
  moon(['show', sessionId.slice(0, 8), '--around', messageId, '--context', '1']);
  return { sessionId, messageId };
}

/**
 * What `moon watch` does unattended, run once by hand: each session's block in the daily memory file of its last
 * activity, then (the demo's clock set just after midnight in Sydney on the 22nd) the 21st folded into MEMORY.md.
 */
function distill() {
  const run = spawnSync(process.execPath, [bin, '--home', home, '--timezone', TIMEZONE, 'watch', '--once', '--json'], {
    cwd: repo,
    env: { ...env, MOON_SOURCES: examples, MOON_FAKE_NOW: '2026-02-21T13:05:00Z' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  console.log(dim('$ moon watch --once   # with the clock at 00:05 on 22 Feb in Sydney'));
  if (run.status !== 0) throw new StepFailed(`moon watch --once exited with ${run.status}: ${run.stderr}`);
  const cycle = JSON.parse(run.stdout);
  const days = listFiles(join(home, 'memory'), '.md').map((path) => relative(home, path));
  console.log(`L1: ${cycle.l1.written} session blocks written into ${days.join(', ')}`);
  if (cycle.syns?.outcome !== 'written') throw new StepFailed(`L2 did not write MEMORY.md: ${JSON.stringify(cycle.syns)}`);
  console.log(`L2: ${cycle.syns.day} folded into MEMORY.md:`);
  const memory = readFileSync(join(home, 'MEMORY.md'), 'utf8').split('\n');
  for (const line of memory.slice(0, 12)) console.log(`  ${line.length > 150 ? `${line.slice(0, 149)}…` : line}`);
}

/**
 * A Puffin history (`<project>/.puffin/history.json`, kept in examples/puffin/ without the `.puffin` folder so that
 * indexing examples/ leaves it out): copied into a project folder of the demo home, indexed like any transcript —
 * one session per conversation — with its `@/` markers listed and filtered on, then the RLM history index of seed
 * 004 built over it and queried.
 */
function puffin() {
  const project = join(home, 'projects', 'shop-planning');
  const history = join(project, '.puffin', 'history.json');
  mkdirSync(dirname(history), { recursive: true });
  copyFileSync(join(examples, 'puffin', 'history.json'), history);
  moon(['index', project]);
  moon(['markers', '--all-projects', '--type', 'decision,breaking,bug']);
  moon(['recall', 'order queue', '--marker', 'decision', '--all-projects']);
  const index = join(project, '.puffin', 'history.index.json');
  moon(['rlm', 'index', '--history', history, '--out', index]);
  moon(['rlm', 'query', 'coupon', '--index', index]);
}

/** The kept home and what to type next; MOON_HOME set so the commands read this demo's index. */
function printNextSteps(opened) {
  // From the clone, `./bin/moon.js` runs this package's own build at once (`npx moon` may first copy the clone into
  // npx's cache and rebuild it there, silently, for half a minute).
  const cli = resolve(process.cwd()) === repo ? './bin/moon.js' : `node ${bin}`;
  const prefix = `MOON_HOME=${quote(home)} MOON_RESIDENTIAL_TIMEZONE=${TIMEZONE}`;
  console.log(`\n${bold('== Try next')} (the demo home is kept: ${home}; \`npm run demo -- --clean\` removes it)`);
  console.log(`  ${prefix} ${cli} sessions`);
  console.log(`  ${prefix} ${cli} recall "postgres 16 migration"`);
  console.log(`  ${prefix} ${cli} show ${opened ? opened.sessionId.slice(0, 8) : '<session>'}`);
  console.log(`\n${bold('== The web view')}: timeline, sessions, search, memory review, fixes, usage`);
  console.log(`  ${prefix} ${cli} serve`);
  console.log(`  then open ${WEB_URL}`);
}

/** Where \`moon serve\` answers by default (loopback, port 7077): the URL the demo ends with. */
const WEB_URL = 'http://127.0.0.1:7077/';

let exitCode = 0;
let opened = null;
try {
  ensureBuilt();
  if (!existsSync(examples)) throw new StepFailed(`no examples folder at ${examples}`);
  console.log(`moon demo — MOON_HOME: ${home}`);
  console.log(`example transcripts: ${listFiles(examples, '.jsonl').map((path) => relative(repo, path)).join(', ')}`);

  section('1. Index the example transcripts (Claude Code, Codex, OpenClaw)');
  moon(['index', relative(repo, examples)]);

  section('2. Status');
  moon(['status']);

  section('3. Recall');
  const recalls = [
    ['What happened with the Cloudflare deploy?', ['recall', 'wrangler deploy']],
    ['Which decision did we take about the Stripe key?', ['recall', 'should the stripe key be a var or a secret', '--limit', '2']],
    ['The flaky test — what was the fix?', ['recall', 'flaky test', '--per-session', '2']],
    ['When did we set up the backup cron job, and how?', ['recall', 'backup cron', '--source', 'openclaw']],
    ['Every Bash command that touched wrangler (tool calls only)', ['recall', 'wrangler', '--role', 'tool', '--tool', 'Bash', '--group', 'message', '--limit', '5']],
  ];
  for (const [question, args] of recalls) {
    console.log(`\n${bold(`# ${question}`)}`);
    moon(args);
  }

  section('4. Sessions, newest first');
  moon(['sessions']);

  section('5. A recall match opened in context');
  opened = showInContext();
  console.log(`the whole session as markdown: ${relative(home, join(home, 'archives', 'mlib'))}/${opened.sessionId}.md (moon show ${opened.sessionId.slice(0, 8)})`);

  section('6. Redaction check');
  checkRedaction();

  section('7. Memory: one watcher cycle writes the daily files (L1) and MEMORY.md (L2)');
  distill();

  section('8. A Puffin history: its conversations, @/ markers, and the RLM history index');
  puffin();
} catch (error) {
  exitCode = 1;
  const message = error instanceof StepFailed ? error.message : (error?.stack ?? String(error));
  console.error(`\ndemo failed: ${message}`);
} finally {
  if (clean) {
    rmSync(home, { recursive: true, force: true });
  } else {
    printNextSteps(opened);
  }
}
process.exitCode = exitCode;
