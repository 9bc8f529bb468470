import type { Entry } from '../model.js';
import { buildEntryDocument } from '../store/index-document.js';
import { tokenizeFts } from '../text/fts-tokens.js';
import { selectIndexedText } from '../text/limits.js';
import { isTechnical } from '../text/technical.js';

/** Where in an entry a query term was found: its text, the tool result, the tool name or target, or an identifier's part. */
export type MatchField = 'text' | 'result' | 'tool' | 'target' | 'identifiers';

export interface TermMatch {
  term: string;
  /** The entry's own fields that hold it; empty when only a neighbour does, or nothing. */
  fields: MatchField[];
  /** Ids of the neighbouring entries whose text holds it (the index's context column), when the entry does not. */
  neighbours?: string[];
  /** False when neither the entry nor a neighbour holds it: it added nothing to this match. */
  matched: boolean;
}

/**
 * Which query terms an entry holds, and where — what `--explain` shows beside the signals. A term counts in a
 * field as the indexes find it: its words, stemmed as the word index stems them, in a row (`tokenizeFts`); a
 * substring of the field (the substring index, for technical terms); or, as a word cut short, the start of a
 * word. A term the entry lacks is looked for in `neighbours` (the entries whose text the index adds to this one's
 * context column); one that none holds is reported as not matched — never guessed to be in a neighbour.
 */
export function findMatchedTerms(entry: Entry, terms: readonly string[], neighbours: readonly Entry[] = []): TermMatch[] {
  const fieldTokens = indexedFields(entry).map(([name, value]) => [name, value.toLowerCase(), tokenizeFts(value)] as const);
  // The index's identifier column itself: identifiers cut at their case changes and separators.
  const identifiers = tokenizeFts(buildEntryDocument(entry).keywords);
  const neighbourTokens = neighbours.map((neighbour) => {
    const text = selectIndexedText(neighbour.text);
    return [neighbour.id, text.toLowerCase(), tokenizeFts(text)] as const;
  });
  return [...new Set(terms.map((term) => term.toLowerCase()))].map((term) => {
    const wanted = tokenizeFts(term);
    const holds = makeTermTest(term);
    const found: MatchField[] = fieldTokens.filter(([, lowered, tokens]) => holds(lowered, tokens)).map(([name]) => name);
    if (found.length === 0 && wanted.length > 0 && containsRun(identifiers, wanted)) found.push('identifiers');
    if (found.length > 0) return { term, fields: found, matched: true };
    const near = neighbourTokens.filter(([, lowered, tokens]) => holds(lowered, tokens)).map(([id]) => id);
    return near.length > 0 ? { term, fields: [], neighbours: near, matched: true } : { term, fields: [], matched: false };
  });
}

/**
 * A test of whether an entry's own text, result, tool or target holds any of the terms, found as findMatchedTerms
 * finds them (a neighbour's words do not count; identifiers' parts are not split out). The terms are prepared
 * once, so the test is cheap enough for every candidate of a query.
 */
export function prepareHoldsAnyTerm(terms: readonly string[]): (entry: Entry) => boolean {
  const tests = [...new Set(terms.map((term) => term.toLowerCase()))].map(makeTermTest);
  return (entry) => {
    const fields = indexedFields(entry).map(([, value]) => [value.toLowerCase(), tokenizeFts(value)] as const);
    return tests.some((holds) => fields.some(([lowered, tokens]) => holds(lowered, tokens)));
  };
}

/**
 * A lower-cased term's test against one field (lower-cased, and its tokens): its stemmed words in a row, a
 * technical term as a substring, or the start of a word.
 */
function makeTermTest(term: string): (lowered: string, tokens: readonly string[]) => boolean {
  const wanted = tokenizeFts(term);
  const technical = isTechnical(term);
  return (lowered, tokens) => (wanted.length > 0 && containsRun(tokens, wanted)) || (technical && lowered.includes(term)) || containsWordStart(lowered, term);
}

/** Whether `run` occurs in `tokens`, consecutively (a phrase). */
function containsRun(tokens: readonly string[], run: readonly string[]): boolean {
  for (let start = tokens.indexOf(run[0]!); start >= 0; start = tokens.indexOf(run[0]!, start + 1)) {
    if (run.every((token, offset) => tokens[start + offset] === token)) return true;
  }
  return false;
}

/**
 * Whether a word of the entry starts with `prefix` as typed, case aside. A word starts the field, follows
 * anything but a letter or digit, or is a capital after a lower-case letter or digit (an identifier's part, as
 * the keywords column splits it). The word index stems a prefix before matching it — "buy" becomes "bui",
 * which starts "build" — so recall checks each prefix match against the entry itself with this. Reads what
 * the index holds of each field, so the check is bounded whatever the entry's size.
 */
export function hasWordStartingWith(entry: Entry, prefix: string): boolean {
  const wanted = prefix.toLowerCase();
  if (wanted === '') return false;
  return indexedFields(entry).some(([, value]) => containsWordStart(value.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2').toLowerCase(), wanted));
}

/** Each field a term can be found in, cut to the part the index holds: a check never reads more than that. */
function indexedFields(entry: Entry): [MatchField, string][] {
  return [
    ['text', selectIndexedText(entry.text)],
    ['result', selectIndexedText(entry.result ?? '')],
    ['tool', selectIndexedText(entry.toolName ?? '')],
    ['target', selectIndexedText(entry.toolTarget ?? '')],
  ];
}

function containsWordStart(text: string, stem: string): boolean {
  for (let index = text.indexOf(stem); index >= 0; index = text.indexOf(stem, index + 1)) {
    if (index === 0 || !/[\p{L}\p{N}]/u.test(text[index - 1]!)) return true;
  }
  return false;
}
