// What the recall evaluation's datasets share: running the built CLI (index, recall --batch, status), the
// environment every config starts from, the configs themselves, and the docs section writer.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, platform, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { REPO } from './convert.mjs';

export const BIN = join(REPO, 'bin', 'moon.js');
export const DIST = join(REPO, 'dist', 'index.js');
export const DOC = join(REPO, 'docs', 'benchmarks.md');

/** Inherited variables that would change what is indexed or asked: the harness sets them itself. */
export const CONTROLLED_ENV = [
  'MOON_HOME',
  'MOON_SOURCES',
  'MOON_CURRENT_SESSION_ID',
  'MOON_RECALL_STRATEGY',
  'MOON_RECALL_LIMIT',
  'MOON_EMBED_PROVIDER',
  'MOON_RESIDENTIAL_TIMEZONE',
  // The engine: SQLite unless a config names a database (--postgres, or --config NAME:MOON_DATABASE_URL=...).
  'MOON_DATABASE_URL',
];
/**
 * MOON_DATABASE_URL of the --postgres configs until their index is made: each home indexed for them gets a fresh
 * database on the temp server, and this placeholder is replaced by its URL wherever the config runs.
 */
export const PG_PLACEHOLDER = 'postgres://temp-server/fresh-database';
/** The configs --postgres adds: the SQLite config they mirror → their name. */
export const PG_TWINS = { bm25: 'bm25-pg', hybrid: 'hybrid-pg' };

// ---------------------------------------------------------------------------------------------------------
// Running the CLI.

/** The environment every child and the in-process pass start from: inherited, minus what the harness controls. */
export function baseEnvironment() {
  const env = { ...process.env };
  for (const key of CONTROLLED_ENV) delete env[key];
  env.MOON_RESIDENTIAL_TIMEZONE = 'UTC';
  return env;
}

/** Index-affecting part of a config's environment: everything but MOON_RECALL_*. Same key → same home. */
export function indexKey(env) {
  const relevant = Object.entries(env)
    .filter(([key]) => key.startsWith('MOON_') && !key.startsWith('MOON_RECALL_') && key !== 'MOON_HOME')
    .map(([key, value]) => [key, key === 'MOON_EMBED_PROVIDER' && value === '' ? 'none' : value]);
  if (!relevant.some(([key]) => key === 'MOON_EMBED_PROVIDER')) relevant.push(['MOON_EMBED_PROVIDER', 'none']);
  return JSON.stringify(relevant.sort(([a], [b]) => a.localeCompare(b)));
}

