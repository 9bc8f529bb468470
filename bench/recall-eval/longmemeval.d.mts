// Types for longmemeval.mjs (plain JS, no build step), so the TypeScript tests can import it under `strict`.
export interface LmeTurn {
  role: 'user' | 'assistant';
  content: string;
  has_answer?: boolean;
}
export interface LmeQuestionData {
  question_id: string;
  question_type: string;
  question: string;
  answer?: unknown;
  question_date: string;
  haystack_session_ids: string[];
  haystack_dates: string[];
  haystack_sessions: LmeTurn[][];
  answer_session_ids?: string[];
}
export interface LmeQuestion {
  id: string;
  type: string;
  question: string;
  nowIso: string;
  goldSessions: string[];
  goldTurns: string[];
}
export interface LmeSession {
  sessionId: string;
  turns: LmeTurn[];
  startMs: number;
  questionId?: string;
}
export const LME_FILE: string;
export const LME_CWD: string;
export function resolveLongMemEvalFile(override?: string | null): string;
export function loadLongMemEval(file: string, first?: number | null): LmeQuestionData[];
export function parseLmeDate(text: string): number;
export function turnIdFor(sessionId: string, index: number): string;
export function goldOf(question: LmeQuestionData): { sessions: string[]; turns: string[] };
export function buildLmeQuestions(raw: readonly LmeQuestionData[]): {
  questions: LmeQuestion[];
  skipped: string[];
  answerIdsDiffer: { questionId: string; gold: string[]; answerSessionIds: string[] }[];
};
export function collectSessions(raw: readonly LmeQuestionData[]): {
  sessions: Map<string, LmeSession & { questionId: string }>;
  repeats: number;
  contentConflicts: { sessionId: string; questionId: string }[];
  dateVariants: string[];
};
export function sessionRecords(session: LmeSession): Record<string, unknown>[];
export function writeSessions(folder: string, sessions: Iterable<LmeSession>): { files: number; turns: number };
export function goldCopies(sessions: Map<string, LmeSession>, goldIds: Iterable<string>): { sessionId: string; copies: string[] }[];
