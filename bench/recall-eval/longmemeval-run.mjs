// The LongMemEval part of a recall-eval run: index the haystacks with the real CLI under two protocols (pooled: one
// index of every question's haystack; per-question: a fresh index per question), ask every question through
// `moon recall --batch`, score, and compute the fts5-naive reference on the same sessions. Reports in
// longmemeval-report.mjs; bench/recall-eval/README.md has the method.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createFtsIndex } from './fts5-naive.mjs';
import { PG_PLACEHOLDER, envForHome, indexHome, indexedIds, recallBatch, storeBytes, yieldToSignals } from './harness.mjs';
import { LME_SECTION, renderLmeDocsSection, renderLmeReport } from './longmemeval-report.mjs';
import { buildLmeQuestions, collectSessions, goldCopies, loadLongMemEval, writeSessions } from './longmemeval.mjs';
import { LME_METRIC_KEYS, LME_TYPES, aggregate, fmt, scoreLongMemEval } from './metrics.mjs';

export { LME_SECTION } from './longmemeval-report.mjs';

export const PROTOCOLS = ['pooled', 'per-question'];
const GROUPS = ['message', 'session'];
export const FTS_NAIVE = 'fts5-naive';

/** The LongMemEval part: returns its report, its .json fields (under "longmemeval") and its docs section. */
export async function runLongMemEval(shared, file) {
  const { options, log, work } = shared;
  const t0 = performance.now();
  const raw = loadLongMemEval(file, options.questions);
  const { questions, skipped, answerIdsDiffer } = buildLmeQuestions(raw);
  const pooled = collectSessions(raw);
  const root = join(work, 'longmemeval');
  rmSync(root, { recursive: true, force: true });
  log(
    `LongMemEval: ${raw.length} questions (${skipped.length} without gold skipped), ${pooled.sessions.size} distinct sessions (${pooled.repeats} repeats, ${pooled.contentConflicts.length} with different content, ${pooled.dateVariants.length} with another date)`,
  );
  const protocols = options.protocol === 'both' ? PROTOCOLS : [options.protocol];
  const outcomes = [];
  for (const protocol of protocols) {
    const units =
      protocol === 'pooled'
        ? [{ id: null, sessions: [...pooled.sessions.values()], questions }]
        : questions.map((q) => ({ id: q.id, sessions: [...collectSessions(raw.filter((r) => r.question_id === q.id)).sessions.values()], questions: [q] }));
    outcomes.push(await runProtocol(protocol, units, questions, shared, join(root, protocol)));
  }
  // Gold sessions with a word-for-word copy under another id: in the same index, the copy competes with them.
  const copies = {
    pooled: goldCopies(pooled.sessions, questions.flatMap((q) => q.goldSessions)),
    perQuestion: questions.flatMap((q) => goldCopies(collectSessions(raw.filter((r) => r.question_id === q.id)).sessions, q.goldSessions)),
  };
  const data = {
    file,
    questions: questions.length,
    loaded: raw.length,
    skipped,
    answerIdsDiffer,
    types: Object.fromEntries(LME_TYPES.map((type) => [type.id, questions.filter((q) => q.type === type.id).length])),
    sessions: pooled.sessions.size,
    turns: [...pooled.sessions.values()].reduce((sum, session) => sum + session.turns.length, 0),
    repeats: pooled.repeats,
    contentConflicts: pooled.contentConflicts,
    dateVariants: pooled.dateVariants,
    goldCopies: copies,
  };
  const context = { ...shared, data, outcomes, totalMs: performance.now() - t0 };
  return {
    markdown: renderLmeReport(context),
    json: { longmemeval: lmeJson(context) },
    docs: { heading: LME_SECTION, text: renderLmeDocsSection(context) },
  };
}

/**
 * One protocol: for each unit (the pooled haystack, or one question's), write its transcripts, index them once per
 * index key, ask its questions once per config and group, then the fts5-naive reference on the same sessions.
 */
