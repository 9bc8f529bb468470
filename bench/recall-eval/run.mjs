#!/usr/bin/env node
// Recall quality on LoCoMo and LongMemEval (dev splits), measured through the real product path. LoCoMo lives here,
// LongMemEval in longmemeval*.mjs, what both use in harness.mjs.
// Run `node bench/recall-eval/run.mjs --help` for the flags; bench/recall-eval/README.md for the method.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { startPostgres } from '../../scripts/lib/postgres-server.mjs';
import { REPO, diaIdOf, loadLocomo, resolveDataDir, sessionNumberOf, writeTranscripts } from './convert.mjs';
import {
  BIN,
  DIST,
  DOC,
  PG_PLACEHOLDER,
  baseEnvironment,
  buildConfigs,
  describeEnv,
  envForHome,
  indexHome,
  indexedIds,
  machineInfo,
  machineLine,
  recallBatch,
  renderSectionHead,
  shellQuote,
  storeBytes,
  writeDocsSection,
  yieldToSignals,
} from './harness.mjs';
import { resolveLongMemEvalFile } from './longmemeval.mjs';
import { LME_SECTION, runLongMemEval } from './longmemeval-run.mjs';
import { resolveCodingData, runCoding } from './coding-run.mjs';
import { CATEGORIES, METRIC_KEYS, aggregate, fmt, fmtDelta, mean, percentile, scoreQuestion } from './metrics.mjs';

const SECTION = '## Recall quality on LoCoMo (dev split)';
const TARGETS = { turnR5: 0.7, sessR5: 0.93, p95Ms: 150 };
const DAY_MS = 86_400_000;
const HELP = `Recall quality on LoCoMo and LongMemEval (dev splits), through the real CLI.

usage: node bench/recall-eval/run.mjs [flags]      (build first: npm run build)

  --dataset locomo|longmemeval|coding|all
                        which data to measure [default: all]
  --coding-questions FILE
                        coding: moon's own question set [default: bench/recall-eval/coding/questions.json]
  --fixtures DIR        coding: the transcripts it is asked over [default: <repo>/../shared/fixtures]
  --data DIR            LoCoMo data: the folder holding locomo-dev/ (or locomo-dev/ itself)
                        [default: <repo>/../shared/eval]
  --lme-data PATH       LongMemEval data: longmemeval-s-dev115.json.gz, or a folder holding it or holding
                        longmemeval-dev/ [default: <repo>/../shared/eval/longmemeval-dev/longmemeval-s-dev115.json.gz]
  --protocol pooled|per-question|both
                        LongMemEval: one index holding every question's haystack (pooled), a fresh index per
                        question holding only its own haystack (per-question), or both [default: both]
  --questions N         LongMemEval: only the first N questions (quick runs) [default: all 115]
  --embed none|local    embedding provider of the "hybrid" config [default: none]
  --config NAME:ENV=VAL,ENV=VAL
                        an extra configuration (repeatable), e.g. --config bm25-local:MOON_RECALL_STRATEGY=bm25,MOON_EMBED_PROVIDER=local
                        Configs whose non-recall (MOON_RECALL_*) variables match share one index.
  --only NAME,NAME      run only these configs (bm25 is always run: it is the baseline)
  --samples ID,ID       LoCoMo: only these conversations (e.g. conv-26) [default: all in the split]
  --limit N             results per query (messages or sessions), both datasets [default: 10]
  --isolation auto|project|home
                        LoCoMo only:
                        project: one home, every query filtered with "project": <sample_id>;
                        home: one home per conversation; auto: project if a pre-check shows the filter isolates
                        conversations, else home [default: auto]
  --warmup N            LoCoMo: untimed in-process queries per config before timing [default: 2000, about one full pass]
  --no-latency          LoCoMo: skip the in-process latency pass (LongMemEval reports CLI batch times only)
  --out DIR             where the report goes [default: bench/out]
  --tmp DIR             work folder for transcripts, homes and batch files [default: a fresh temp dir]
  --keep                keep the work folder (default: deleted at the end)
  --postgres            also run bm25-pg and hybrid-pg: bm25 / hybrid on the PostgreSQL engine (a temp server,
                        scripts/lib/postgres-server.mjs, a fresh database per index), side by side with SQLite;
                        the report adds the pg − sqlite difference per metric and the questions that differ
  --pg-set NAME=VALUE   a PostgreSQL server setting for --postgres (repeatable), e.g. --pg-set jit=off
  --write-docs          replace the "${SECTION}", "${LME_SECTION}" and/or coding section of
                        docs/benchmarks.md (those of the datasets measured)
  --docs-file FILE      write those sections to FILE instead of docs/benchmarks.md (implies --write-docs)
  -h, --help            this text

Configs always run: bm25 (MOON_RECALL_STRATEGY=bm25, MOON_EMBED_PROVIDER=none, the baseline) and hybrid
(MOON_RECALL_STRATEGY=hybrid, MOON_EMBED_PROVIDER=<--embed>). LongMemEval also gets fts5-naive, a plain SQLite FTS5
baseline the harness computes itself. Writes bench/out/recall-eval-<date>.md and .json.
LoCoMo targets: turn-level Recall@5 >= ${TARGETS.turnR5}, session-level Recall@5 >= ${TARGETS.sessR5}, p95 < ${TARGETS.p95Ms} ms.`;

// ---------------------------------------------------------------------------------------------------------
// Arguments.

