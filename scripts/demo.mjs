#!/usr/bin/env node
// `npm run demo`: index the bundled example transcripts into a throw-away MOON_HOME with the real CLI, then show
// status, a few recalls and the head of one projection. Exits non-zero as soon as a step fails.
//
//   node scripts/demo.mjs [--keep]      --keep leaves the temporary MOON_HOME in place and prints its path
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(repo, 'bin', 'moon.js');
const examples = join(repo, 'examples');
const keep = process.argv.includes('--keep');
const unknown = process.argv.slice(2).filter((arg) => arg !== '--keep');
if (unknown.length > 0) {
  console.error(`demo: unknown argument(s): ${unknown.join(' ')} (usage: node scripts/demo.mjs [--keep])`);
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

function showProjection() {
  const json = moon(['recall', 'wrangler deploy', '--limit', '1', '--json'], { print: false });
  let path = null;
  try {
    path = JSON.parse(json).matches?.[0]?.archive_path ?? null;
  } catch (error) {
    throw new StepFailed(`recall --json did not print JSON (${error.message})`);
  }
  if (!path || !existsSync(path)) {
    // Fall back to any projection, so a missing archive_path is reported but the demo still shows one.
    console.log(dim(`(recall --json gave archive_path ${JSON.stringify(path)}; showing the first projection instead)`));
    path = listFiles(join(home, 'archives', 'mlib'), '.md')[0] ?? null;
  }
  if (!path) throw new StepFailed(`no projection was written under ${join(home, 'archives', 'mlib')}`);
  const lines = readFileSync(path, 'utf8').split('\n');
  const head = 40;
  console.log(dim(`$ head -n ${head} ${relative(home, path)}   (in the temporary MOON_HOME)`));
  console.log(lines.slice(0, head).join('\n'));
  if (lines.length > head) console.log(dim(`… ${lines.length - head} more lines`));
}

let exitCode = 0;
try {
  ensureBuilt();
  if (!existsSync(examples)) throw new StepFailed(`no examples folder at ${examples}`);
  console.log(`moon demo — temporary MOON_HOME: ${home}`);
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

  section('4. Redaction check');
  checkRedaction();

  section('5. A projection (markdown written under archives/mlib)');
  showProjection();
} catch (error) {
  exitCode = 1;
  const message = error instanceof StepFailed ? error.message : (error?.stack ?? String(error));
  console.error(`\ndemo failed: ${message}`);
} finally {
  if (keep) {
    console.log(`\nkept the demo MOON_HOME: ${home}\n  try: node bin/moon.js --home ${home} recall "postgres 16 migration"`);
  } else {
    rmSync(home, { recursive: true, force: true });
  }
}
process.exitCode = exitCode;