async function runProtocol(protocol, units, questions, shared, dir) {
  const { options, configs, postgres, log } = shared;
  const t0 = performance.now();
  const keys = [...new Set(configs.map((config) => config.key))];
  const databases = new Map();
  const answers = new Map(configs.map((config) => [config.name, { message: new Map(), session: new Map() }]));
  const cli = new Map(configs.map((config) => [config.name, newCliStats()]));
  const indexRuns = [];
  // Coverage (gold turns the index does not hold) is read from the first SQLite index's moon.db.
  const coverageKey = keys.findIndex((key) => !configs.find((config) => config.key === key).fullEnv.MOON_DATABASE_URL);
  const missingGold = [];
  let coverageHomes = 0;
  let written = { files: 0, turns: 0 };
  for (const [u, unit] of units.entries()) {
    const tag = unit.id ? `-${unit.id}` : '';
    const folder = join(dir, 'transcripts', unit.id ?? '');
    const out = writeSessions(folder, unit.sessions);
    written = { files: written.files + out.files, turns: written.turns + out.turns };
    const batchFiles = Object.fromEntries(GROUPS.map((group) => [group, join(dir, `batch-${group}${tag}.jsonl`)]));
    for (const group of GROUPS) writeFileSync(batchFiles[group], `${unit.questions.map((q) => JSON.stringify(recallLine(q, group, options.limit))).join('\n')}\n`);
    for (const [keyIndex, key] of keys.entries()) {
      const keyConfigs = configs.filter((config) => config.key === key);
      const home = join(dir, `home-${keyIndex}${tag}`);
      if (keyConfigs[0].fullEnv.MOON_DATABASE_URL === PG_PLACEHOLDER) {
        databases.set(home, postgres.createDatabase(`moon_lme_${protocol === 'pooled' ? 'pooled' : 'q'}_${keyIndex}${unit.id ? `_${unit.id.replace(/[^A-Za-z0-9]/g, '_')}` : ''}`));
      }
      const env = envForHome(keyConfigs[0], home, databases);
      const run = indexHome(folder, home, env);
      const engine = env.MOON_DATABASE_URL ? 'postgres' : 'sqlite';
      indexRuns.push({
        questionId: unit.id,
        keyIndex,
        engine,
        configs: keyConfigs.map((config) => config.name),
        ms: run.ms,
        entries: run.report.entries,
        filtered: run.report.filtered,
        warnings: run.report.warnings?.length ?? 0,
        dbBytes: protocol === 'pooled' ? storeBytes(home, env) : null,
      });
      if (keyIndex === coverageKey) {
        const ids = indexedIds(home);
        if (ids) {
          coverageHomes += 1;
          for (const q of unit.questions) for (const turn of q.goldTurns) if (!ids.has(turn)) missingGold.push({ questionId: q.id, turn });
        }
      }
      for (const config of keyConfigs) {
        for (const group of GROUPS) {
          const batch = recallBatch(batchFiles[group], home, envForHome(config, home, databases), unit.questions.length);
          addCliRun(cli.get(config.name)[group], batch, unit.questions.length);
          unit.questions.forEach((q, index) => answers.get(config.name)[group].set(q.id, batch.results[index]));
          await yieldToSignals();
        }
      }
    }
    if (unit.id && (u + 1) % 10 === 0) log(`${protocol}: ${u + 1}/${units.length} questions indexed and asked`);
    await yieldToSignals();
  }
  const moonMs = performance.now() - t0;
  const results = configs.map((config) => moonResult(config, questions, answers.get(config.name), cli.get(config.name)));
  for (const result of results) log(`${protocol} ${result.name}: ${summaryLine(result)}`);
  const fts = ftsNaiveResult(units, questions, options.limit);
  log(`${protocol} ${fts.name}: ${summaryLine(fts)} (${Math.round(fts.ms)} ms, in the harness)`);
  const coverage = { checked: coverageHomes === units.length, missingGold };
  return { protocol, units: units.length, written, indexRuns, coverage, results: [...results, fts], moonMs, ms: performance.now() - t0 };
}

function recallLine(q, group, limit) {
  return { query: q.question, group, limit, now: q.nowIso, tz: 'UTC' };
}

function newCliStats() {
  return Object.fromEntries(GROUPS.map((group) => [group, { ms: 0, queries: 0, processes: 0, errors: 0, maxMs: 0 }]));
}

function addCliRun(stats, batch, queries) {
  stats.ms += batch.ms;
  stats.maxMs = Math.max(stats.maxMs, batch.ms);
  stats.queries += queries;
  stats.processes += 1;
  stats.errors += batch.results.filter((result) => result.error).length;
}