function parseArgs(argv) {
  const options = {
    dataset: 'all',
    data: null,
    lmeData: null,
    codingQuestions: null,
    fixtures: null,
    protocol: 'both',
    questions: null,
    embed: 'none',
    configs: [],
    only: null,
    samples: null,
    limit: 10,
    isolation: 'auto',
    warmup: 2000,
    latency: true,
    out: join(REPO, 'bench', 'out'),
    tmp: null,
    keep: false,
    writeDocs: false,
    docsFile: DOC,
    postgres: false,
    pgSettings: {},
    help: false,
  };
  const value = (flag, index) => {
    const next = argv[index + 1];
    if (next === undefined || next.startsWith('--')) throw usage(`${flag} needs a value`);
    return next;
  };
  const positive = (flag, text) => {
    if (!/^\d+$/.test(text) || Number(text) <= 0) throw usage(`${flag}: expected a positive integer, got "${text}"`);
    return Number(text);
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    switch (flag) {
      case '-h':
      case '--help':
        options.help = true;
        break;
      case '--dataset':
        options.dataset = value(flag, i++);
        if (!['locomo', 'longmemeval', 'coding', 'all'].includes(options.dataset)) throw usage(`--dataset: expected locomo, longmemeval, coding or all, got "${options.dataset}"`);
        break;
      case '--data':
        options.data = value(flag, i++);
        break;
      case '--lme-data':
        options.lmeData = value(flag, i++);
        break;
      case '--coding-questions':
        options.codingQuestions = value(flag, i++);
        break;
      case '--fixtures':
        options.fixtures = value(flag, i++);
        break;
      case '--protocol':
        options.protocol = value(flag, i++);
        if (!['pooled', 'per-question', 'both'].includes(options.protocol)) throw usage(`--protocol: expected pooled, per-question or both, got "${options.protocol}"`);
        break;
      case '--questions':
        options.questions = positive(flag, value(flag, i++));
        break;
      case '--embed':
        options.embed = value(flag, i++);
        if (!['none', 'local'].includes(options.embed)) throw usage(`--embed: expected none or local, got "${options.embed}"`);
        break;
      case '--config':
        options.configs.push(parseConfigFlag(value(flag, i++)));
        break;
      case '--only':
        options.only = value(flag, i++).split(',').filter(Boolean);
        break;
      case '--samples':
        options.samples = value(flag, i++).split(',').filter(Boolean);
        break;
      case '--limit':
        options.limit = positive(flag, value(flag, i++));
        break;
      case '--isolation':
        options.isolation = value(flag, i++);
        if (!['auto', 'project', 'home'].includes(options.isolation)) throw usage(`--isolation: expected auto, project or home`);
        break;
      case '--warmup':
        options.warmup = Number(value(flag, i++));
        if (!Number.isInteger(options.warmup) || options.warmup < 0) throw usage('--warmup: expected an integer >= 0');
        break;
      case '--no-latency':
        options.latency = false;
        break;
      case '--out':
        options.out = resolve(value(flag, i++));
        break;
      case '--tmp':
        options.tmp = resolve(value(flag, i++));
        break;
      case '--keep':
        options.keep = true;
        break;
      case '--postgres':
        options.postgres = true;
        break;
      case '--pg-set': {
        const pair = value(flag, i++);
        const eq = pair.indexOf('=');
        if (eq <= 0 || !/^[a-z_.]+$/.test(pair.slice(0, eq))) throw usage(`--pg-set: expected NAME=VALUE, got "${pair}"`);
        options.pgSettings[pair.slice(0, eq)] = pair.slice(eq + 1);
        break;
      }
      case '--write-docs':
        options.writeDocs = true;
        break;
      case '--docs-file':
        options.docsFile = resolve(value(flag, i++));
        options.writeDocs = true;
        break;
      default:
        throw usage(`unknown flag ${flag}`);
    }
  }
  return options;
}

function usage(message) {
  const error = new Error(`${message} (see --help)`);
  error.exitCode = 2;
  return error;
}

/** "name:ENV=VAL,ENV=VAL" → { name, env }. */
function parseConfigFlag(text) {
  const colon = text.indexOf(':');
  const name = colon >= 0 ? text.slice(0, colon) : text;
  if (!/^[A-Za-z0-9._-]+$/.test(name)) throw usage(`--config: bad name "${name}" (letters, digits, . _ -)`);
  const env = {};
  const rest = colon >= 0 ? text.slice(colon + 1) : '';
  // A comma starts a new pair only before MOON_: a value may itself be a comma list (MOON_RECALL_SESSION_FIELDS=title,files).
  for (const pair of rest.split(/,(?=\s*MOON_)/).filter((part) => part.trim() !== '')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw usage(`--config ${name}: "${pair}" is not ENV=VALUE`);
    const key = pair.slice(0, eq).trim();
    if (!/^MOON_[A-Z0-9_]+$/.test(key)) throw usage(`--config ${name}: "${key}" is not a MOON_* variable`);
    if (key === 'MOON_HOME') throw usage(`--config ${name}: MOON_HOME is set by the harness`);
    env[key] = pair.slice(eq + 1);
  }
  return { name, env };
}

// ---------------------------------------------------------------------------------------------------------
// Queries and scoring.

function buildQuestions(qrels) {
  const questions = [];
  let skipped = 0;
  for (const row of qrels) {
    const evidence = [...new Set(row.evidence ?? [])];
    if (evidence.length === 0) {
      skipped += 1;
      continue;
    }
    const derived = evidence.map((id) => /^D(\d+):/.exec(id)).filter(Boolean).map((match) => Number(match[1]));
    const sessions = [...new Set(Array.isArray(row.evidence_sessions) && row.evidence_sessions.length > 0 ? row.evidence_sessions : derived)];
    questions.push({
      sampleId: row.sample_id,
      qaIndex: row.qa_index,
      question: row.question,
      category: row.category,
      evidence,
      evidenceSessions: sessions,
    });
  }
  return { questions, skipped };
}

function recallOptions(question, group, limit, nowIso, project) {
  return {
    query: question.question,
    group,
    limit,
    ...(project ? { project: question.sampleId } : {}),
    now: nowIso,
    tz: 'UTC',
  };
}

/** A batch line as the library's RecallOptions: list flags are arrays there (the CLI wraps single strings). */
function libraryOptions(line) {
  return line.project === undefined ? line : { ...line, project: [line.project] };
}

/** Ranked ids of one RecallResult: message group → dia_ids, session group → session numbers. Foreign ids stay as placeholders. */
function rankedOf(result, group, sampleId) {
  const ranked = [];
  let foreign = 0;
  for (const match of result.matches ?? []) {
    const meta = match.metadata ?? {};
    if (group === 'message') {
      for (const id of meta.message_ids ?? []) {
        const dia = diaIdOf(id, sampleId);
        if (dia === null) foreign += 1;
        ranked.push(dia ?? `foreign:${id}`);
      }
    } else {
      const n = sessionNumberOf(meta.session_id, sampleId);
      if (n === null) foreign += 1;
      ranked.push(n ?? `foreign:${meta.session_id}`);
    }
  }
  return { ranked, foreign };
}

/** Comparable identity of a result: ranked message ids or session ids. */
function signature(result, group) {
  return JSON.stringify(
    (result.matches ?? []).map((match) => (group === 'message' ? match.metadata?.message_ids : match.metadata?.session_id)),
  );
}

// ---------------------------------------------------------------------------------------------------------
// Main.

