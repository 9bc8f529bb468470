// Markdown for the LongMemEval part of a recall-eval run (the report in bench/out/ and the docs section).
import { describeEnv, machineLine, renderSectionHead } from './harness.mjs';
import { LME_METRIC_KEYS, LME_TYPES, fmt, fmtDelta } from './metrics.mjs';

export const LME_SECTION = '## Recall quality on LongMemEval (dev split)';

const LABELS = {
  recallAll5: 'session recall_all@5',
  recallAny5: 'session recall_any@5',
  ndcg5: 'session NDCG@5',
  turnR10: 'turn recall@10',
};
const PROTOCOL_TITLES = {
  pooled: 'Pooled: one index holding every haystack',
  'per-question': 'Per question: a fresh index of its own haystack',
};
/** Largest |pg − sqlite| allowed on any figure: the engines rank the same way. */
const ENGINE_TOLERANCE = 0.005;

export function renderLmeReport(context) {
  return [
    `# Recall quality on LongMemEval (dev split) — ${context.startedAt.toISOString()}`,
    '',
    `Machine: ${machineLine(context.machine)}. Run time (LongMemEval part): ${(context.totalMs / 1000).toFixed(1)} s.`,
    '',
    `Command: \`${context.command}\``,
    '',
    renderBody(context, 2),
  ].join('\n');
}

export function renderLmeDocsSection(context) {
  return [...renderSectionHead(LME_SECTION, context, 'the LongMemEval part of the run'), renderBody(context, 3)].join('\n');
}

function renderBody(context, level) {
  const h = '#'.repeat(level);
  const parts = [`${h} Overall`, '', overallTable(context.outcomes), '', overallNote(), '', ...engineLines(context.outcomes)];
  for (const outcome of context.outcomes) {
    parts.push(`${h} ${PROTOCOL_TITLES[outcome.protocol]}`, '', protocolLines(outcome, context).join('\n'), '');
    for (const result of outcome.results) parts.push(`${h}# ${outcome.protocol} — ${result.name}: per question type`, '', typeTable(result), '');
  }
  parts.push(`${h} Method`, '', methodText(context), '', referenceFigures(), '');
  return parts.join('\n');
}

/** One row per protocol and config; each figure with its difference to bm25 of the same protocol. */
function overallTable(outcomes) {
  const header = `| protocol | config | ${LME_METRIC_KEYS.map((key) => LABELS[key]).join(' | ')} | CLI batch s (message + session) | ms / query |`;
  const rule = `|---|---|${LME_METRIC_KEYS.map(() => '---:').join('|')}|---:|---:|`;
  const rows = [];
  for (const outcome of outcomes) {
    const baseline = outcome.results.find((result) => result.name === 'bm25');
    for (const result of outcome.results) {
      const cells = LME_METRIC_KEYS.map((key) => {
        const value = result.aggregate.overall[key];
        return result === baseline ? fmt(value) : `${fmt(value)} (${fmtDelta(value, baseline.aggregate.overall[key])})`;
      });
      const batch = cliTotals(result);
      rows.push(`| ${outcome.protocol} | ${result === baseline ? 'bm25 (baseline)' : result.name} | ${cells.join(' | ')} | ${batch ? (batch.ms / 1000).toFixed(2) : '—'} | ${batch ? fmt(batch.ms / batch.queries, 1) : '—'} |`);
    }
  }
  return [header, rule, ...rows].join('\n');
}

function overallNote() {
  return [
    'Session figures are over the top 5 sessions of `"group": "session"`; turn recall@10 over the top 10 messages of `"group": "message"`. In parentheses: the difference to bm25 in the same protocol.',
    `CLI batch time: the wall time of every \`moon recall --batch\` process of the config (one per index and level), process start included; ms / query divides it by the queries (per question, each process answers one query, so process start dominates). ${'`'}fts5-naive${'`'} runs inside the harness: its time is in the protocol's notes.`,
  ].join(' ');
}

function cliTotals(result) {
  if (!result.cli) return null;
  const ms = result.cli.message.ms + result.cli.session.ms;
  const queries = result.cli.message.queries + result.cli.session.queries;
  return queries > 0 ? { ms, queries } : null;
}

function typeTable(result) {
  const header = `| question type | n | ${LME_METRIC_KEYS.map((key) => LABELS[key]).join(' | ')} |`;
  const rule = `|---|---:|${LME_METRIC_KEYS.map(() => '---:').join('|')}|`;
  const line = (label, summary) => `| ${label} | ${summary.n} | ${LME_METRIC_KEYS.map((key) => fmt(summary[key])).join(' | ')} |`;
  return [header, rule, ...LME_TYPES.map((type) => line(type.name, result.aggregate.byCategory[type.id])), line('**overall**', result.aggregate.overall)].join('\n');
}

