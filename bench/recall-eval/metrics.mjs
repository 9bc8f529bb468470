// Pure metric functions for the recall evaluation. No I/O; tested in test/bench/recall-eval-metrics.test.ts.

/** LoCoMo question categories, per the official evaluation code. */
export const CATEGORIES = [
  { id: 1, name: 'multi-hop' },
  { id: 2, name: 'temporal' },
  { id: 3, name: 'open-domain' },
  { id: 4, name: 'single-hop' },
  { id: 5, name: 'adversarial' },
];

/** The per-question metrics, in report order. */
export const METRIC_KEYS = ['turnR1', 'turnR5', 'turnR10', 'ndcg10', 'sessR1', 'sessR5', 'sessR10'];

/** LongMemEval question types (the dev split has every one; no abstention questions). */
export const LME_TYPES = [
  { id: 'multi-session', name: 'multi-session' },
  { id: 'temporal-reasoning', name: 'temporal-reasoning' },
  { id: 'knowledge-update', name: 'knowledge-update' },
  { id: 'single-session-user', name: 'single-session-user' },
  { id: 'single-session-assistant', name: 'single-session-assistant' },
  { id: 'single-session-preference', name: 'single-session-preference' },
];

/** LongMemEval's per-question metrics, in report order (the paper's session metrics at 5, plus turn recall@10). */
export const LME_METRIC_KEYS = ['recallAll5', 'recallAny5', 'ndcg5', 'turnR10'];

/** Ranked ids with later duplicates removed (a duplicate can neither earn credit twice nor push others out). */
export function dedupeRanked(ranked) {
  const seen = new Set();
  const out = [];
  for (const id of ranked) {
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
  }
  return out;
}

/**
 * Fraction of the relevant ids found in the first k ranked ids. null when nothing is relevant (the question is
 * then left out of the average rather than counted as 0 or 1).
 */
export function recallAtK(ranked, relevant, k) {
  const wanted = new Set(relevant);
  if (wanted.size === 0) return null;
  if (!Number.isInteger(k) || k <= 0) throw new RangeError(`k must be a positive integer, got ${k}`);
  let found = 0;
  for (const id of dedupeRanked(ranked).slice(0, k)) if (wanted.has(id)) found += 1;
  return found / wanted.size;
}

/** 1 when every relevant id is in the first k ranked ids, else 0; null when nothing is relevant. */
export function recallAllAtK(ranked, relevant, k) {
  const wanted = new Set(relevant);
  if (wanted.size === 0) return null;
  if (!Number.isInteger(k) || k <= 0) throw new RangeError(`k must be a positive integer, got ${k}`);
  const top = new Set(dedupeRanked(ranked).slice(0, k));
  return [...wanted].every((id) => top.has(id)) ? 1 : 0;
}

/** 1 when any relevant id is in the first k ranked ids, else 0; null when nothing is relevant. */
export function hitAtK(ranked, relevant, k) {
  const wanted = new Set(relevant);
  if (wanted.size === 0) return null;
  return dedupeRanked(ranked).slice(0, k).some((id) => wanted.has(id)) ? 1 : 0;
}

/**
 * NDCG@k with binary relevance: DCG = Σ rel_i / log2(i + 1) over ranks i = 1..k, divided by the DCG of the ideal
 * ranking (min(|relevant|, k) relevant ids first). null when nothing is relevant.
 */
export function ndcgAtK(ranked, relevant, k) {
  const wanted = new Set(relevant);
  if (wanted.size === 0) return null;
  if (!Number.isInteger(k) || k <= 0) throw new RangeError(`k must be a positive integer, got ${k}`);
  let dcg = 0;
  dedupeRanked(ranked)
    .slice(0, k)
    .forEach((id, index) => {
      if (wanted.has(id)) dcg += 1 / Math.log2(index + 2);
    });
  let ideal = 0;
  for (let index = 0; index < Math.min(wanted.size, k); index++) ideal += 1 / Math.log2(index + 2);
  return dcg / ideal;
}

/** Mean of the non-null numbers; null when there are none. */
export function mean(values) {
  const numbers = values.filter((value) => typeof value === 'number' && Number.isFinite(value));
  if (numbers.length === 0) return null;
  return numbers.reduce((sum, value) => sum + value, 0) / numbers.length;
}

/** Nearest-rank percentile (p in 0..100) of the numbers; null for an empty list. */
export function percentile(values, p) {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`p must be within 0..100, got ${p}`);
  const sorted = values.filter((value) => typeof value === 'number' && Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

/**
 * Every metric of one question.
 *   turnRanked:    the dia_ids of the message-level results, best first (ids of other conversations: null/absent)
 *   sessionRanked: the session numbers of the session-level results, best first
 *   evidence:      the question's evidence dia_ids; evidenceSessions: its evidence session numbers
 */
export function scoreQuestion({ turnRanked, sessionRanked, evidence, evidenceSessions }) {
  return {
    turnR1: recallAtK(turnRanked, evidence, 1),
    turnR5: recallAtK(turnRanked, evidence, 5),
    turnR10: recallAtK(turnRanked, evidence, 10),
    ndcg10: ndcgAtK(turnRanked, evidence, 10),
    sessR1: recallAtK(sessionRanked, evidenceSessions, 1),
    sessR5: recallAtK(sessionRanked, evidenceSessions, 5),
    sessR10: recallAtK(sessionRanked, evidenceSessions, 10),
  };
}

/**
 * Every metric of one LongMemEval question.
 *   turnRanked:    the message ids of the message-level results, best first
 *   sessionRanked: the session ids of the session-level results, best first
 *   goldTurns:     the ids of its turns marked has_answer; goldSessions: the sessions holding them
 * Session metrics at 5 (recall_all, recall_any, NDCG, binary relevance), turn recall at 10.
 */
export function scoreLongMemEval({ turnRanked, sessionRanked, goldTurns, goldSessions }) {
  return {
    recallAll5: recallAllAtK(sessionRanked, goldSessions, 5),
    recallAny5: hitAtK(sessionRanked, goldSessions, 5),
    ndcg5: ndcgAtK(sessionRanked, goldSessions, 5),
    turnR10: recallAtK(turnRanked, goldTurns, 10),
  };
}

/**
 * Averages per category and overall. rows: [{ category, metrics: { turnR1, ... } }]; `keys`: the metrics to
 * average (LoCoMo's by default; LME_METRIC_KEYS with LME_TYPES, whose ids are the question types).
 * Returns { byCategory: { [id]: { n, turnR1, ... } }, overall: { n, turnR1, ... } }.
 */
export function aggregate(rows, categories = CATEGORIES, keys = METRIC_KEYS) {
  const summarize = (subset) => {
    const out = { n: subset.length };
    for (const key of keys) out[key] = mean(subset.map((row) => row.metrics[key]));
    return out;
  };
  const byCategory = {};
  for (const category of categories) byCategory[category.id] = summarize(rows.filter((row) => row.category === category.id));
  return { byCategory, overall: summarize(rows) };
}

/** "0.712" / "—" for null. */
export function fmt(value, digits = 3) {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(digits) : '—';
}

/** "+0.041" / "−0.012" / "±0.000" / "—" — a signed difference. */
export function fmtDelta(value, base, digits = 3) {
  if (typeof value !== 'number' || typeof base !== 'number' || !Number.isFinite(value) || !Number.isFinite(base)) return '—';
  const delta = value - base;
  const text = Math.abs(delta).toFixed(digits);
  if (Number(text) === 0) return `±${text}`;
  return `${delta > 0 ? '+' : '−'}${text}`;
}