async function main(argv) {
  const options = parseArgs(argv);
  if (options.help) {
    console.log(HELP);
    return 0;
  }
  if (!existsSync(DIST) || !existsSync(BIN)) throw new Error(`no build at ${DIST}: run \`npm run build\` first`);
  const startedAt = new Date();
  const t0 = performance.now();
  const log = (message) => process.stderr.write(`[recall-eval ${((performance.now() - t0) / 1000).toFixed(1)}s] ${message}\n`);
  const datasets = options.dataset === 'all' ? ['locomo', 'longmemeval', 'coding'] : [options.dataset];

  const base = baseEnvironment();
  const configs = buildConfigs(options, base, usage);
  const inherited = Object.keys(base).filter((key) => key.startsWith('MOON_') && key !== 'MOON_RESIDENTIAL_TIMEZONE').sort();
  // Read the data before any work: a wrong path fails fast.
  const locomoData = datasets.includes('locomo') ? resolveDataDir(options.data) : null;
  const lmeFile = datasets.includes('longmemeval') ? resolveLongMemEvalFile(options.lmeData) : null;
  const codingData = datasets.includes('coding') ? resolveCodingData(options.codingQuestions, options.fixtures) : null;

  const work = options.tmp ?? mkdtempSync(join(tmpdir(), 'moon-recall-eval-'));
  mkdirSync(work, { recursive: true });
  // On failure too: the temp dir holds converted CC BY-NC data (keep it with --keep or --tmp to debug).
  if (!options.keep && !options.tmp) removeWorkOnExit = () => rmSync(work, { recursive: true, force: true });

  // The PostgreSQL server of the --postgres configs: a temp one, stopped at the end, on failure too.
  let postgres = null;
  if (configs.some((config) => config.env.MOON_DATABASE_URL === PG_PLACEHOLDER)) {
    log('starting a temp PostgreSQL server (scripts/lib/postgres-server.mjs, bench profile)');
    postgres = await startPostgres({ profile: 'bench', settings: options.pgSettings });
    stopPostgresOnExit = () => postgres.stop();
    log(`PostgreSQL on port ${postgres.port}: ${postgres.version()}`);
  }
  const postgresInfo = postgres ? { version: postgres.version(), settings: postgres.settings } : null;
  const machine = machineInfo();
  const command = ['node', 'bench/recall-eval/run.mjs', ...argv].map(shellQuote).join(' ');
  const shared = { options, datasets, configs, inherited, postgres, postgresInfo, work, log, startedAt, machine, command };

  const parts = [];
  if (locomoData) parts.push(await runLocomo(shared, locomoData));
  if (lmeFile) {
    const part = await runLongMemEval(shared, lmeFile);
    // A new LongMemEval section goes right after the LoCoMo one.
    parts.push({ ...part, docs: { ...part.docs, after: SECTION } });
  }
  if (codingData) {
    const part = await runCoding(shared, codingData);
    parts.push({ ...part, docs: { ...part.docs, after: LME_SECTION } });
  }
  const totalMs = performance.now() - t0;
  if (postgres) {
    postgres.stop();
    stopPostgresOnExit = null;
    log('PostgreSQL server stopped');
  }

  const markdown = parts.map((part) => part.markdown).join('\n');
  process.stdout.write(`${markdown}\n`);
  mkdirSync(options.out, { recursive: true });
  const stamp = startedAt.toISOString().replace(/:/g, '-').replace(/\.\d+Z$/, '');
  const mdPath = join(options.out, `recall-eval-${stamp}.md`);
  const jsonPath = join(options.out, `recall-eval-${stamp}.json`);
  writeFileSync(mdPath, `${markdown}\n`);
  // LoCoMo's fields stay at the top level, as before LongMemEval was added; LongMemEval's go under "longmemeval".
  const json = { startedAt: startedAt.toISOString(), totalMs, machine, command, datasets };
  for (const part of parts) Object.assign(json, part.json);
  writeFileSync(jsonPath, `${JSON.stringify(json, null, 1)}\n`);
  log(`report: ${relative(REPO, mdPath)} (+ .json)`);
  if (options.writeDocs) {
    for (const part of parts) {
      writeDocsSection(options.docsFile, part.docs.heading, part.docs.text, { after: part.docs.after });
      log(`docs: replaced "${part.docs.heading}" in ${relative(REPO, options.docsFile)}`);
    }
  }
  if (removeWorkOnExit) removeWorkOnExit();
  else log(`work folder kept: ${work}`);
  removeWorkOnExit = null;
  return 0;
}

