import { MAX_QUERY_CHARS, MAX_QUERY_TERMS, sliceHead } from '../text/limits.js';

/**
 * Split a free-text query into search terms. Quoted phrases stay whole; everything else splits on whitespace
 * with surrounding punctuation trimmed. Terms are data, never syntax: the store quotes each one.
 */
export function splitQueryTerms(query: string): string[] {
  const terms: string[] = [];
  const pattern = /"([^"]*)"|(\S+)/g;
  for (const match of query.matchAll(pattern)) {
    const raw = match[1] ?? match[2] ?? '';
    const term = match[1] !== undefined ? raw.trim() : trimPunctuation(raw);
    if (term !== '' && /[\p{L}\p{N}]/u.test(term)) terms.push(term);
  }
  return terms;
}

const KEEP_AT_START = /[\p{L}\p{N}./~@_-]/u;
const KEEP_AT_END = /[\p{L}\p{N}/_-]/u;

/**
 * Punctuation off both ends, scanned by hand: `/[^…]+$/` retries its run from every position, which costs the
 * square of a long punctuation run inside a word.
 */
function trimPunctuation(word: string): string {
  const chars = Array.from(word);
  let start = 0;
  while (start < chars.length && !KEEP_AT_START.test(chars[start] as string)) start += 1;
  let end = chars.length;
  while (end > start && !KEEP_AT_END.test(chars[end - 1] as string)) end -= 1;
  const trimmed = start === 0 && end === chars.length ? word : chars.slice(start, end).join('');
  // "John's" is about John: the tokenizer would make it the phrase "john s", which "John" never matches.
  return trimmed.replace(/['’]s$/iu, '');
}

/**
 * The query as read: at most MAX_QUERY_CHARS characters, cut before a word it would split. Every stage after
 * this (time parsing, term lookups, the phrase boost) then costs the same for a pasted megabyte as for a line.
 */
export function capQueryText(query: string): { text: string; note: string | null } {
  if (query.length <= MAX_QUERY_CHARS) return { text: query, note: null };
  let text = sliceHead(query, MAX_QUERY_CHARS);
  const space = text.search(/\s\S*$/);
  if (space > 0 && /\S/.test(query.charAt(text.length))) text = text.slice(0, space);
  return { text, note: `query cut to its first ${text.length} of ${query.length} characters (limit ${MAX_QUERY_CHARS})` };
}

/**
 * The first MAX_QUERY_TERMS distinct terms (ignoring case), in query order; `label` names the list in the note.
 * Each term is a lookup in every list, so a query of a hundred thousand words would otherwise cost minutes.
 */
export function capTerms(terms: readonly string[], label: string): { terms: string[]; note: string | null } {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const term of terms) {
    const key = term.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    if (kept.length < MAX_QUERY_TERMS) kept.push(term);
  }
  if (seen.size <= MAX_QUERY_TERMS) return { terms: [...terms], note: null };
  return { terms: kept, note: `${label}: searched the first ${MAX_QUERY_TERMS} of ${seen.size} distinct terms` };
}

/** Words that carry no topic; dropped from OR-ranked terms unless nothing else is left. */
export const QUERY_STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have how i if in into is it its ' +
    'me my of on or our so that the their them then there these they this to was we were what when where which ' +
    'who why will with would you your about any all also just than too very was did done get got let lets ' +
    'should shall may might must us he she his her him'
  ).split(' '),
);

/**
 * Words that only frame a question about time ("what happened at 05:39", "what were we doing yesterday"). When
 * a query with a time expression holds nothing else, it asks for everything in that window, ranked by time.
 */
const QUESTION_FRAME = new Set(
  (
    'happen happened happening happens going doing done do did does work worked working discuss discussed talk ' +
    'talked say said on up something anything everything stuff go went was were we i you what which there ' +
    'then that this is are be been the a at around about show tell me us'
  ).split(' '),
);

export function isQuestionFrame(terms: readonly string[]): boolean {
  return terms.every((term) => QUESTION_FRAME.has(term.toLowerCase()));
}

export function dropStopwords(terms: string[]): string[] {
  const kept = terms.filter((term) => term.includes(' ') || !QUERY_STOPWORDS.has(term.toLowerCase()));
  return kept.length > 0 ? kept : terms;
}
