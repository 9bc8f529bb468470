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

function trimPunctuation(word: string): string {
  return word
    .replace(/^[^\p{L}\p{N}./~@_-]+|[^\p{L}\p{N}/_-]+$/gu, '')
    // "John's" is about John: the tokenizer would make it the phrase "john s", which "John" never matches.
    .replace(/['’]s$/iu, '');
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