/** The LoCoMo part of a run: convert, index, ask, score; returns its report, its .json fields and its docs section. */
async function runLocomo(shared, dataDir) {
  const { options, datasets, configs, inherited, postgres, postgresInfo, work, log, startedAt, machine, command } = shared;
  const t0 = performance.now();
  const { samples, qrels } = loadLocomo(dataDir, options.samples);
  const { questions, skipped } = buildQuestions(qrels);
  const transcripts = join(work, 'transcripts');
  rmSync(transcripts, { recursive: true, force: true });
  const converted = writeTranscripts(samples, transcripts);
  const sampleIds = Object.keys(converted.samples);
  const nowIso = Object.fromEntries(sampleIds.map((id) => [id, new Date(converted.samples[id].lastEndMs + DAY_MS).toISOString()]));
  log(`${sampleIds.length} conversations, ${converted.files} sessions, ${converted.turns} turns → ${transcripts}; ${questions.length} questions (${skipped} without evidence skipped)`);

  /** home → the URL of the fresh database its index lives in (PostgreSQL configs only). */
  const databases = new Map();
  /** A config's environment for one of its homes: the placeholder replaced by that home's database. */
  const envFor = (config, home) => envForHome(config, home, databases);

  // Homes: one per distinct index key (project isolation) or one per key and conversation (home isolation).
  const keys = [...new Set(configs.map((config) => config.key))];
  const indexRuns = [];
  const homes = new Map(); // `${keyIndex}` or `${keyIndex}/${sample}` → home
  const indexInto = (keyIndex, sampleId) => {
    const config = configs.find((candidate) => candidate.key === keys[keyIndex]);
    const home = join(work, sampleId ? `home-${keyIndex}-${sampleId}` : `home-${keyIndex}`);
    rmSync(home, { recursive: true, force: true });
    if (config.fullEnv.MOON_DATABASE_URL === PG_PLACEHOLDER) {
      databases.set(home, postgres.createDatabase(`moon_eval_${keyIndex}${sampleId ? `_${sampleId.replace(/[^A-Za-z0-9]/g, '_')}` : ''}`));
    }
    const folder = sampleId ? converted.samples[sampleId].folder : transcripts;
    const env = envFor(config, home);
    const run = indexHome(folder, home, env);
    const dbBytes = storeBytes(home, env);
    const engine = env.MOON_DATABASE_URL ? 'postgres' : 'sqlite';
    indexRuns.push({ keyIndex, sampleId: sampleId ?? null, home, engine, dbBytes, configs: configs.filter((c) => c.key === keys[keyIndex]).map((c) => c.name), ...run });
    log(`indexed ${sampleId ?? `${sampleIds.length} conversation${sampleIds.length === 1 ? '' : 's'}`} (${indexRuns.at(-1).configs.join(', ')}; ${engine}): ${run.report.entries} entries, ${run.report.filtered} filtered, ${Math.round(run.ms)} ms, index ${fmt(dbBytes === null ? null : dbBytes / 1e6, 1)} MB`);
    homes.set(sampleId ? `${keyIndex}/${sampleId}` : `${keyIndex}`, home);
    return home;
  };

  let isolation = options.isolation;
  let preflight = null;
  if (isolation !== 'home') {
    const home = indexInto(0, null);
    preflight = checkProjectFilter(home, envFor(configs[0], home), converted, work);
    log(`project filter pre-check: ${preflight.ok ? 'isolates conversations' : `FAILED (${preflight.problems.join('; ')})`}`);
    if (!preflight.ok && isolation === 'project') throw new Error(`--isolation project: the project filter does not isolate conversations: ${preflight.problems.join('; ')}`);
    if (preflight.ok) {
      isolation = 'project';
    } else {
      isolation = 'home';
      homes.clear();
    }
  }
  for (let keyIndex = 0; keyIndex < keys.length; keyIndex++) {
    if (isolation === 'project') {
      if (!homes.has(`${keyIndex}`)) indexInto(keyIndex, null);
    } else {
      for (const sampleId of sampleIds) {
        indexInto(keyIndex, sampleId);
        await yieldToSignals();
      }
    }
    await yieldToSignals();
  }
  // The project filter on the other engines' shared homes too: a leak there would show up as foreign results.
  const enginePreflights = [];
  if (isolation === 'project') {
    for (let keyIndex = 1; keyIndex < keys.length; keyIndex++) {
      const config = configs.find((candidate) => candidate.key === keys[keyIndex]);
      if (!config.fullEnv.MOON_DATABASE_URL) continue;
      const home = homes.get(`${keyIndex}`);
      const check = checkProjectFilter(home, envFor(config, home), converted, work);
      enginePreflights.push({ configs: configs.filter((c) => c.key === keys[keyIndex]).map((c) => c.name), ...check });
      log(`project filter pre-check on ${enginePreflights.at(-1).configs.join(', ')}: ${check.ok ? 'isolates conversations' : `FAILED (${check.problems.join('; ')})`}`);
    }
  }

  // Coverage: evidence turns the index does not hold can never be found.
  const coverageHome = isolation === 'project' ? homes.get('0') : null;
  const ids = coverageHome ? indexedIds(coverageHome) : null;
  const coverage = ids
    ? (() => {
        const missingTurns = questions.flatMap((q) => q.evidence.filter((dia) => !ids.has(`${q.sampleId}:${dia}`)).map((dia) => `${q.sampleId}:${dia}`));
        return { indexed: ids.size, missingEvidence: [...new Set(missingTurns)], affectedQuestions: questions.filter((q) => q.evidence.some((dia) => !ids.has(`${q.sampleId}:${dia}`))).length };
      })()
    : null;

  // Batch files: one per group (and per conversation with home isolation).
  const units = isolation === 'project' ? [{ sampleId: null, questions }] : sampleIds.map((id) => ({ sampleId: id, questions: questions.filter((q) => q.sampleId === id) }));
  const groups = ['message', 'session'];
  const batchFiles = {};
  for (const unit of units) {
    for (const group of groups) {
      const file = join(work, `batch-${group}${unit.sampleId ? `-${unit.sampleId}` : ''}.jsonl`);
      const lines = unit.questions.map((q) => JSON.stringify(recallOptions(q, group, options.limit, nowIso[q.sampleId], isolation === 'project')));
      writeFileSync(file, `${lines.join('\n')}\n`);
      batchFiles[`${unit.sampleId ?? '*'}/${group}`] = file;
    }
  }

  // Recall: the CLI for the figures, then the library in-process for per-query latency.
  const lib = options.latency ? await import(pathToFileURL(DIST).href) : null;
  const results = [];
  for (const config of configs) {
    const keyIndex = keys.indexOf(config.key);
    const homeOf = (sampleId) => homes.get(isolation === 'project' ? `${keyIndex}` : `${keyIndex}/${sampleId}`);
    const answers = { message: new Map(), session: new Map() };
    const cli = { message: { ms: 0, queries: 0, processes: 0, errors: 0, bytes: 0 }, session: { ms: 0, queries: 0, processes: 0, errors: 0, bytes: 0 } };
    const stderrNotes = [];
    for (const unit of units) {
      for (const group of groups) {
        const home = homeOf(unit.sampleId ?? sampleIds[0]);
        const batch = recallBatch(batchFiles[`${unit.sampleId ?? '*'}/${group}`], home, envFor(config, home), unit.questions.length);
        cli[group].ms += batch.ms;
        cli[group].queries += unit.questions.length;
        cli[group].processes += 1;
        cli[group].bytes += batch.bytes;
        await yieldToSignals();
        if (batch.stderr) stderrNotes.push(batch.stderr.split('\n').slice(0, 5).join('\n'));
        unit.questions.forEach((q, index) => {
          const result = batch.results[index];
          if (result.error) cli[group].errors += 1;
          answers[group].set(q, result);
        });
      }
    }
    log(`${config.name}: CLI recall message ${Math.round(cli.message.ms)} ms, session ${Math.round(cli.session.ms)} ms for ${questions.length} queries each`);

    // Scoring.
    let foreign = 0;
    let emptyMessage = 0;
    let emptySession = 0;
    let multiIdMatches = 0;
    const rows = questions.map((q) => {
      const messageResult = answers.message.get(q);
      const sessionResult = answers.session.get(q);
      for (const match of messageResult.matches ?? []) if ((match.metadata?.message_ids ?? []).length !== 1) multiIdMatches += 1;
      const turn = rankedOf(messageResult, 'message', q.sampleId);
      const sess = rankedOf(sessionResult, 'session', q.sampleId);
      foreign += turn.foreign + sess.foreign;
      if ((messageResult.matches ?? []).length === 0) emptyMessage += 1;
      if ((sessionResult.matches ?? []).length === 0) emptySession += 1;
      return {
        sampleId: q.sampleId,
        qaIndex: q.qaIndex,
        category: q.category,
        evidence: q.evidence,
        evidenceSessions: q.evidenceSessions,
        turnRanked: turn.ranked,
        sessionRanked: sess.ranked,
        metrics: scoreQuestion({ turnRanked: turn.ranked, sessionRanked: sess.ranked, evidence: q.evidence, evidenceSessions: q.evidenceSessions }),
      };
    });

    // In-process latency.
    let latency = null;
    if (lib) {
      const timings = { message: [], session: [] };
      let same = 0;
      let compared = 0;
      for (const unit of units) {
        const home = homeOf(unit.sampleId ?? sampleIds[0]);
        const moon = lib.createMoon(lib.loadConfig({ env: envFor(config, home) }));
        try {
          const asks = groups.flatMap((group) => unit.questions.map((q) => ({ q, group, opts: libraryOptions(recallOptions(q, group, options.limit, nowIso[q.sampleId], isolation === 'project')) })));
          const warm = Math.min(options.warmup, asks.length);
          for (let i = 0; i < warm; i++) await moon.history.recall(asks[(i * 7919) % asks.length].opts);
          for (const ask of asks) {
            const started = performance.now();
            const result = await moon.history.recall(ask.opts);
            timings[ask.group].push(performance.now() - started);
            compared += 1;
            if (signature(result, ask.group) === signature(answers[ask.group].get(ask.q), ask.group)) same += 1;
          }
        } finally {
          await moon.close();
        }
      }
      const all = [...timings.message, ...timings.session];
      latency = {
        message: { p50: percentile(timings.message, 50), p95: percentile(timings.message, 95), max: Math.max(...timings.message) },
        session: { p50: percentile(timings.session, 50), p95: percentile(timings.session, 95), max: Math.max(...timings.session) },
        all: { p50: percentile(all, 50), p95: percentile(all, 95), mean: mean(all) },
        sameAsCli: same,
        compared,
      };
      log(`${config.name}: in-process p50 ${fmt(latency.all.p50, 2)} ms, p95 ${fmt(latency.all.p95, 2)} ms; ${same}/${compared} identical to the CLI`);
    }

    results.push({
      name: config.name,
      env: config.env,
      engine: config.fullEnv.MOON_DATABASE_URL ? 'postgres' : 'sqlite',
      pgTwinOf: config.pgTwinOf ?? null,
      home: isolation === 'project' ? homeOf(null) : `${work}/home-${keyIndex}-<sample>`,
      sharedIndexWith: configs.filter((other) => other !== config && other.key === config.key).map((other) => other.name),
      cli,
      latency,
      aggregate: aggregate(rows),
      rows,
      foreign,
      emptyMessage,
      emptySession,
      multiIdMatches,
      stderrNotes: [...new Set(stderrNotes)],
    });
  }

  const totalMs = performance.now() - t0;
  const context = { startedAt, totalMs, machine, command, datasets, dataDir, samples: sampleIds, converted, questions, skipped, isolation, preflight, enginePreflights, indexRuns, coverage, inherited, options, work, postgres: postgresInfo };
  const json = {
    isolation,
    preflight,
    enginePreflights,
    postgres: postgresInfo,
    engineComparison: engineComparison(results),
    coverage,
    index: indexRuns.map(({ report, ...rest }) => ({ ...rest, entries: report.entries, filtered: report.filtered, failed: report.failed, warnings: report.warnings })),
    configs: results.map(({ rows, ...rest }) => ({
      ...rest,
      // Ids and scores only; the questions themselves stay in ../shared/eval (CC BY-NC 4.0).
      questions: rows.map(({ sampleId, qaIndex, category, metrics, turnRanked, sessionRanked }) => ({ sampleId, qaIndex, category, metrics, turnRanked, sessionRanked })),
    })),
  };
  return { markdown: renderReport(results, context), json, docs: { heading: SECTION, text: renderDocsSection(results, context), after: null } };
}

