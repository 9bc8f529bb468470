// The coding-sessions part of a recall-eval run: moon's own question set over the real coding-agent transcripts in
// ../shared/fixtures (bench/recall-eval/coding/questions.json: questions in a developer's words, gold pinned to
// sessions and messages). Every fixture transcript is indexed with the real CLI (the synthetic ones stay in as
// distractors), each question asked through `moon recall --batch` at the time it is asked, and beside moon the
// plain baseline the issue names: BM25 over whole sessions (one FTS5 document per session, the question's words
// OR-ed), computed in the harness from the same indexed entries.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { REPO } from './convert.mjs';
import { ftsMatchQuery } from './fts5-naive.mjs';
import { PG_PLACEHOLDER, envForHome, indexHome, machineLine, recallBatch, yieldToSignals } from './harness.mjs';
import { rankedIds } from './longmemeval-run.mjs';
import { fmt, fmtDelta, mean, recallAllAtK, recallAtK } from './metrics.mjs';

export const CODING_SECTION = '## Recall quality on coding sessions (moon\'s own question set)';
export const CODING_KINDS = ['decision', 'error-fix', 'command', 'file', 'identifier', 'summary', 'time'];
export const WHOLE_SESSION_BM25 = 'bm25-whole-session';
const GROUPS = ['message', 'session'];
const KEYS = ['sessAll5', 'mrr', 'turnR10'];

/** The question set and the fixtures folder, checked before any work. */
export function resolveCodingData(questionsPath, fixturesPath) {
  const questionsFile = resolve(questionsPath ?? join(REPO, 'bench', 'recall-eval', 'coding', 'questions.json'));
  const fixtures = resolve(fixturesPath ?? join(REPO, '..', 'shared', 'fixtures'));
  if (!existsSync(questionsFile)) throw new Error(`coding questions: ${questionsFile} does not exist`);
  if (!existsSync(fixtures)) throw new Error(`coding fixtures: ${fixtures} does not exist (--fixtures DIR)`);
  return { questionsFile, fixtures };
}

/** Every question of the set, checked: a kind it knows, a time, gold sessions and messages. */
export function loadCodingQuestions(file) {
  const set = JSON.parse(readFileSync(file, 'utf8'));
  return (set.questions ?? []).map((q, index) => {
    const where = `${file}: questions[${index}] (${q.id ?? 'no id'})`;
    if (!CODING_KINDS.includes(q.kind)) throw new Error(`${where}: kind "${q.kind}" is not one of ${CODING_KINDS.join(', ')}`);
    if (typeof q.question !== 'string' || q.question.trim() === '') throw new Error(`${where}: no question`);
    if (Number.isNaN(Date.parse(q.asked_at))) throw new Error(`${where}: asked_at "${q.asked_at}" is not a time`);
    const sessions = q.gold?.sessions ?? [];
    const messages = q.gold?.messages ?? [];
    if (sessions.length === 0 || messages.length === 0) throw new Error(`${where}: gold needs sessions and messages`);
    return { id: q.id, kind: q.kind, question: q.question, nowIso: new Date(q.asked_at).toISOString(), goldSessions: sessions, goldTurns: messages };
  });
}

