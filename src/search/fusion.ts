import type { Entry } from '../model.js';
import type { Candidate, SessionField } from '../store/types.js';
import { selectIndexedText } from '../text/limits.js';
import type { TermMatch } from './matched-terms.js';

export type Signal = 'lexical' | 'trigram' | 'vector' | 'temporal' | 'session';

export interface SignalList {
  signal: Signal;
  weight: number;
  candidates: Candidate[];
  /** Each candidate's rank, when not its place in the list (the session signal: every message of a session shares its rank). */
  ranks?: readonly number[];
  /** Each candidate's share of the list's weight, when not all of it (the session signal: its session's coverage). */
  factors?: readonly number[];
}

export interface BoostContext {
  /** Lower-cased phrases whose exact presence is a strong signal (quoted phrases, the whole query). */
  phrases: { text: string; factor: number }[];
  /** Lower-cased words of the query, to match tool names. */
  words: Set<string>;
  /** Lower-cased path-like tokens of the query (`src/app.ts`, `wrangler.toml`). */
  paths: string[];
  /** Seed 000 §3.5 side-effect priority weighting. */
  priority: boolean;
  /** A soft time window: entries from its start up to now weigh more (a personal question's "last month"). */
  since?: { startMs: number; endMs: number; factor: number };
  /** The user's own statements of the query's words weigh more (a question about the user's own life). */
  userWords?: { factor: number; holds: (entry: Entry) => boolean };
}

export interface SignalContribution {
  rank: number;
  raw: number;
  contribution: number;
}

export interface Explanation {
  signals: Partial<Record<Signal, SignalContribution>>;
  boosts: { name: string; factor: number }[];
  fused: number;
  score: number;
  /** The query terms this entry holds and where (filled in for `--explain` only). */
  terms?: TermMatch[];
  /** The fields of the entry's session that matched, each with the terms it holds (the session signal). */
  session_fields?: { field: SessionField; terms: string[] }[];
}

export interface FusedCandidate {
  rowid: number;
  entry: Entry;
  score: number;
  explanation: Explanation;
}

/**
 * Reciprocal-rank constant. The textbook 60 flattens a single strong list (rank 1 and rank 10 differ by 14%);
 * 20 keeps rank information while still letting agreement between lists win (LoCoMo dev: +1 point turn
 * Recall@5 over 60; 5 and 1 were no better).
 */
export const FUSION = { k: 20 };

export const BOOSTS = {
  priorityHigh: 1.2,
  priorityNormalTool: 0.92,
  toolName: 1.25,
  path: 1.3,
} as const;

/**
 * Weighted reciprocal-rank fusion, then multiplicative boosts. `--explain` prints the Explanation this
 * function builds while scoring, so what is shown is what was computed. Scores are scaled by FUSION.k so that
 * first place in a weight-1 list contributes ~1.0.
 */
export function fuseSignals(lists: readonly SignalList[], boosts: BoostContext): FusedCandidate[] {
  const fused = new Map<number, FusedCandidate>();
  for (const list of lists) {
    list.candidates.forEach((candidate, index) => {
      const rank = list.ranks?.[index] ?? index + 1;
      const contribution = (list.weight * (list.factors?.[index] ?? 1) * FUSION.k) / (FUSION.k + rank);
      let item = fused.get(candidate.rowid);
      if (!item) {
        item = {
          rowid: candidate.rowid,
          entry: candidate.entry,
          score: 0,
          explanation: { signals: {}, boosts: [], fused: 0, score: 0 },
        };
        fused.set(candidate.rowid, item);
      }
      if (item.explanation.signals[list.signal]) return;
      item.explanation.signals[list.signal] = { rank, raw: round(candidate.score), contribution: round(contribution) };
      item.explanation.fused += contribution;
    });
  }
  for (const item of fused.values()) {
    item.explanation.boosts = computeBoosts(item.entry, boosts);
    const factor = item.explanation.boosts.reduce((product, boost) => product * boost.factor, 1);
    item.explanation.fused = round(item.explanation.fused);
    item.score = round(item.explanation.fused * factor);
    item.explanation.score = item.score;
  }
  return [...fused.values()].sort(
    (a, b) => b.score - a.score || (b.entry.ts ?? 0) - (a.entry.ts ?? 0) || a.rowid - b.rowid,
  );
}

export function computeBoosts(entry: Entry, context: BoostContext): { name: string; factor: number }[] {
  const boosts: { name: string; factor: number }[] = [];
  if (context.priority && entry.role === 'tool') {
    if (entry.priority === 'high') boosts.push({ name: 'priority:high', factor: BOOSTS.priorityHigh });
    else boosts.push({ name: 'priority:normal', factor: BOOSTS.priorityNormalTool });
  }
  if (entry.toolName && context.words.has(entry.toolName.toLowerCase())) {
    boosts.push({ name: `tool:${entry.toolName}`, factor: BOOSTS.toolName });
  }
  // The part of each field the index holds: a boost never reads more of a huge message than its match did.
  const haystack = `${selectIndexedText(entry.toolTarget ?? '')}\n${selectIndexedText(entry.text)}`.toLowerCase();
  const path = context.paths.find((candidate) => haystack.includes(candidate));
  if (path) boosts.push({ name: `path:${path}`, factor: BOOSTS.path });
  const body = entry.result ? `${haystack}\n${selectIndexedText(entry.result).toLowerCase()}` : haystack;
  const phrase = context.phrases.find((candidate) => body.includes(candidate.text));
  if (phrase) boosts.push({ name: `phrase:${phrase.text}`, factor: phrase.factor });
  const since = context.since;
  if (since && entry.ts !== null && entry.ts >= since.startMs && entry.ts < since.endMs) boosts.push({ name: 'time:since', factor: since.factor });
  const user = context.userWords;
  if (user && entry.role === 'user' && user.holds(entry)) boosts.push({ name: 'role:user', factor: user.factor });
  return boosts;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