/**
 * Does `project: <sample_id>` keep each query inside its conversation? Per conversation: its first speaker's name
 * (names recur across conversations, e.g. John) must return only that conversation's sessions, and at least one;
 * an unknown project must return nothing.
 */
function checkProjectFilter(home, env, converted, work) {
  const file = join(work, 'preflight.jsonl');
  const sampleIds = Object.keys(converted.samples);
  const lines = [];
  for (const id of sampleIds) {
    for (const speaker of converted.samples[id].speakers) lines.push({ query: speaker, group: 'session', limit: 1000, project: id, tz: 'UTC', expect: id });
  }
  lines.push({ query: converted.samples[sampleIds[0]].speakers[0], group: 'session', limit: 1000, project: 'moon-eval-no-such-project', tz: 'UTC', expect: null });
  writeFileSync(file, `${lines.map(({ expect, ...query }) => JSON.stringify(query)).join('\n')}\n`);
  const problems = [];
  let batch;
  try {
    batch = recallBatch(file, home, env, lines.length);
  } catch (error) {
    return { ok: false, problems: [`batch failed: ${error.message.split('\n')[0]}`] };
  }
  lines.forEach((line, index) => {
    const matches = batch.results[index].matches ?? [];
    if (line.expect === null) {
      if (matches.length > 0) problems.push(`unknown project returned ${matches.length} sessions`);
      return;
    }
    const foreign = matches.filter((match) => sessionNumberOf(match.metadata?.session_id, line.expect) === null);
    if (matches.length === 0) problems.push(`"${line.query}" in ${line.expect}: no sessions`);
    if (foreign.length > 0) problems.push(`"${line.query}" in ${line.expect}: ${foreign.length} sessions of other conversations`);
  });
  return { ok: problems.length === 0, problems, queries: lines.length };
}

// ---------------------------------------------------------------------------------------------------------
// Reports.

const METRIC_LABELS = {
  turnR1: 'turn R@1',
  turnR5: 'turn R@5',
  turnR10: 'turn R@10',
  ndcg10: 'turn NDCG@10',
  sessR1: 'session R@1',
  sessR5: 'session R@5',
  sessR10: 'session R@10',
};