function sum(values) {
  return values.reduce((total, value) => total + value, 0);
}

/** Index runs, coverage, batch times and anything odd, for one protocol. */
function protocolLines(outcome, context) {
  const lines = [];
  const keys = [...new Set(outcome.indexRuns.map((run) => run.keyIndex))];
  for (const keyIndex of keys) {
    const runs = outcome.indexRuns.filter((run) => run.keyIndex === keyIndex);
    const { configs, engine } = runs[0];
    if (outcome.protocol === 'pooled') {
      const run = runs[0];
      lines.push(
        `- index for ${configs.join(', ')} (${engine}): \`moon index\` of ${outcome.written.files} sessions, ${outcome.written.turns} turns in ${(run.ms / 1000).toFixed(1)} s wall: ${run.entries} entries, ${run.filtered} filtered${run.warnings ? `, ${run.warnings} warnings` : ''}${typeof run.dbBytes === 'number' ? `, ${(run.dbBytes / 1e6).toFixed(1)} MB` : ''}`,
      );
    } else {
      const ms = runs.map((run) => run.ms);
      lines.push(
        `- index for ${configs.join(', ')} (${engine}): ${runs.length} fresh homes${engine === 'postgres' ? ' (one database each)' : ''}, ${outcome.written.files} sessions and ${outcome.written.turns} turns in all; \`moon index\` ${(sum(ms) / 1000).toFixed(1)} s wall in all (mean ${(sum(ms) / runs.length / 1000).toFixed(2)} s, max ${(Math.max(...ms) / 1000).toFixed(2)} s per question): ${sum(runs.map((run) => run.entries))} entries (mean ${Math.round(sum(runs.map((run) => run.entries)) / runs.length)}), ${sum(runs.map((run) => run.filtered))} filtered${sum(runs.map((run) => run.warnings)) ? `, ${sum(runs.map((run) => run.warnings))} warnings` : ''}`,
      );
    }
  }
  for (const result of outcome.results) {
    if (!result.cli) {
      lines.push(`- ${result.name}: FTS5 indexes built and searched in the harness in ${(result.ms / 1000).toFixed(1)} s (${outcome.units} index${outcome.units === 1 ? '' : 'es'})`);
      continue;
    }
    const { message, session } = result.cli;
    const notes = [];
    if (result.emptyMessage || result.emptySession) notes.push(`${result.emptyMessage} message-level and ${result.emptySession} session-level queries returned nothing`);
    if (result.multiIdMatches) notes.push(`${result.multiIdMatches} message-level matches carried ≠ 1 message id`);
    if (message.errors + session.errors) notes.push(`${message.errors + session.errors} batch lines were errors`);
    lines.push(
      `- ${result.name}: \`recall --batch\` message-level ${(message.ms / 1000).toFixed(2)} s for ${message.queries} queries in ${message.processes} process${message.processes === 1 ? '' : 'es'} (max ${(message.maxMs / 1000).toFixed(2)} s), session-level ${(session.ms / 1000).toFixed(2)} s in ${session.processes} (max ${(session.maxMs / 1000).toFixed(2)} s)${notes.length ? `; ${notes.join('; ')}` : ''}`,
    );
  }
  const { coverage } = outcome;
  if (coverage.checked) {
    lines.push(
      coverage.missingGold.length === 0
        ? '- coverage: every gold turn is in the index'
        : `- coverage: ${coverage.missingGold.length} gold turns are not in the index (${coverage.missingGold.slice(0, 8).map((m) => m.turn).join(', ')}${coverage.missingGold.length > 8 ? ', …' : ''}), in ${new Set(coverage.missingGold.map((m) => m.questionId)).size} questions`,
    );
  }
  lines.push(`- protocol wall time: ${(outcome.ms / 1000).toFixed(1)} s (moon: index and recall ${(outcome.moonMs / 1000).toFixed(1)} s; the rest is fts5-naive)`);
  return lines;
}

/** The --postgres configs against the SQLite configs they mirror, per protocol. */
function engineLines(outcomes) {
  const lines = [];
  for (const outcome of outcomes) {
    for (const pg of outcome.results.filter((result) => result.pgTwinOf)) {
      const lite = outcome.results.find((result) => result.name === pg.pgTwinOf);
      if (!lite) continue;
      const maxAbs = Math.max(0, ...LME_METRIC_KEYS.map((key) => Math.abs((pg.aggregate.overall[key] ?? 0) - (lite.aggregate.overall[key] ?? 0))));
      const same = lite.rows.filter((row, index) => JSON.stringify([row.turnRanked, row.sessionRanked]) === JSON.stringify([pg.rows[index].turnRanked, pg.rows[index].sessionRanked])).length;
      lines.push(`- ${outcome.protocol}, **${pg.name} vs ${lite.name}**: largest |Δ| ${maxAbs.toFixed(4)}${maxAbs <= ENGINE_TOLERANCE ? ' ✅' : ' ❌'} (target ≤ ${ENGINE_TOLERANCE}); identical rankings (turns and sessions) for ${same}/${lite.rows.length} questions`);
    }
  }
  return lines.length ? [...lines, ''] : [];
}

