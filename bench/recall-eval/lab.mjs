#!/usr/bin/env node
// A fast loop for ranking work on LongMemEval: index once, then ask every question in-process with some of the
// library's tuning constants overridden, and print the metrics per type (and, with --misses, the questions that
// miss and where their gold sessions ranked). Not a report: `npm run eval:recall` is the measurement of record.
//
//   node bench/recall-eval/lab.mjs prepare --dir DIR [--protocol pooled|per-question|both]
//   node bench/recall-eval/lab.mjs run --dir DIR [--protocol ...] [--set MODULE.EXPORT.KEY=JSON ...] [--misses] [--strategy bm25|hybrid]
//
// --opts JSON adds recall options to every question (e.g. '{"role":["user"]}').
// --set overrides a property of an exported object (or an exported array's element) of a built module, e.g.
// `--set search/recall.SIGNAL_WEIGHTS.trigram=0` or `--set search/fusion.FUSION.k=60`; the value is JSON.
// Build first (npm run build): the library is read from dist/.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO } from './convert.mjs';
import { baseEnvironment, indexHome } from './harness.mjs';
import { buildLmeQuestions, collectSessions, loadLongMemEval, resolveLongMemEvalFile, writeSessions } from './longmemeval.mjs';
import { rankedIds } from './longmemeval-run.mjs';
import { LME_METRIC_KEYS, LME_TYPES, aggregate, fmt, scoreLongMemEval } from './metrics.mjs';

const args = process.argv.slice(2);
const command = args[0];
const flag = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const flags = (name) => args.flatMap((arg, i) => (arg === `--${name}` ? [args[i + 1]] : []));
const dir = resolve(flag('dir', join(REPO, 'bench', 'out', 'lab')));
/** Embedding provider of the index (its own home: home-local, ...). */
const embed = flag('embed', 'none');
const homeName = embed === 'none' ? 'home' : `home-${embed}`;
const protocols = (flag('protocol', 'pooled') === 'both' ? ['pooled', 'per-question'] : [flag('protocol', 'pooled')]);
const raw = loadLongMemEval(resolveLongMemEvalFile(flag('lme-data', undefined)));
const { questions } = buildLmeQuestions(raw);

if (command === 'prepare') {
  for (const protocol of protocols) {
    if (protocol === 'pooled') prepare(join(dir, 'pooled'), [...collectSessions(raw).sessions.values()]);
    else for (const q of questions) prepare(join(dir, 'per-question', q.id), [...collectSessions(raw.filter((r) => r.question_id === q.id)).sessions.values()]);
  }
} else if (command === 'run') {
  await run();
} else {
  console.error('usage: lab.mjs prepare|run --dir DIR [--protocol pooled|per-question|both] [--set MODULE.EXPORT.KEY=JSON] [--misses]');
  process.exit(2);
}

function prepare(folder, sessions) {
  const home = join(folder, homeName);
  if (existsSync(join(home, 'moon.db'))) return;
  if (!existsSync(join(folder, 'transcripts'))) {
    mkdirSync(folder, { recursive: true });
    writeSessions(join(folder, 'transcripts'), sessions);
  }
  const env = { ...baseEnvironment(), MOON_EMBED_PROVIDER: embed };
  const { ms } = indexHome(join(folder, 'transcripts'), home, env);
  console.error(`indexed ${folder} (${sessions.length} sessions) in ${(ms / 1000).toFixed(1)} s`);
}

async function run() {
  for (const setting of flags('set')) await applySetting(setting);
  const lib = await import(pathToFileURL(join(REPO, 'dist', 'index.js')).href);
  const strategy = flag('strategy', 'hybrid');
  const extra = JSON.parse(flag('opts', '{}'));
  for (const protocol of protocols) {
    const rows = [];
    const homes = new Map();
    const open = (home) => {
      if (!homes.has(home)) homes.set(home, lib.createMoon(lib.loadConfig({ env: { ...baseEnvironment(), MOON_HOME: home, MOON_EMBED_PROVIDER: embed, MOON_RECALL_STRATEGY: strategy } })));
      return homes.get(home);
    };
    for (const q of questions) {
      const home = protocol === 'pooled' ? join(dir, 'pooled', homeName) : join(dir, 'per-question', q.id, homeName);
      const moon = open(home);
      const ask = (group) => moon.history.recall({ query: q.question, group, limit: 10, now: q.nowIso, tz: 'UTC', ...extra, ...(args.includes('--until-now') ? { until: q.nowIso } : {}) });
      const message = await ask('message');
      const session = await ask('session');
      const sessionRanked = rankedIds(session, 'session');
      rows.push({ q, category: q.type, sessionRanked, metrics: scoreLongMemEval({ turnRanked: rankedIds(message, 'message'), sessionRanked, goldTurns: q.goldTurns, goldSessions: q.goldSessions }) });
      if (protocol !== 'pooled') {
        await moon.close?.();
        homes.delete(home);
      }
    }
    for (const moon of homes.values()) await moon.close?.();
    const agg = aggregate(rows, LME_TYPES, LME_METRIC_KEYS);
    const line = (name, m) => `${name.padEnd(28)} n=${String(m.n).padStart(3)}  all@5 ${fmt(m.recallAll5)}  any@5 ${fmt(m.recallAny5)}  ndcg@5 ${fmt(m.ndcg5)}  turnR@10 ${fmt(m.turnR10)}`;
    console.log(`# ${protocol} (${strategy}${flags('set').length ? `; ${flags('set').join(' ')}` : ''})`);
    console.log(line('overall', agg.overall));
    for (const type of LME_TYPES) if (agg.byCategory[type.id]) console.log(line(type.id, agg.byCategory[type.id]));
    if (args.includes('--misses')) {
      for (const row of rows.filter((r) => r.metrics.recallAll5 < 1)) {
        const ranks = row.q.goldSessions.map((id) => `${id}@${row.sessionRanked.indexOf(id) + 1 || '-'}`);
        console.log(`  miss ${row.q.id} [${row.q.type}] ${ranks.join(' ')} :: ${row.q.question.slice(0, 140)}`);
      }
    }
    const dump = flag('dump', null);
    if (dump) writeFileSync(`${dump}.${protocol}.json`, JSON.stringify(rows.map((r) => ({ id: r.q.id, type: r.q.type, gold: r.q.goldSessions, ranked: r.sessionRanked, metrics: r.metrics }))));
  }
}

/** `module.EXPORT.key=json`: sets a property of an object or array a built module exports. */
async function applySetting(setting) {
  const eq = setting.indexOf('=');
  const path = setting.slice(0, eq);
  const value = JSON.parse(setting.slice(eq + 1));
  const [modulePath, ...keys] = path.split('.');
  const mod = await import(pathToFileURL(join(REPO, 'dist', `${modulePath}.js`)).href);
  let target = mod[keys[0]];
  for (const key of keys.slice(1, -1)) target = target[key];
  if (target === undefined || keys.length < 2) throw new Error(`--set ${setting}: ${keys[0]} is not an exported object of ${modulePath}`);
  target[keys.at(-1)] = value;
}