function targetOf(key) {
  if (key === 'turnR5') return `≥ ${TARGETS.turnR5.toFixed(2)}`;
  if (key === 'sessR5') return `≥ ${TARGETS.sessR5.toFixed(2)}`;
  return '';
}

function mark(pass) {
  return pass ? ' ✅' : ' ❌';
}

function overallTable(results) {
  const baseline = results.find((result) => result.name === 'bm25') ?? results[0];
  const header = `| metric | target | ${results.map((result) => (result === baseline ? `${result.name} (baseline)` : `${result.name} (Δ vs ${baseline.name})`)).join(' | ')} |`;
  const rule = `|---|---|${results.map(() => '---:').join('|')}|`;
  const rows = METRIC_KEYS.map((key) => {
    const cells = results.map((result) => {
      const value = result.aggregate.overall[key];
      const target = key === 'turnR5' ? TARGETS.turnR5 : key === 'sessR5' ? TARGETS.sessR5 : null;
      const flag = target !== null && typeof value === 'number' ? mark(value >= target) : '';
      return result === baseline ? `${fmt(value)}${flag}` : `${fmt(value)}${flag} (${fmtDelta(value, baseline.aggregate.overall[key])})`;
    });
    return `| ${METRIC_LABELS[key]} | ${targetOf(key)} | ${cells.join(' | ')} |`;
  });
  const latencyRow = (label, pick, target) =>
    `| ${label} | ${target ?? ''} | ${results
      .map((result) => {
        const value = result.latency ? pick(result.latency) : null;
        const flag = target && typeof value === 'number' ? mark(value < TARGETS.p95Ms) : '';
        if (result === baseline || typeof value !== 'number') return `${fmt(value, 1)}${flag}`;
        return `${fmt(value, 1)}${flag} (${fmtDelta(value, pick(baseline.latency ?? {}) , 1)})`;
      })
      .join(' | ')} |`;
  const safePick = (fn) => (latency) => {
    try {
      return fn(latency);
    } catch {
      return null;
    }
  };
  rows.push(latencyRow('latency p50, ms (in-process)', safePick((l) => l.all.p50)));
  rows.push(latencyRow('latency p95, ms (in-process)', safePick((l) => l.all.p95), `< ${TARGETS.p95Ms}`));
  rows.push(
    `| CLI batch wall time, s (message + session) | | ${results
      .map((result) => `${((result.cli.message.ms + result.cli.session.ms) / 1000).toFixed(2)}`)
      .join(' | ')} |`,
  );
  return [header, rule, ...rows].join('\n');
}

/** Largest |pg − sqlite| allowed on any recall figure: the engines rank the same way. */
const ENGINE_TOLERANCE = 0.005;

/**
 * Each --postgres config against the SQLite config it mirrors: the metrics and latencies, their differences, and
 * the questions whose ranked turns or sessions differ (ids and metrics only).
 */
function engineComparison(results) {
  const pairs = [];
  for (const pg of results.filter((result) => result.pgTwinOf)) {
    const lite = results.find((result) => result.name === pg.pgTwinOf);
    if (!lite) continue;
    const metrics = Object.fromEntries(
      METRIC_KEYS.map((key) => {
        const a = lite.aggregate.overall[key];
        const b = pg.aggregate.overall[key];
        return [key, { sqlite: a, pg: b, delta: typeof a === 'number' && typeof b === 'number' ? b - a : null }];
      }),
    );
    const latency = lite.latency && pg.latency ? { p50: { sqlite: lite.latency.all.p50, pg: pg.latency.all.p50 }, p95: { sqlite: lite.latency.all.p95, pg: pg.latency.all.p95 } } : null;
    const differing = [];
    let sameTurn = 0;
    let sameSession = 0;
    lite.rows.forEach((row, index) => {
      const other = pg.rows[index];
      const turnSame = JSON.stringify(row.turnRanked) === JSON.stringify(other.turnRanked);
      const sessionSame = JSON.stringify(row.sessionRanked) === JSON.stringify(other.sessionRanked);
      if (turnSame) sameTurn += 1;
      if (sessionSame) sameSession += 1;
      if (turnSame && sessionSame) return;
      const changed = Object.fromEntries(
        METRIC_KEYS.filter((key) => row.metrics[key] !== other.metrics[key]).map((key) => [key, { sqlite: row.metrics[key], pg: other.metrics[key] }]),
      );
      differing.push({
        sampleId: row.sampleId,
        qaIndex: row.qaIndex,
        category: row.category,
        turnSame,
        sessionSame,
        changed,
        sqlite: { turnRanked: row.turnRanked, sessionRanked: row.sessionRanked },
        pg: { turnRanked: other.turnRanked, sessionRanked: other.sessionRanked },
      });
    });
    const maxAbsDelta = Math.max(0, ...Object.values(metrics).map((m) => (m.delta === null ? 0 : Math.abs(m.delta))));
    pairs.push({ sqlite: lite.name, pg: pg.name, questions: lite.rows.length, sameTurn, sameSession, metrics, latency, maxAbsDelta, withinTolerance: maxAbsDelta <= ENGINE_TOLERANCE, differing });
  }
  return pairs;
}

function indexBytesOf(result, context) {
  const runs = usedIndexRuns(context).filter((run) => run.configs.includes(result.name));
  if (runs.length === 0 || runs.some((run) => typeof run.dbBytes !== 'number')) return null;
  return runs.reduce((sum, run) => sum + run.dbBytes, 0);
}