function methodText(context) {
  const { data, configs, options } = context;
  const types = LME_TYPES.map((type) => `${type.name} ${data.types[type.id]}`).join(', ');
  const lines = [
    `Data: LongMemEval_S dev split (\`${data.file.split('/').slice(-2).join('/')}\`, MIT): ${data.questions} questions${options.questions ? ` (the first ${data.loaded} of the file, --questions ${options.questions})` : ''} — ${types}; ${data.sessions} distinct haystack sessions, ${data.turns} turns. A question's gold sessions are the haystack sessions holding a turn marked \`has_answer\`, its gold turns those turns${data.skipped.length ? `; ${data.skipped.length} questions without any were skipped (${data.skipped.join(', ')})` : ' (every question has at least one)'}.`,
    `Each haystack session became one Claude Code JSONL transcript: one record per turn (user → user record, assistant → assistant record with its own \`message.id\` and \`requestId\`), uuid \`<session_id>:<turn index>\`, \`sessionId\` = the haystack session id, cwd \`/longmemeval\`, text = the turn's content, timestamps = the haystack date read as UTC + 30 s per turn.`,
    `Pooled: every distinct session written once (${data.repeats} later occurrences of a session id skipped; ${data.contentConflicts.length === 0 ? 'none with different content' : `${data.contentConflicts.length} with different content — the first kept: ${data.contentConflicts.slice(0, 5).map((c) => `${c.sessionId} in ${c.questionId}`).join(', ')}`}; ${data.dateVariants.length} session ids appear with another start date in another haystack — the first date is kept), indexed into one home; each question asked against all of it, no project filter. Per question: a fresh home indexing only that question's haystack, with its own dates; a session id repeated within a haystack is written once.`,
    `Every question was asked through \`moon recall --batch\` (one process per home, config and level): the question text as the query, \`"limit": ${options.limit}\`, \`"now"\` = \`question_date\` (UTC), \`"tz": "UTC"\`; \`"group": "session"\` for the session metrics, \`"group": "message"\` for turn recall@10.`,
    'Metrics per question, averaged per type and overall: session recall_all@5 (1 if every gold session is in the top 5 sessions), recall_any@5 (1 if any is), NDCG@5 over sessions (binary relevance), turn recall@10 (the fraction of gold turns among the top 10 messages).',
    "fts5-naive, the reference computed by the harness (not moon): one SQLite FTS5 table per index (`tokenize='porter unicode61'`), one row per turn (its content); the question's whitespace-separated words, each quoted, OR-ed (words with no letter or digit dropped); turns ranked by `bm25()`, sessions by their best turn.",
  ];
  const { pooled: copiesPooled, perQuestion: copiesOwn } = data.goldCopies;
  lines.push(
    `Copies: ${copiesPooled.length} gold sessions have a word-for-word copy (the same turns, without the \`has_answer\` marks) under another session id in the pooled index${copiesPooled.length ? ` (${copiesPooled.slice(0, 4).map((c) => `${c.sessionId} = ${c.copies.join(', ')}`).join('; ')}${copiesPooled.length > 4 ? '; …' : ''})` : ''}: there the copy ranks like the gold session but counts as a miss. Within a question's own haystack: ${copiesOwn.length}.`,
  );
  if (data.answerIdsDiffer.length) {
    lines.push(
      `Note: for ${data.answerIdsDiffer.length} questions \`answer_session_ids\` lists sessions with no \`has_answer\` turn (${data.answerIdsDiffer.map((d) => d.questionId).join(', ')}); the gold follows \`has_answer\`, as in the paper.`,
    );
  }
  lines.push(
    `Configs: ${configs.map((config) => `**${config.name}** (${describeEnv(config.env) || 'product defaults'})`).join(', ')}; every config: MOON_RESIDENTIAL_TIMEZONE=UTC${context.inherited.length ? `; inherited: ${context.inherited.join(', ')}` : ''}.`,
  );
  return lines.join('\n\n');
}

function referenceFigures() {
  return [
    'Reference figures (from `../shared/eval/README.md`, for context — different setups, not directly comparable):',
    '- LongMemEval paper (Wu et al., ICLR 2025), session Recall@5 on LongMemEval_M (~500 sessions per question): BM25 0.634, Contriever 0.723, Stella 0.720; time-aware query expansion +7–11 % on temporal questions.',
  ].join('\n');
}