/** The coding part: returns its report, its .json fields (under "coding") and its docs section. */
export async function runCoding(shared, data) {
  const { options, configs, postgres, log, work } = shared;
  const t0 = performance.now();
  const questions = loadCodingQuestions(data.questionsFile);
  const root = join(work, 'coding');
  rmSync(root, { recursive: true, force: true });
  const folder = join(root, 'transcripts');
  copyTranscripts(data.fixtures, folder);
  log(`coding: ${questions.length} questions over the transcripts of ${data.fixtures}`);
  const batchFiles = Object.fromEntries(GROUPS.map((group) => [group, join(root, `batch-${group}.jsonl`)]));
  for (const group of GROUPS) {
    const lines = questions.map((q) => JSON.stringify({ query: q.question, group, limit: options.limit, now: q.nowIso, tz: 'UTC' }));
    writeFileSync(batchFiles[group], `${lines.join('\n')}\n`);
  }
  const keys = [...new Set(configs.map((config) => config.key))];
  const databases = new Map();
  const results = [];
  let sqliteHome = null;
  const indexRuns = [];
  for (const [keyIndex, key] of keys.entries()) {
    const keyConfigs = configs.filter((config) => config.key === key);
    const home = join(root, `home-${keyIndex}`);
    if (keyConfigs[0].fullEnv.MOON_DATABASE_URL === PG_PLACEHOLDER) databases.set(home, postgres.createDatabase(`moon_coding_${keyIndex}`));
    const env = envForHome(keyConfigs[0], home, databases);
    const run = indexHome(folder, home, env);
    indexRuns.push({ keyIndex, engine: env.MOON_DATABASE_URL ? 'postgres' : 'sqlite', ms: run.ms, entries: run.report.entries });
    if (!env.MOON_DATABASE_URL && sqliteHome === null) sqliteHome = home;
    for (const config of keyConfigs) {
      const answers = {};
      for (const group of GROUPS) {
        answers[group] = recallBatch(batchFiles[group], home, envForHome(config, home, databases), questions.length).results;
        await yieldToSignals();
      }
      const rows = questions.map((q, index) => scoredRow(q, rankedIds(answers.message[index], 'message'), rankedIds(answers.session[index], 'session')));
      results.push({ name: config.name, kind: 'moon', engine: env.MOON_DATABASE_URL ? 'postgres' : 'sqlite', rows, aggregate: aggregateByKind(rows) });
      log(`coding ${config.name}: ${summaryLine(results.at(-1))}`);
    }
  }
  if (sqliteHome !== null) {
    const rows = rankWholeSessions(sqliteHome, questions, options.limit);
    results.push({ name: WHOLE_SESSION_BM25, kind: 'harness', engine: 'fts5 (better-sqlite3, in the harness)', rows, aggregate: aggregateByKind(rows) });
    log(`coding ${WHOLE_SESSION_BM25}: ${summaryLine(results.at(-1))}`);
  }
  const context = { questions, results, indexRuns, data, totalMs: performance.now() - t0, measured: `${shared.startedAt.toISOString().slice(0, 10)} on ${machineLine(shared.machine)}` };
  return {
    markdown: renderCodingReport(context),
    json: { coding: { questionsFile: data.questionsFile, fixtures: data.fixtures, indexRuns, results: results.map(({ rows, ...rest }) => ({ ...rest, questions: rows })) } },
    docs: { heading: CODING_SECTION, text: renderCodingReport(context) },
  };
}

/**
 * The fixtures as `moon index` finds them: transcripts as they are; a Puffin history (puffin/*.json) where Puffin
 * keeps it, a project's `.puffin/history.json`.
 */
function copyTranscripts(fixtures, folder) {
  cpSync(fixtures, folder, { recursive: true, filter: (source) => !source.endsWith('.md') && !source.startsWith(join(fixtures, 'puffin')) });
  const puffin = join(fixtures, 'puffin');
  if (!existsSync(puffin)) return;
  for (const name of readdirSync(puffin).filter((file) => file.endsWith('.json'))) {
    const project = join(folder, 'puffin', name.replace(/\.json$/, ''), '.puffin');
    mkdirSync(project, { recursive: true });
    cpSync(join(puffin, name), join(project, 'history.json'));
  }
}

function scoredRow(q, turnRanked, sessionRanked) {
  const first = sessionRanked.findIndex((id) => q.goldSessions.includes(id));
  return {
    id: q.id,
    category: q.kind,
    turnRanked,
    sessionRanked,
    metrics: { sessAll5: recallAllAtK(sessionRanked, q.goldSessions, 5), mrr: first < 0 ? 0 : 1 / (first + 1), turnR10: recallAtK(turnRanked, q.goldTurns, 10) },
  };
}

/**
 * The baseline: one FTS5 document per session (porter unicode61), the text of every entry moon indexed for it (text
 * and tool result), the question's words OR-ed, sessions ranked by bm25(). It has no turns: turn recall is not given.
 */