function engineSection(results, context, h) {
  const pairs = engineComparison(results);
  if (pairs.length === 0) return [];
  const byName = new Map(results.map((result) => [result.name, result]));
  const columns = [...METRIC_KEYS.map((key) => METRIC_LABELS[key]), 'p50 ms', 'p95 ms', 'index MB'];
  const valueRow = (result) => {
    const latency = result.latency?.all;
    const bytes = indexBytesOf(result, context);
    return `| ${result.name} | ${result.engine} | ${[...METRIC_KEYS.map((key) => fmt(result.aggregate.overall[key])), fmt(latency?.p50, 1), fmt(latency?.p95, 1), fmt(bytes === null ? null : bytes / 1e6, 1)].join(' | ')} |`;
  };
  const deltaRow = (pair) => {
    const lite = byName.get(pair.sqlite);
    const pg = byName.get(pair.pg);
    const bytesA = indexBytesOf(lite, context);
    const bytesB = indexBytesOf(pg, context);
    const lat = (pick) => (lite.latency && pg.latency ? fmtDelta(pick(pg.latency), pick(lite.latency), 1) : '–');
    return `| **Δ pg − sqlite** | | ${[
      ...METRIC_KEYS.map((key) => `**${fmtDelta(pair.metrics[key].pg, pair.metrics[key].sqlite)}**`),
      lat((l) => l.all.p50),
      lat((l) => l.all.p95),
      bytesA && bytesB ? `${(bytesB / bytesA).toFixed(2)}×` : '–',
    ].join(' | ')} |`;
  };
  const rows = [];
  for (const pair of pairs) rows.push(valueRow(byName.get(pair.sqlite)), valueRow(byName.get(pair.pg)), deltaRow(pair));
  const lines = [
    `${h} SQLite and PostgreSQL side by side`,
    '',
    `| config | engine | ${columns.join(' | ')} |`,
    `|---|---|${columns.map(() => '---:').join('|')}|`,
    ...rows,
    '',
    `Target: every recall figure within ${ENGINE_TOLERANCE} between the engines (they tokenize and score BM25 the same way). Latency is in-process (\`createMoon().recall\`) over both levels' queries; for PostgreSQL it includes the round trips to a server on the same machine. Index MB is \`moon status --json\` db_bytes (SQLite: file + WAL; PostgreSQL: the moon schema's tables, indexes and TOAST); the Δ column shows pg / sqlite.`,
    '',
  ];
  for (const pair of pairs) {
    const differ = pair.differing.filter((d) => Object.keys(d.changed).length > 0);
    lines.push(
      `- **${pair.pg} vs ${pair.sqlite}**: largest |Δ| ${pair.maxAbsDelta.toFixed(4)}${mark(pair.withinTolerance)}; identical ranked turns for ${pair.sameTurn}/${pair.questions} questions, identical ranked sessions for ${pair.sameSession}/${pair.questions}; ${pair.differing.length} questions rank differently, ${differ.length} of them with a different score.`,
    );
    for (const d of differ.slice(0, 15)) {
      lines.push(
        `  - ${d.sampleId} #${d.qaIndex} (category ${d.category}): ${Object.entries(d.changed)
          .map(([key, value]) => `${METRIC_LABELS[key]} ${fmt(value.sqlite)} → ${fmt(value.pg)}`)
          .join(', ')}`,
      );
    }
    if (differ.length > 15) lines.push(`  - … ${differ.length - 15} more in the .json report (engineComparison)`);
  }
  if (context.enginePreflights?.length) {
    lines.push(
      ...context.enginePreflights.map(
        (check) => `- project filter pre-check on ${check.configs.join(', ')}: ${check.ok ? `isolates conversations (${check.queries} queries)` : `FAILED — ${check.problems.slice(0, 3).join('; ')}`}`,
      ),
    );
  }
  if (context.postgres) {
    lines.push(
      `- server: ${context.postgres.version}, a temp cluster started by \`scripts/lib/postgres-server.mjs\` (bench profile) on the same machine, one fresh database per index; settings: ${Object.entries(context.postgres.settings)
        .filter(([name]) => name !== 'listen_addresses')
        .map(([name, value]) => `\`${name}=${value}\``)
        .join(', ')}; everything else at PostgreSQL's defaults. Durability is off (fsync, synchronous_commit, full_page_writes): the cluster is thrown away after the run.`,
    );
  }
  lines.push('');
  return lines;
}

function categoryTable(result) {
  const header = `| category | n | ${METRIC_KEYS.map((key) => METRIC_LABELS[key]).join(' | ')} |`;
  const rule = `|---|---:|${METRIC_KEYS.map(() => '---:').join('|')}|`;
  const line = (label, summary) => `| ${label} | ${summary.n} | ${METRIC_KEYS.map((key) => fmt(summary[key])).join(' | ')} |`;
  return [
    header,
    rule,
    ...CATEGORIES.map((category) => line(`${category.id} ${category.name}`, result.aggregate.byCategory[category.id])),
    line('**overall**', result.aggregate.overall),
  ].join('\n');
}

function latencyLine(result) {
  const cli = result.cli;
  const perQuery = (group) => (cli[group].queries > 0 ? cli[group].ms / cli[group].queries : null);
  const parts = [
    `CLI: \`recall --batch\` message-level ${(cli.message.ms / 1000).toFixed(2)} s for ${cli.message.queries} queries (${fmt(perQuery('message'), 1)} ms/query incl. process start, ${cli.message.processes} process${cli.message.processes === 1 ? '' : 'es'}), session-level ${(cli.session.ms / 1000).toFixed(2)} s (${fmt(perQuery('session'), 1)} ms/query).`,
  ];
  if (result.latency) {
    const l = result.latency;
    parts.push(
      `In-process (\`createMoon().recall\`, after warm-up): message-level p50 ${fmt(l.message.p50, 1)} / p95 ${fmt(l.message.p95, 1)} / max ${fmt(l.message.max, 1)} ms; session-level p50 ${fmt(l.session.p50, 1)} / p95 ${fmt(l.session.p95, 1)} / max ${fmt(l.session.max, 1)} ms; results identical to the CLI's for ${l.sameAsCli}/${l.compared} queries.`,
    );
  }
  const notes = [];
  if (result.foreign > 0) notes.push(`${result.foreign} results came from other conversations (counted as misses)`);
  if (result.emptyMessage > 0 || result.emptySession > 0) notes.push(`${result.emptyMessage} message-level and ${result.emptySession} session-level queries returned nothing`);
  if (result.multiIdMatches > 0) notes.push(`${result.multiIdMatches} message-level matches carried ≠ 1 message id`);
  if (result.cli.message.errors + result.cli.session.errors > 0) notes.push(`${result.cli.message.errors + result.cli.session.errors} batch lines were errors`);
  if (notes.length > 0) parts.push(`Notes: ${notes.join('; ')}.`);
  return parts.join(' ');
}

function referenceFigures() {
  return [
    'Reference figures (from `../shared/eval/README.md`, for context — different setups, not directly comparable):',
    '- LoCoMo paper, Table 3 (DRAGON retriever, original 50-conversation release): dialog-turn recall@5 58.8, @10 67.5, @25 79.9.',
    '- Plain BM25 on all ten conversations (turns as documents): turn recall@5 0.488, @10 0.558; session recall@5 0.855, @10 0.922. Multi-hop is the weak spot (turn recall@5 ≈ 0.15).',
    '- LongMemEval (Wu et al. 2024), session recall@5 on its M set: BM25 0.634, Contriever 0.723, Stella 0.720; time-aware query expansion adds 7–11 % on temporal questions.',
  ].join('\n');
}