/** Ranked ids of one RecallResult: message group → message ids (= turn ids), session group → session ids. */
export function rankedIds(result, group) {
  const ranked = [];
  for (const match of result?.matches ?? []) {
    const meta = match.metadata ?? {};
    if (group === 'message') ranked.push(...(meta.message_ids ?? []));
    else if (meta.session_id !== undefined) ranked.push(meta.session_id);
  }
  return ranked;
}

function moonResult(config, questions, answers, cli) {
  let emptyMessage = 0;
  let emptySession = 0;
  let multiIdMatches = 0;
  const rows = questions.map((q) => {
    const message = answers.message.get(q.id);
    const session = answers.session.get(q.id);
    for (const match of message.matches ?? []) if ((match.metadata?.message_ids ?? []).length !== 1) multiIdMatches += 1;
    if ((message.matches ?? []).length === 0) emptyMessage += 1;
    if ((session.matches ?? []).length === 0) emptySession += 1;
    return scoredRow(q, rankedIds(message, 'message'), rankedIds(session, 'session'));
  });
  return {
    name: config.name,
    kind: 'moon',
    env: config.env,
    engine: config.fullEnv.MOON_DATABASE_URL ? 'postgres' : 'sqlite',
    pgTwinOf: config.pgTwinOf ?? null,
    cli,
    aggregate: aggregate(rows, LME_TYPES, LME_METRIC_KEYS),
    rows,
    emptyMessage,
    emptySession,
    multiIdMatches,
  };
}

/** fts5-naive on the same units: a fresh FTS5 index per unit (pooled: one; per question: one each). */
function ftsNaiveResult(units, questions, limit) {
  const started = performance.now();
  const ranked = new Map();
  for (const unit of units) {
    const index = createFtsIndex(unit.sessions);
    try {
      for (const q of unit.questions) ranked.set(q.id, index.search(q.question, limit));
    } finally {
      index.close();
    }
  }
  const rows = questions.map((q) => scoredRow(q, ranked.get(q.id).turnRanked, ranked.get(q.id).sessionRanked));
  let emptySession = 0;
  for (const row of rows) if (row.sessionRanked.length === 0) emptySession += 1;
  return { name: FTS_NAIVE, kind: 'harness', env: {}, engine: 'fts5 (better-sqlite3, in the harness)', pgTwinOf: null, cli: null, ms: performance.now() - started, aggregate: aggregate(rows, LME_TYPES, LME_METRIC_KEYS), rows, emptyMessage: emptySession, emptySession, multiIdMatches: 0 };
}

function scoredRow(q, turnRanked, sessionRanked) {
  return {
    id: q.id,
    category: q.type,
    goldSessions: q.goldSessions,
    goldTurns: q.goldTurns,
    turnRanked,
    sessionRanked,
    metrics: scoreLongMemEval({ turnRanked, sessionRanked, goldTurns: q.goldTurns, goldSessions: q.goldSessions }),
  };
}

function summaryLine(result) {
  const o = result.aggregate.overall;
  return `recall_all@5 ${fmt(o.recallAll5)}, recall_any@5 ${fmt(o.recallAny5)}, NDCG@5 ${fmt(o.ndcg5)}, turn R@10 ${fmt(o.turnR10)}`;
}

/** The .json fields: ids, counts and scores only (no question text). */
function lmeJson(context) {
  const { data, outcomes, totalMs } = context;
  return {
    totalMs,
    data: { ...data, file: data.file },
    protocols: Object.fromEntries(
      outcomes.map((outcome) => [
        outcome.protocol,
        {
          ms: outcome.ms,
          moonMs: outcome.moonMs,
          units: outcome.units,
          written: outcome.written,
          index: outcome.indexRuns,
          coverage: outcome.coverage,
          configs: outcome.results.map(({ rows, ...rest }) => ({
            ...rest,
            questions: rows.map(({ id, category, metrics, goldSessions, goldTurns, turnRanked, sessionRanked }) => ({ id, type: category, metrics, goldSessions, goldTurns, turnRanked, sessionRanked })),
          })),
        },
      ]),
    ),
  };
}
