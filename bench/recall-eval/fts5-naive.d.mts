// Types for fts5-naive.mjs (plain JS, no build step), so the TypeScript tests can import it under `strict`.
import type { LmeSession } from './longmemeval.mjs';

export interface FtsRanking {
  turnRanked: string[];
  sessionRanked: string[];
}
export function ftsMatchQuery(text: string | null | undefined): string;
export function rankFromTurns(rows: Iterable<{ sessionId: string; turn: number }>, limit: number): FtsRanking;
export function createFtsIndex(sessions: Iterable<LmeSession>): { search(question: string, limit: number): FtsRanking; close(): void };