function setupParagraph(context) {
  const { converted, questions, skipped, isolation, coverage, options } = context;
  const firstKey = usedIndexRuns(context).filter((run) => run.keyIndex === 0);
  const sum = (pick) => firstKey.reduce((total, run) => total + pick(run), 0);
  const indexed = `${sum((run) => run.report.entries)} entries indexed (${sum((run) => run.report.filtered)} filtered as noise) in ${(sum((run) => run.ms) / 1000).toFixed(2)} s`;
  const iso =
    isolation === 'project'
      ? 'all conversations in one home, every query filtered to its own conversation with `"project": "<sample_id>"` (pre-checked: the filter isolates conversations; BM25 term statistics still span the whole home, so figures differ slightly from `--isolation home`)'
      : `one home per conversation${context.preflight && !context.preflight.ok ? ` (the project filter failed its pre-check: ${context.preflight.problems.slice(0, 3).join('; ')})` : ''}`;
  const lines = [
    `Data: LoCoMo dev split (${context.samples.join(', ')}): ${converted.files} sessions, ${converted.turns} turns; ${questions.length} questions with evidence (${skipped} without evidence skipped).`,
    `Each session became one Claude Code JSONL transcript (one record per turn, uuid \`<sample_id>:<dia_id>\`, text \`<speaker>: <text>\`, image turns + \` [image: <caption>]\`, timestamps from \`session_N_date_time\` in UTC + 30 s per turn), indexed with \`moon index\` into a fresh home: ${indexed}.`,
    `Every question was asked through \`moon recall --batch\` (one process per batch file) twice — \`"group": "message"\` for the turn level, \`"group": "session"\` for the session level — with \`"limit": ${options.limit}\`, \`"now"\` = the conversation's last session end + 1 day, \`"tz": "UTC"\`; ${iso}.`,
    'Turn-level Recall@k: fraction of a question\'s evidence turns among the top k messages, averaged over questions; NDCG@10 with binary relevance; session-level Recall@k: fraction of its evidence sessions among the top k sessions. Latency: a second pass through the library in-process (`createMoon(loadConfig()).recall`), each call timed with `performance.now()`, over both levels\' queries.',
  ];
  if (coverage) {
    lines.push(
      coverage.missingEvidence.length === 0
        ? `Coverage: every evidence turn is in the index (${coverage.indexed} entries).`
        : `Coverage: ${coverage.missingEvidence.length} evidence turns are not in the index (${coverage.missingEvidence.slice(0, 8).join(', ')}${coverage.missingEvidence.length > 8 ? ', …' : ''}), affecting ${coverage.affectedQuestions} questions.`,
    );
  }
  return lines.join('\n\n');
}

/** The index runs whose homes were queried (a shared home abandoned after a failed pre-check is left out). */
function usedIndexRuns(context) {
  return context.indexRuns.filter((run) => (context.isolation === 'project' ? run.sampleId === null : run.sampleId !== null));
}

function configList(results, context) {
  const lines = results.map(
    (result) =>
      `- **${result.name}**: ${describeEnv(result.env) || '(product defaults)'}${result.sharedIndexWith.length > 0 ? ` — shares its index with ${result.sharedIndexWith.join(', ')}` : ' — own index'}`,
  );
  for (const run of usedIndexRuns(context)) {
    lines.push(
      `- index${run.sampleId ? ` ${run.sampleId}` : ''} for ${run.configs.join(', ')} (${run.engine}): \`moon index\` ${(run.ms / 1000).toFixed(2)} s wall, ${run.report.entries} entries, ${run.report.filtered} filtered${run.report.warnings?.length ? `, ${run.report.warnings.length} warnings` : ''}${typeof run.dbBytes === 'number' ? `, ${(run.dbBytes / 1e6).toFixed(1)} MB` : ''}`,
    );
  }
  if (context.inherited.length > 0) lines.push(`- inherited from the environment (all configs): ${context.inherited.join(', ')}`);
  lines.push('- every config: MOON_RESIDENTIAL_TIMEZONE=UTC; MOON_HOME, MOON_SOURCES, MOON_CURRENT_SESSION_ID, MOON_RECALL_LIMIT and MOON_DATABASE_URL from the caller are ignored');
  if (results.some((result) => result.pgTwinOf)) lines.push(`- \`${PG_PLACEHOLDER}\` stands for a fresh database on the temp PostgreSQL server, one per index`);
  return lines.join('\n');
}

function renderBody(results, context, headingLevel) {
  const h = '#'.repeat(headingLevel);
  const parts = [
    `${h} Overall`,
    '',
    overallTable(results),
    '',
    `Targets: turn-level Recall@5 ≥ ${TARGETS.turnR5}, session-level Recall@5 ≥ ${TARGETS.sessR5}, recall p95 < ${TARGETS.p95Ms} ms (in-process, both levels' queries).`,
    '',
    ...engineSection(results, context, h),
    `${h} Configurations`,
    '',
    configList(results, context),
    '',
  ];
  for (const result of results) {
    parts.push(`${h} ${result.name}: per category`, '', categoryTable(result), '', latencyLine(result), '');
  }
  parts.push(`${h} Method`, '', setupParagraph(context), '', referenceFigures(), '');
  return parts.join('\n');
}

function renderReport(results, context) {
  return [
    `# Recall quality on LoCoMo (dev split) — ${context.startedAt.toISOString()}`,
    '',
    `Machine: ${machineLine(context.machine)}. Run time${context.datasets.length > 1 ? " (LoCoMo part)" : ""}: ${(context.totalMs / 1000).toFixed(1)} s.`,
    '',
    `Command: \`${context.command}\``,
    '',
    renderBody(results, context, 2),
  ].join('\n');
}

function renderDocsSection(results, context) {
  const part = context.datasets.length > 1 ? 'the LoCoMo part of the run' : 'the whole run';
  return [...renderSectionHead(SECTION, context, part), renderBody(results, context, 3)].join('\n');
}

let removeWorkOnExit = null;

/** Stops the --postgres temp server; set while it runs. (The server module also stops it on process exit.) */
let stopPostgresOnExit = null;

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping\n`);
    try {
      stopPostgresOnExit?.();
    } finally {
      removeWorkOnExit?.();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
  });
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`error: ${error.message}\n`);
  process.exitCode = error.exitCode ?? 1;
  removeWorkOnExit?.();
} finally {
  stopPostgresOnExit?.();
}
