import { extractTextTerms, KIND_WEIGHT } from '../normalize/keywords.js';
import { sliceHead } from '../text/limits.js';
import { DEFAULT_MAX_TOKENS, type CompleteOptions, type Provider } from './provider.js';

export const LOCAL_MODEL = 'extractive';
export const CHARS_PER_TOKEN = 4;
const INPUT_MARKER = /^INPUT:[ \t]*/u;
/** Enough of a sentence to score it; the rest would not change its terms' ranking. */
const SCORED_CHARS = 2_000;

/**
 * The `local` provider: no model, no network, the same answer for the same prompt every time. It picks the most
 * salient sentences of the prompt's input and returns them in their original order.
 *
 * - **Input.** The text after the last line that starts with `INPUT:` (the rest of that line included); without
 *   such a line, the whole prompt. Instructions above the marker are for generative models and are ignored, as is
 *   `system`.
 * - **Salience.** The input is cut into lines, and lines into sentences; repeats are dropped. A sentence scores
 *   the sum, over its distinct terms (moon's keyword rules: stopwords out, paths, commands and identifiers
 *   weighted up), of the term's kind weight × log2(1 + the number of sentences holding the term), divided by the
 *   square root of its term count — central, specific sentences first, long ones not favoured for length alone.
 *   Sentences without a term are left out.
 * - **Bound.** At most `maxTokens × 4` characters (4 characters a token, roughly): sentences are taken best first
 *   until the next one would not fit — never a weaker sentence in place of a stronger one left out. When not
 *   even the best fits, its head, cut at a word and marked `…`.
 * - **JSON.** With `json`, the answer is `{"summary": "<sentences, one a line>"}`, the whole object within the
 *   bound (the empty object `{"summary":""}` is the least it returns).
 */
export class LocalProvider implements Provider {
  readonly name = 'local' as const;
  readonly model = LOCAL_MODEL;
  readonly generative = false;

  complete(prompt: string, options: CompleteOptions = {}): Promise<string> {
    return Promise.resolve(summarizeExtractively(prompt, options));
  }
}

export function createLocalProvider(): LocalProvider {
  return new LocalProvider();
}

/** The local provider's answer, synchronously. */
export function summarizeExtractively(prompt: string, options: CompleteOptions = {}): string {
  const maxChars = Math.max(1, Math.floor(options.maxTokens ?? DEFAULT_MAX_TOKENS)) * CHARS_PER_TOKEN;
  const render = options.json ? (lines: string[]) => JSON.stringify({ summary: lines.join('\n') }) : (lines: string[]) => lines.join('\n');
  const units = splitSentences(selectInput(prompt));
  const ranked = rankSentences(units);
  // Lengths add up: a sentence's rendered length (JSON-escaped in JSON mode) plus a separator between two.
  const cost = units.map((unit) => (options.json ? JSON.stringify(unit).length - 2 : unit.length));
  const separator = options.json ? 2 : 1;
  let used = render([]).length;
  const chosen: number[] = [];
  for (const index of ranked) {
    const extra = cost[index]! + (chosen.length > 0 ? separator : 0);
    if (used + extra > maxChars) break;
    chosen.push(index);
    used += extra;
  }
  if (chosen.length === 0 && ranked.length > 0) return render([cutToFit(units[ranked[0]!]!, (head) => render([head]).length <= maxChars)]);
  return render(chosen.sort((a, b) => a - b).map((i) => units[i]!));
}

/** The text after the last `INPUT:` line, or the whole prompt. */
export function selectInput(prompt: string): string {
  const lines = prompt.split(/\r?\n/u);
  for (let i = lines.length - 1; i >= 0; i--) {
    if (INPUT_MARKER.test(lines[i]!)) return [lines[i]!.replace(INPUT_MARKER, ''), ...lines.slice(i + 1)].join('\n');
  }
  return prompt;
}

/** Lines, then sentences within a line (a stop, `!` or `?` followed by space); trimmed, blanks and repeats dropped. */
function splitSentences(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const line of text.split(/\r?\n/u)) {
    for (const piece of line.split(/(?<=[.!?])\s+(?=\S)/u)) {
      const sentence = piece.replace(/\s+/gu, ' ').trim();
      if (sentence === '' || seen.has(sentence)) continue;
      seen.add(sentence);
      out.push(sentence);
    }
  }
  return out;
}

/** Indices of the sentences that hold a term, best first (ties: earlier first). */
function rankSentences(sentences: readonly string[]): number[] {
  const termsOf = sentences.map((sentence) => {
    const terms = new Map<string, number>();
    for (const { term, kind } of extractTextTerms(sliceHead(sentence, SCORED_CHARS))) {
      terms.set(term, Math.max(terms.get(term) ?? 0, KIND_WEIGHT[kind]));
    }
    return terms;
  });
  const spread = new Map<string, number>();
  for (const terms of termsOf) for (const term of terms.keys()) spread.set(term, (spread.get(term) ?? 0) + 1);
  const scores = termsOf.map((terms) => {
    let sum = 0;
    for (const [term, weight] of terms) sum += weight * Math.log2(1 + spread.get(term)!);
    return terms.size === 0 ? 0 : sum / Math.sqrt(terms.size);
  });
  return scores
    .map((score, index) => ({ score, index }))
    .filter((item) => item.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((item) => item.index);
}

/** The longest head of `text` that `fits`, cut after a word where there is one, marked `…`; '' when nothing fits. */
function cutToFit(text: string, fits: (head: string) => boolean): string {
  let low = 0;
  let high = text.length;
  // Binary search on the head's length: JSON escaping makes the rendered length grow unevenly.
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(`${sliceHead(text, mid)}…`)) low = mid;
    else high = mid - 1;
  }
  if (low === 0) return '';
  const head = sliceHead(text, low);
  const space = head.lastIndexOf(' ');
  return `${(space > head.length / 2 ? head.slice(0, space) : head).trimEnd()}…`;
}
