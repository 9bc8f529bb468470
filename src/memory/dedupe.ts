/**
 * When two long-term memory texts say the same thing: pure functions, no store. Exact duplicates have equal
 * normalised text (case, accents, markdown bullets and emphasis, punctuation and spacing ignored); near-exact
 * ones share almost every word (token-set Jaccard ≥ NEAR_DUPLICATE_OVERLAP) *in the same order*, so
 * "use pnpm, not npm" is never merged into "use npm, not pnpm".
 */
export const NEAR_DUPLICATE_OVERLAP = 0.8;
/** Below this many distinct words a text must match exactly: one word more or less changes a short sentence. */
const MIN_TOKENS_FOR_NEAR = 4;

export function normaliseMemoryText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, '')
    .replace(/[`*_~>#]/g, '')
    .replace(/[^\p{L}\p{N}\s]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The words of a text, in order of first occurrence (normalised, each once). */
export function memoryTokens(text: string): string[] {
  const normalised = normaliseMemoryText(text);
  return normalised === '' ? [] : [...new Set(normalised.split(' '))];
}

/** |A ∩ B| / |A ∪ B| of the two texts' word sets (1 for two empty texts). */
export function tokenSetOverlap(a: string, b: string): number {
  const left = new Set(memoryTokens(a));
  const right = new Set(memoryTokens(b));
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const token of left) if (right.has(token)) shared += 1;
  return shared / (left.size + right.size - shared);
}

export type DuplicateKind = 'exact' | 'near';

/** 'exact', 'near' or null: whether `a` and `b` are one memory. */
export function duplicateKind(a: string, b: string): DuplicateKind | null {
  const left = normaliseMemoryText(a);
  const right = normaliseMemoryText(b);
  if (left === right) return left === '' ? null : 'exact';
  const leftTokens = memoryTokens(a);
  const rightTokens = memoryTokens(b);
  if (Math.min(leftTokens.length, rightTokens.length) < MIN_TOKENS_FOR_NEAR) return null;
  if (tokenSetOverlap(a, b) < NEAR_DUPLICATE_OVERLAP) return null;
  // The shared words must come in the same order: the same words rearranged may say the opposite.
  const rightSet = new Set(rightTokens);
  const leftSet = new Set(leftTokens);
  const leftShared = leftTokens.filter((token) => rightSet.has(token));
  const rightShared = rightTokens.filter((token) => leftSet.has(token));
  return leftShared.join(' ') === rightShared.join(' ') ? 'near' : null;
}

/** The first candidate `text` duplicates (exact matches before near ones), or null. */
export function findDuplicate<T extends { text: string }>(text: string, candidates: readonly T[]): { match: T; kind: DuplicateKind } | null {
  let near: T | null = null;
  for (const candidate of candidates) {
    const kind = duplicateKind(text, candidate.text);
    if (kind === 'exact') return { match: candidate, kind };
    if (kind === 'near' && near === null) near = candidate;
  }
  return near ? { match: near, kind: 'near' } : null;
}