export function runMoon(args, env, { stdoutFile } = {}) {
  const started = performance.now();
  let fd = null;
  try {
    if (stdoutFile) fd = openSync(stdoutFile, 'w');
    const child = spawnSync(process.execPath, [BIN, ...args], {
      env,
      cwd: REPO,
      stdio: ['ignore', fd ?? 'pipe', 'pipe'],
      maxBuffer: 256 * 1024 * 1024,
      encoding: 'utf8',
    });
    const ms = performance.now() - started;
    if (child.error) throw child.error;
    return { status: child.status, stdout: stdoutFile ? readFileSync(stdoutFile, 'utf8') : child.stdout, stderr: child.stderr, ms };
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

export function indexHome(folder, home, env) {
  const run = runMoon(['index', folder, '--home', home, '--json'], { ...env, MOON_HOME: home });
  let report = null;
  try {
    report = JSON.parse(run.stdout);
  } catch {
    // reported below
  }
  if (run.status !== 0 || !report) {
    throw new Error(`moon index ${folder} --home ${home} exited ${run.status}\n${run.stderr.trim()}\n${run.stdout.slice(0, 2000)}`);
  }
  return { ms: run.ms, report, stderr: run.stderr.trim() };
}

/** One `moon recall --batch` process over a batch file; returns the parsed lines, in order, and the wall time. */
export function recallBatch(batchFile, home, env, expected) {
  const outFile = `${batchFile}.out`;
  const run = runMoon(['recall', '--batch', batchFile, '--home', home], { ...env, MOON_HOME: home }, { stdoutFile: outFile });
  const lines = run.stdout.split('\n').filter((line) => line.trim() !== '');
  if (run.status !== 0 && lines.length !== expected) {
    throw new Error(`moon recall --batch ${batchFile} exited ${run.status}\n${run.stderr.trim().slice(0, 4000)}`);
  }
  if (lines.length !== expected) throw new Error(`moon recall --batch ${batchFile}: ${lines.length} result lines for ${expected} queries`);
  const results = lines.map((line) => JSON.parse(line));
  return { results, ms: run.ms, status: run.status, stderr: run.stderr.trim(), bytes: Buffer.byteLength(run.stdout) };
}

/** Entry ids in a home's index, read from its SQLite file (best effort: the schema is moon's, not ours). */
export function indexedIds(home) {
  try {
    const require = createRequire(join(REPO, 'package.json'));
    const Database = require('better-sqlite3');
    const db = new Database(join(home, 'moon.db'), { readonly: true, fileMustExist: true });
    try {
      return new Set(db.prepare('SELECT id FROM entries').all().map((row) => row.id));
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

/** The index size `moon status --json` reports (SQLite: the db file + WAL; PostgreSQL: the moon schema's relations). */
export function storeBytes(home, env) {
  const run = runMoon(['status', '--json', '--home', home], { ...env, MOON_HOME: home });
  try {
    return Number(JSON.parse(run.stdout).db_bytes);
  } catch {
    return null;
  }
}


// ---------------------------------------------------------------------------------------------------------

/** One turn of the event loop between the synchronous child runs, so a SIGINT / SIGTERM handler gets to run. */
export function yieldToSignals() {
  return new Promise((resolvePromise) => setImmediate(resolvePromise));
}

// ---------------------------------------------------------------------------------------------------------
// Configurations.

/**
 * The configs of a run: bm25 (the baseline) and hybrid, the --config extras, the --postgres twins, narrowed by
 * --only (bm25 always stays). Each gets its full environment (`fullEnv`) and index key (`key`).
 */
export function buildConfigs(options, base, usage) {
  let configs = [
    { name: 'bm25', env: { MOON_RECALL_STRATEGY: 'bm25', MOON_EMBED_PROVIDER: 'none' } },
    { name: 'hybrid', env: { MOON_RECALL_STRATEGY: 'hybrid', MOON_EMBED_PROVIDER: options.embed } },
    ...options.configs,
  ];
  const names = new Set();
  for (const config of configs) {
    if (names.has(config.name)) throw usage(`config "${config.name}" given twice`);
    names.add(config.name);
  }
  if (options.postgres) {
    for (const [twin, name] of Object.entries(PG_TWINS)) {
      const config = configs.find((candidate) => candidate.name === twin);
      if (names.has(name)) throw usage(`config "${name}" given twice (--postgres adds it)`);
      configs.push({ name, env: { ...config.env, MOON_DATABASE_URL: PG_PLACEHOLDER }, pgTwinOf: twin });
      names.add(name);
    }
  }
  if (options.only) {
    for (const name of options.only) if (!names.has(name)) throw usage(`--only: unknown config "${name}"`);
    configs = configs.filter((config) => config.name === 'bm25' || options.only.includes(config.name));
  }
  for (const config of configs) {
    config.fullEnv = { ...base, ...config.env };
    config.key = indexKey(config.fullEnv);
  }
  return configs;
}

export function describeEnv(env) {
  return Object.entries(env)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
}

// ---------------------------------------------------------------------------------------------------------
// Reports.

export function machineInfo() {
  return {
    cpu: cpus()[0]?.model?.trim() ?? 'unknown CPU',
    cores: cpus().length,
    ramGB: totalmem() / 1024 ** 3,
    node: process.version,
    os: `${platform()} ${release()}`,
  };
}

export function machineLine(machine) {
  return `${machine.cpu}, ${machine.cores} cores, ${machine.ramGB.toFixed(1)} GB RAM, Node ${machine.node}, ${machine.os}`;
}

/** A docs section's opening: its heading, when and where it was measured, how long `part` took, the command. */
export function renderSectionHead(heading, context, part) {
  return [
    heading,
    '',
    `Measured ${context.startedAt.toISOString().slice(0, 10)} on ${machineLine(context.machine)}; ${part} took ${(context.totalMs / 1000).toFixed(1)} s.`,
    '',
    'Command (after `npm run build`):',
    '',
    '```sh',
    context.command,
    '```',
    '',
  ];
}

export function shellQuote(arg) {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Replace the section that starts with the line `heading` (up to the next "## " heading) in the markdown file at
 * `path` by `section`. A missing file is created; a missing section goes right after the section headed `after`
 * when there is one, else at the end. Other sections are left untouched.
 */
export function writeDocsSection(path, heading, section, { after = null } = {}) {
  mkdirSync(dirname(path), { recursive: true });
  let doc = existsSync(path)
    ? readFileSync(path, 'utf8')
    : '# Benchmarks\n\nHow fast moon ingests and recalls, measured with the scripts in `bench/`. Each section is rewritten by the script that produces it.\n';
  const span = sectionSpan(doc, heading);
  if (span) {
    doc = `${doc.slice(0, span.start)}${section.trimEnd()}\n${doc.slice(span.end)}`;
  } else {
    const anchor = after ? sectionSpan(doc, after) : null;
    doc = anchor
      ? `${doc.slice(0, anchor.end).trimEnd()}\n\n${section.trimEnd()}\n${doc.slice(anchor.end)}`
      : `${doc.trimEnd()}\n\n${section.trimEnd()}\n`;
  }
  writeFileSync(path, doc);
}

/** Where the section headed `heading` starts and ends in doc (its end: the "\n" before the next "## "), or null. */
function sectionSpan(doc, heading) {
  const start = doc.startsWith(`${heading}\n`) ? 0 : doc.indexOf(`\n${heading}\n`) >= 0 ? doc.indexOf(`\n${heading}\n`) + 1 : doc.endsWith(`\n${heading}`) ? doc.length - heading.length : -1;
  if (start < 0) return null;
  const next = doc.indexOf('\n## ', start + heading.length);
  return { start, end: next >= 0 ? next : doc.length };
}

/**
 * A config's environment for one of its homes. For the --postgres configs, the placeholder URL is replaced by the
 * fresh database made for that home (`databases`: home → URL).
 */
export function envForHome(config, home, databases) {
  const env = { ...config.fullEnv, MOON_HOME: home };
  if (env.MOON_DATABASE_URL === PG_PLACEHOLDER) {
    const url = databases.get(home);
    if (!url) throw new Error(`no database for ${home} (${config.name})`);
    env.MOON_DATABASE_URL = url;
  }
  return env;
}
