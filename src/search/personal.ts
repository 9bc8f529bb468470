import type { TimeQuery } from './time-query.js';

/**
 * Questions about the asker's own life or words — "How many bikes do I own?", "Can you remind me what we said
 * about…", "What did I bake last weekend?" — are asked of a history where the answer is something the user once
 * said. Three levers apply to them alone (hybrid strategy), each measured on LongMemEval and LoCoMo
 * (docs/benchmarks.md, "Recall quality on LongMemEval"):
 * - the words that frame a request to an assistant are not searched as its topic;
 * - the user's own statements weigh more than the assistant's explanations around them;
 * - a past date is a soft window — a boost from its start up to now, not a filter — because people mention
 *   things after they happen ("I spent ten hours last month…" said this month). Questions about what was done
 *   ("what did we deploy last Saturday", "what happened at 05:39") keep seed 000's exact windows.
 */
export const PERSONAL_QUESTION = {
  /** Each lever can be switched off alone (bench/recall-eval/lab.mjs --set measures them that way). */
  frameWords: true,
  softWindow: true,
  /** Boost of entries from a past date's start up to now. */
  sinceFactor: 1.5,
  /** Boost of the user's own entries. */
  userFactor: 1.5,
};

const FIRST_PERSON = /(?<![\p{L}\p{N}_'’/.-])(?:i|i'm|i’m|i've|i’ve|i'd|i’d|i'll|i’ll|my|me|mine|myself)(?![\p{L}\p{N}_/.-])/iu;

/** The query speaks in the first person singular ("I", "my", "me"): it asks about the asker's own life or words. */
export function isPersonalQuestion(query: string): boolean {
  return FIRST_PERSON.test(query);
}

/**
 * Words that frame a request to an assistant rather than name its topic ("can you remind me", "any tips",
 * "how many"). Built from how the LongMemEval dev questions are asked; kept short, and only dropped from a
 * personal question — "What did Caroline recommend?" is about a recommendation.
 */
export const FRAME_WORDS = new Set(
  (
    'remind previous chat conversation conversations talked mentioned mention wondering currently suggest ' +
    'suggestions recommend recommendations tips advice thinking checking tell many much'
  ).split(' '),
);

/** The terms without frame words; all of them when nothing else is left. */
export function dropFrameWords(terms: string[]): string[] {
  if (!PERSONAL_QUESTION.frameWords) return terms;
  const kept = terms.filter((term) => !FRAME_WORDS.has(term.toLowerCase()));
  return kept.length > 0 ? kept : terms;
}

/** A soft window for a personal question's dates (calendar windows only): from the earliest start up to now. */
export function readSoftWindow(time: TimeQuery | null, nowMs: number): { startMs: number; endMs: number } | null {
  if (!PERSONAL_QUESTION.softWindow || !time || time.windows.length === 0 || time.daily.length > 0 || time.sessionRelative !== null) return null;
  const startMs = Math.min(...time.windows.map((window) => window.startMs));
  return startMs <= nowMs ? { startMs, endMs: nowMs + 1 } : null;
}
