import type { Entry } from '../model.js';
import { selectIndexedText } from '../text/limits.js';

/** Where in an entry a query term was found: its text, the tool result, the tool name or target. */
export type MatchField = 'text' | 'result' | 'tool' | 'target';

export interface TermMatch {
  term: string;
  /** Empty when the term is only in the neighbouring entries (the index's context column) or matched by meaning. */
  fields: MatchField[];
}


/**
 * Which query terms an entry holds, and where — what `--explain` shows beside the signals. The word index
 * stems ("deploys" finds "deployed"), so a term also counts when its stem starts a word in the field.
 */
export function findMatchedTerms(entry: Entry, terms: readonly string[]): TermMatch[] {
  const lowered = indexedFields(entry).map(([name, value]) => [name, value.toLowerCase()] as const);
  return [...new Set(terms.map((term) => term.toLowerCase()))].map((term) => {
    const stem = stemOf(term);
    return {
      term,
      fields: lowered.filter(([, value]) => value.includes(term) || containsWordStart(value, stem)).map(([name]) => name),
    };
  });
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

/** The term without a common English ending, never shorter than four characters. */
function stemOf(term: string): string {
  const stripped = term.replace(/(?:ing|ed|es|s|ly)$/, '');
  return stripped.length >= 4 ? stripped : term;
}

function containsWordStart(text: string, stem: string): boolean {
  for (let index = text.indexOf(stem); index >= 0; index = text.indexOf(stem, index + 1)) {
    if (index === 0 || !/[\p{L}\p{N}]/u.test(text[index - 1]!)) return true;
  }
  return false;
}