function rankWholeSessions(home, questions, limit) {
  const Database = createRequire(join(REPO, 'package.json'))('better-sqlite3');
  const source = new Database(join(home, 'moon.db'), { readonly: true, fileMustExist: true });
  const db = new Database(':memory:');
  try {
    db.exec("CREATE VIRTUAL TABLE sessions USING fts5(text, session_id UNINDEXED, tokenize='porter unicode61')");
    const insert = db.prepare('INSERT INTO sessions (text, session_id) VALUES (?, ?)');
    const documents = source.prepare("SELECT session_id, group_concat(text || ' ' || coalesce(result, ''), ' ') AS text FROM entries GROUP BY session_id").all();
    db.transaction(() => {
      for (const row of documents) insert.run(row.text ?? '', row.session_id);
    })();
    const ranked = db.prepare('SELECT session_id AS id FROM sessions WHERE sessions MATCH ? ORDER BY bm25(sessions), rowid LIMIT ?');
    return questions.map((q) => {
      const match = ftsMatchQuery(q.question);
      const sessionRanked = match === '' ? [] : ranked.all(match, limit).map((row) => row.id);
      const row = scoredRow(q, [], sessionRanked);
      row.metrics.turnR10 = null;
      return row;
    });
  } finally {
    db.close();
    source.close();
  }
}

function aggregateByKind(rows) {
  const summarize = (subset) => {
    const out = { n: subset.length };
    for (const key of KEYS) {
      const values = subset.map((row) => row.metrics[key]).filter((value) => value !== null);
      out[key] = values.length === 0 ? null : mean(values);
    }
    return out;
  };
  return { byKind: Object.fromEntries(CODING_KINDS.map((kind) => [kind, summarize(rows.filter((row) => row.category === kind))])), overall: summarize(rows) };
}

function summaryLine(result) {
  const overall = result.aggregate.overall;
  return `session all@5 ${fmt(overall.sessAll5)}, MRR ${fmt(overall.mrr)}, turn R@10 ${fmt(overall.turnR10)}`;
}

function renderCodingReport({ questions, results, indexRuns, data, totalMs, measured }) {
  const baseline = results.find((result) => result.name === WHOLE_SESSION_BM25);
  const lines = [
    CODING_SECTION,
    '',
    `Measured ${measured} (\`node bench/recall-eval/run.mjs --dataset coding\`; part of \`npm run eval:recall\`). ` +
      'The set (bench/recall-eval/coding/README.md) asks about the real transcripts of the fixtures — 25 sessions, so the ' +
      'session figures sit near their ceiling and turn recall is the one that tells configurations apart.',
    '',
    `${questions.length} questions (${CODING_KINDS.map((kind) => `${kind} ${questions.filter((q) => q.kind === kind).length}`).join(', ')}) from ` +
      `\`${data.questionsFile.replace(`${REPO}/`, '')}\`, over every transcript of the fixtures folder indexed with \`moon index\` ` +
      `(${indexRuns.map((run) => `${run.engine}: ${run.entries} entries in ${(run.ms / 1000).toFixed(1)} s`).join('; ')}); run time ${(totalMs / 1000).toFixed(1)} s. ` +
      `Session all@5: every gold session in the top 5 sessions; MRR: of the first gold session; turn R@10: gold messages among the top 10 ` +
      `messages. \`${WHOLE_SESSION_BM25}\`: BM25 over whole sessions in the harness (no turns). In parentheses: the difference to it.`,
    '',
    '| config | session all@5 | MRR | turn R@10 |',
    '|---|---:|---:|---:|',
  ];
  const cell = (result, key) => {
    const value = result.aggregate.overall[key];
    return baseline && result !== baseline && baseline.aggregate.overall[key] !== null ? `${fmt(value)} (${fmtDelta(value, baseline.aggregate.overall[key])})` : fmt(value);
  };
  for (const result of results) lines.push(`| ${result.name} | ${cell(result, 'sessAll5')} | ${cell(result, 'mrr')} | ${cell(result, 'turnR10')} |`);
  lines.push('', '| kind | n | ' + results.map((result) => `${result.name} all@5 / MRR`).join(' | ') + ' |', `|---|---:|${results.map(() => '---:').join('|')}|`);
  for (const kind of CODING_KINDS) {
    const n = questions.filter((q) => q.kind === kind).length;
    lines.push(`| ${kind} | ${n} | ${results.map((result) => `${fmt(result.aggregate.byKind[kind].sessAll5)} / ${fmt(result.aggregate.byKind[kind].mrr)}`).join(' | ')} |`);
  }
  lines.push('');
  return lines.join('\n');
}
