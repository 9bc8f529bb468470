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
  const fields: [MatchField, string][] = [
    ['text', entry.text],
    ['result', entry.result ?? ''],
    ['tool', entry.toolName ?? ''],
    ['target', entry.toolTarget ?? ''],
  ];
  // The part of each field the index holds: an explanation never costs more than a bounded read of each field.
  const lowered = fields.map(([name, value]) => [name, selectIndexedText(value).toLowerCase()] as const);
  return [...new Set(terms.map((term) => term.toLowerCase()))].map((term) => {
    const stem = stemOf(term);
    return {
      term,
      fields: lowered.filter(([, value]) => value.includes(term) || containsWordStart(value, stem)).map(([name]) => name),
    };
  });
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
