// Types for metrics.mjs (plain JS, no build step), so the TypeScript tests can import it under `strict`.
export interface Category<Id = number> {
  id: Id;
  name: string;
}
export type MetricKey = 'turnR1' | 'turnR5' | 'turnR10' | 'ndcg10' | 'sessR1' | 'sessR5' | 'sessR10';
export type QuestionMetrics = Record<MetricKey, number | null>;
export type Summary = { n: number } & QuestionMetrics;
export type RankedId = string | number;
export type LmeType =
  | 'multi-session'
  | 'temporal-reasoning'
  | 'knowledge-update'
  | 'single-session-user'
  | 'single-session-assistant'
  | 'single-session-preference';
export type LmeMetricKey = 'recallAll5' | 'recallAny5' | 'ndcg5' | 'turnR10';
export type LmeMetrics = Record<LmeMetricKey, number | null>;

export const CATEGORIES: Category[];
export const METRIC_KEYS: MetricKey[];
export const LME_TYPES: Category<LmeType>[];
export const LME_METRIC_KEYS: LmeMetricKey[];
export function dedupeRanked<T>(ranked: readonly T[]): T[];
export function recallAtK(ranked: readonly RankedId[], relevant: Iterable<RankedId>, k: number): number | null;
export function recallAllAtK(ranked: readonly RankedId[], relevant: Iterable<RankedId>, k: number): 0 | 1 | null;
export function hitAtK(ranked: readonly RankedId[], relevant: Iterable<RankedId>, k: number): 0 | 1 | null;
export function ndcgAtK(ranked: readonly RankedId[], relevant: Iterable<RankedId>, k: number): number | null;
export function mean(values: readonly (number | null | undefined)[]): number | null;
export function percentile(values: readonly number[], p: number): number | null;
export function scoreQuestion(input: {
  turnRanked: readonly RankedId[];
  sessionRanked: readonly RankedId[];
  evidence: readonly string[];
  evidenceSessions: readonly number[];
}): QuestionMetrics;
export function scoreLongMemEval(input: {
  turnRanked: readonly RankedId[];
  sessionRanked: readonly RankedId[];
  goldTurns: readonly string[];
  goldSessions: readonly string[];
}): LmeMetrics;
export function aggregate(
  rows: readonly { category: number; metrics: QuestionMetrics }[],
  categories?: readonly Category[],
): { byCategory: Record<number, Summary>; overall: Summary };
export function aggregate<Id extends string | number, Key extends string>(
  rows: readonly { category: Id; metrics: Record<Key, number | null> }[],
  categories: readonly Category<Id>[],
  keys: readonly Key[],
): { byCategory: Record<Id, { n: number } & Record<Key, number | null>>; overall: { n: number } & Record<Key, number | null> };
export function fmt(value: number | null | undefined, digits?: number): string;
export function fmtDelta(value: number | null | undefined, base: number | null | undefined, digits?: number): string;
