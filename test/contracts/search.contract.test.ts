import { describe, expect, test } from 'vitest';
import type { Candidate, LexicalQuery, SearchFilters } from '../../src/store/types.js';
import { describeEachEngine, useFreshEngine, useSeededEngine } from './engines.js';
import {
  CHECKOUT,
  FEED,
  FLAKY,
  HOUR,
  IMAGES,
  MINUTE,
  RELEASE,
  allEntries,
  at,
  commitCorpus,
  entryIds,
  fileCommit,
  idSet,
  ids,
  lexical,
  storedSession,
  timeQuery,
  turn,
} from './fixtures.js';

const HOSTILE_TERMS = [
  '"',
  '""',
  '"payment',
  'payment"',
  "it's",
  'NEAR',
  'NEAR(',
  'NEAR(payment secret, 2)',
  'NEAR/2',
  'AND',
  'OR',
  'NOT',
  'OR NOT',
  '*',
  'pay*',
  '^payment',
  'a:b',
  'text:payment',
  'context : secret',
  '{text tool}: payment',
  '(((',
  ')',
  '(payment OR secret)',
  '-x',
  '+payment',
  '!payment',
  '&',
  '|',
  '<->',
  'payment & secret',
  "':*",
  '\\',
  '%',
  '_',
  "'; DROP TABLE entries; --",
  '東京タワー',
  '😀',
  'café',
  'ǅemal',
  'ß',
  '\u200b',
  '\t\n',
  ' ',
  '',
];

/** Control characters and broken UTF-16: a query from MCP or HTTP JSON can hold them. */
const CONTROL_TERMS = ['\u0000', 'pay\u0000ment', 'payment\u0000', '\u0007bell', '\ud800', 'pay\udc00ment'];

/** Single words longer than an index keeps (PostgreSQL: 2047 bytes a lexeme); the first fits recall's 2000-character cap. */
const LONG_TERMS = ['東'.repeat(700), 'x'.repeat(3000), `${'payment '.repeat(400)}`];

/** The bad terms an operation threw on (with the error), so a failure names them. */
async function throwingTerms(run: (term: string) => Promise<unknown>, terms: readonly string[] = HOSTILE_TERMS): Promise<string[]> {
  const failures: string[] = [];
  for (const term of terms) {
    try {
      const result = await run(term);
      if (Array.isArray(result) === false && typeof result !== 'boolean') failures.push(`${JSON.stringify(term.slice(0, 20))}: returned ${typeof result}`);
    } catch (error) {
      failures.push(`${JSON.stringify(term.slice(0, 20))}${term.length > 20 ? `… (${term.length} chars)` : ''}: ${(error as Error).message.slice(0, 160)}`);
    }
  }
  return failures;
}

function expectRankedDescending(candidates: readonly Candidate[]): void {
  for (let index = 1; index < candidates.length; index += 1) {
    expect(candidates[index]!.score, `score at ${index} is not above the one before`).toBeLessThanOrEqual(candidates[index - 1]!.score);
  }
}

describeEachEngine('SearchPort', (factory) => {
  const ctx = useSeededEngine(factory, commitCorpus);
  const search = () => ctx.engine.search;
  const lex = async (query: LexicalQuery) => {
    const found = await search().searchLexical(query);
    expectRankedDescending(found);
    return found;
  };

  describe('lexical: any / all / none / every / context', () => {
    test('any matches the entry’s own text, and its neighbours’ text through the context column', async () => {
      const found = await lex(lexical(['payment']));
      expect(idSet(found)).toEqual(entryIds(CHECKOUT, 1, 2, 3, 4, 5, 6, 7, 8));
      // shop-checkout.8 holds the word only in its neighbours' text: it ranks below every entry that holds it
      expect(ids(found).at(-1)).toBe('shop-checkout.8');
    });

    test('context: false matches the entry’s own columns only (text, tool, target, identifiers)', async () => {
      // `payments` in .5's path is the same word, stemmed; .8, which has it only from its neighbours, is gone
      expect(idSet(await lex(lexical(['payment'], { context: false })))).toEqual(entryIds(CHECKOUT, 1, 2, 3, 4, 5, 6, 7));
      expect(idSet(await lex(lexical(['secret'])))).toEqual(entryIds(CHECKOUT, 2, 3, 4, 5, 6, 7, 8));
      expect(idSet(await lex(lexical(['secret'], { context: false })))).toEqual(entryIds(CHECKOUT, 4, 6));
    });

    test('all: every required term must be in the entry itself, not only in its neighbours', async () => {
      expect(idSet(await lex(lexical(['payment'], { all: ['secret'] })))).toEqual(entryIds(CHECKOUT, 4, 6));
      expect(idSet(await lex(lexical([], { all: ['secret'] })))).toEqual(entryIds(CHECKOUT, 4, 6));
      expect(idSet(await lex(lexical(['payment'], { all: ['secret', 'rotated'] })))).toEqual(entryIds(CHECKOUT, 6));
      expect(idSet(await lex(lexical(['payment'], { all: ['staging'] })))).toEqual([]);
    });

    test('none: an excluded term in the entry itself drops it; in a neighbour it does not', async () => {
      // .5, .7 and .8 have `secret` in their neighbours' text and stay
      expect(idSet(await lex(lexical(['payment'], { none: ['secret'] })))).toEqual(entryIds(CHECKOUT, 1, 2, 3, 5, 7, 8));
      expect(idSet(await lex(lexical(['payment'], { none: ['secret', 'kubectl'] })))).toEqual(entryIds(CHECKOUT, 1, 2, 5, 8));
      // no positive term: no candidates
      expect(await lex(lexical([], { none: ['secret'] }))).toEqual([]);
      expect(await lex(lexical([]))).toEqual([]);
    });

    test('every: all `any` terms must match (AND) instead of one (OR)', async () => {
      expect(idSet(await lex(lexical(['payment', 'database'], { context: false })))).toEqual(entryIds(CHECKOUT, 1, 2, 3, 4, 5, 6, 7));
      expect(idSet(await lex(lexical(['payment', 'database'], { context: false, every: true })))).toEqual(entryIds(CHECKOUT, 4, 5, 6));
      expect(idSet(await lex(lexical(['payment', 'staging'], { context: false, every: true })))).toEqual([]);
    });

    test('an entry matching more of the terms ranks above one matching fewer', async () => {
      const found = await lex(lexical(['payment', 'database'], { context: false }));
      expect(idSet(found.slice(0, 3))).toEqual(entryIds(CHECKOUT, 4, 5, 6));
    });

    test('words are stemmed and case-folded; a two-word term is a phrase', async () => {
      const deploying = idSet(await lex(lexical(['deploying'], { context: false })));
      expect(deploying).toEqual(idSet(await lex(lexical(['deployed'], { context: false }))));
      expect(deploying).toEqual(expect.arrayContaining(['blog-feed.5', 'blog-feed.6', 'shop-checkout.1', 'shop-release.3', 'shop-release.4']));
      expect(idSet(await lex(lexical(['PAYMENT'], { context: false })))).toEqual(idSet(await lex(lexical(['payment'], { context: false }))));
      expect(idSet(await lex(lexical(['rotating'], { context: false })))).toEqual(entryIds(CHECKOUT, 6));
      expect(idSet(await lex(lexical(['payment service'], { context: false })))).toEqual(entryIds(CHECKOUT, 1, 2, 3, 4, 6, 7));
      expect(idSet(await lex(lexical(['service payment'], { context: false })))).toEqual([]);
      expect(idSet(await lex(lexical(['hero images'], { context: false })))).toEqual(entryIds(IMAGES, 1, 3));
    });

    test('candidates carry the stored entry and a rowid that is the same in every list', async () => {
      const lexicalHits = await lex(lexical(['midnight'], { context: false }));
      expect(idSet(lexicalHits)).toEqual(entryIds(FLAKY, 1, 4));
      const byId = new Map(allEntries().map((entry) => [entry.id, entry]));
      for (const hit of lexicalHits) expect(hit.entry).toEqual(byId.get(hit.entry.id));
      const timeHits = await search().searchTime(timeQuery({ sessionIds: ['shop-flaky-test'] }));
      const prefixHits = await search().searchLexical(lexical(['midni'], { prefix: true, context: false }));
      const rowidOf = (list: Candidate[], id: string) => list.find((item) => item.entry.id === id)?.rowid;
      for (const id of entryIds(FLAKY, 1, 4)) {
        expect(rowidOf(timeHits, id)).toBe(rowidOf(lexicalHits, id));
        expect(rowidOf(prefixHits, id)).toBe(rowidOf(lexicalHits, id));
      }
      const trigramHits = await search().searchTrigram(lexical(['SystemTi']));
      const identifierHits = await lex(lexical(['setSystemTime'], { context: false }));
      expect(idSet(trigramHits)).toEqual(idSet(identifierHits));
      for (const hit of trigramHits) expect(hit.rowid).toBe(rowidOf(identifierHits, hit.entry.id));
      expect(new Set(timeHits.map((hit) => hit.rowid)).size).toBe(7);
    });
  });

  describe('exact top-k: a short list is the head of the full ranking', () => {
    // At limit 200 every match of these queries is scored (the corpus holds fewer); at a small limit the engines
    // prune what cannot reach the top (store/top-k.ts). The short list must be exactly the long one's head.
    const queries: { name: string; query: LexicalQuery; trigram?: boolean }[] = [
      { name: 'a rare and a common word', query: lexical(['midnight', 'deploy']) },
      { name: 'several words, own columns', query: lexical(['payment', 'deploy', 'test', 'cache', 'staging'], { context: false }) },
      { name: 'with required and excluded words', query: lexical(['deploy', 'cache', 'payment'], { all: ['deploy'], none: ['blog'] }) },
      // FTS5 leaves out a phrase's occurrences under an AND below a NOT (sqlite/fts-query.ts): each shape once.
      { name: 'with excluded words', query: lexical(['deploy', 'cache', 'payment'], { none: ['blog'] }) },
      { name: 'with required words', query: lexical(['deploy', 'cache', 'payment', 'test'], { all: ['deploy'] }) },
      { name: 'with a word no entry holds', query: lexical(['deploy', 'quokkaflux', 'cache', 'payment']) },
      { name: 'with filters', query: { ...lexical(['deploy', 'test', 'images']), filters: { projects: ['shop'] } } },
      { name: 'prefixes', query: lexical(['paym', 'dep', 'stag'], { prefix: true, context: false }) },
      { name: 'substrings', query: lexical(['cart-totals', 'DATABASE_URL', 'deploy.sh', 'setSystemTime']), trigram: true },
    ];
    for (const { name, query, trigram } of queries) {
      test(name, async () => {
        const run = (limit: number) => (trigram ? search().searchTrigram({ ...query, limit }) : lex({ ...query, limit }));
        const full = await run(200);
        expect(full.length, 'the query matches enough to prune').toBeGreaterThan(3);
        for (const limit of [1, 2, 3, 5]) {
          const short = await run(limit);
          expect(ids(short), `limit ${limit}`).toEqual(ids(full).slice(0, limit));
          short.forEach((hit, index) => expect(hit.score).toBeCloseTo(full[index]!.score, 9));
        }
      });
    }
  });

  describe('lexical: filters are applied before the limit', () => {
    // `deploy` is in the own text of 8 entries across three sessions; each filter below keeps only entries that the
    // unfiltered ranking puts below at least one entry it drops, so a filter applied after the top-k would miss them.
    const deploy = lexical(['deploy'], { context: false });
    const cases: { name: string; filters: SearchFilters; expected: string[] }[] = [
      { name: 'sessionIds', filters: { sessionIds: ['shop-checkout'] }, expected: entryIds(CHECKOUT, 1, 3, 7) },
      { name: 'excludeSessionIds', filters: { excludeSessionIds: ['blog-feed', 'shop-release'] }, expected: entryIds(CHECKOUT, 1, 3, 7) },
      { name: 'projects by name, any case', filters: { projects: ['SHOP'] }, expected: [...entryIds(CHECKOUT, 1, 3, 7), ...entryIds(RELEASE, 1, 3, 4)] },
      { name: 'projects by part of the cwd', filters: { projects: ['dev/sho'] }, expected: [...entryIds(CHECKOUT, 1, 3, 7), ...entryIds(RELEASE, 1, 3, 4)] },
      { name: 'projects: several are a union', filters: { projects: ['nothing-here', 'Shop'] }, expected: [...entryIds(CHECKOUT, 1, 3, 7), ...entryIds(RELEASE, 1, 3, 4)] },
      { name: 'sources', filters: { sources: ['claude-code'] }, expected: entryIds(CHECKOUT, 1, 3, 7) },
      { name: 'roles', filters: { roles: ['user'] }, expected: ['blog-feed.5', 'shop-checkout.1', 'shop-release.1'] },
      { name: 'tools, any case', filters: { tools: ['BASH'] }, expected: entryIds(CHECKOUT, 3, 7) },
      { name: 'priorities', filters: { priorities: ['high'], projects: ['shop'] }, expected: [...entryIds(CHECKOUT, 3, 7), 'shop-release.3'] },
      { name: 'sinceMs (inclusive)', filters: { sinceMs: at(8, 16, 0) }, expected: entryIds(RELEASE, 1, 3, 4) },
      { name: 'untilMs (exclusive)', filters: { untilMs: at(5, 14, 30) }, expected: entryIds(CHECKOUT, 1, 3, 7) },
      { name: 'sinceMs and untilMs', filters: { sinceMs: at(2, 9, 1), untilMs: at(5, 14, 40) }, expected: ['blog-feed.5', 'shop-checkout.3', 'shop-checkout.7'] },
      {
        name: 'windows (a union, end exclusive)',
        filters: { windows: [{ startMs: at(2, 9, 0), endMs: at(2, 9, 1) }, { startMs: at(8, 16, 0), endMs: at(8, 16, 10) }] },
        expected: ['shop-checkout.1', 'shop-release.1'],
      },
      {
        name: 'daily time of day',
        filters: { daily: [{ startMs: at(1, 0), endMs: at(10, 0), offsetMs: 0, fromMs: 16 * HOUR, toMs: 17 * HOUR }] },
        expected: entryIds(RELEASE, 1, 3, 4),
      },
      {
        name: 'daily time of day in a zone ahead of UTC',
        filters: { daily: [{ startMs: at(1, 0), endMs: at(10, 0), offsetMs: 9 * HOUR, fromMs: 18 * HOUR, toMs: 19 * HOUR }] },
        expected: entryIds(CHECKOUT, 1, 3, 7),
      },
      {
        name: 'daily time of day wrapping past midnight',
        filters: { daily: [{ startMs: at(1, 0), endMs: at(10, 0), offsetMs: 0, fromMs: 23 * HOUR, toMs: 10 * HOUR }] },
        expected: entryIds(CHECKOUT, 1, 3, 7),
      },
      {
        name: 'windows and daily together are one union',
        filters: {
          windows: [{ startMs: at(8, 16, 0), endMs: at(8, 16, 1) }],
          daily: [{ startMs: at(1, 0), endMs: at(3, 0), offsetMs: 0, fromMs: 9 * HOUR + 1 * MINUTE, toMs: 9 * HOUR + 7 * MINUTE }],
        },
        expected: ['shop-checkout.3', 'shop-checkout.7', 'shop-release.1'],
      },
      { name: 'sessionRelative by offset', filters: { sessionRelative: { fromMs: 0, toMs: MINUTE } }, expected: ['shop-checkout.1', 'shop-release.1'] },
      {
        name: 'sessionRelative by fraction',
        filters: { sessionRelative: { fromFraction: 0.5, toFraction: 0.9 } },
        expected: ['blog-feed.5', 'shop-checkout.7', 'shop-release.3'],
      },
      { name: 'filters together narrow each other', filters: { projects: ['shop'], roles: ['tool'], tools: ['bash'], untilMs: at(2, 9, 5) }, expected: ['shop-checkout.3'] },
    ];

    test.each(cases)('$name', async ({ filters, expected }) => {
      const full = ids(await lex({ ...deploy, limit: 100 }));
      expect(full).toHaveLength(8);
      const filtered = await lex({ ...deploy, filters, limit: 100 });
      expect(idSet(filtered)).toEqual([...expected].sort());
      // filtering does not change the ranking of what it keeps
      expect(ids(filtered)).toEqual(full.filter((id) => expected.includes(id)));
      expect(full.indexOf(ids(filtered)[0]!), 'test setup: the best kept entry must rank below a dropped one').toBeGreaterThan(0);
      expect(ids(await lex({ ...deploy, filters, limit: 1 }))).toEqual([ids(filtered)[0]]);
    });

    test('excludeRowids drops exactly those entries, before the limit', async () => {
      const full = await lex({ ...deploy, limit: 100 });
      const dropped = full.slice(0, 3);
      const kept = await lex({ ...deploy, filters: { excludeRowids: dropped.map((item) => item.rowid) }, limit: 2 });
      expect(ids(kept)).toEqual(ids(full.slice(3, 5)));
    });

    test('filters that keep nothing, and names that are not projects', async () => {
      expect(await lex({ ...deploy, filters: { projects: ['sho'] } })).toEqual([]);
      expect(await lex({ ...deploy, filters: { projects: ['home/dev/sho%'] } })).toEqual([]);
      expect(await lex({ ...deploy, filters: { sessionIds: ['no-such-session'] } })).toEqual([]);
      expect(await lex({ ...deploy, filters: { tools: ['Write'] } })).toEqual([]);
      expect(await lex({ ...deploy, filters: { windows: [{ startMs: at(6, 0), endMs: at(7, 0) }] } })).toEqual([]);
    });

    test('an all/none term narrows with a filter before the limit too', async () => {
      const found = await lex({ ...lexical(['deploy'], { context: false, all: ['staging'] }), filters: { roles: ['assistant', 'user'] }, limit: 1 });
      const both = idSet(await lex({ ...lexical(['deploy'], { context: false, all: ['staging'] }), filters: { roles: ['assistant', 'user'] } }));
      expect(both).toEqual(entryIds(RELEASE, 1, 4));
      expect(found).toHaveLength(1);
      expect(both).toContain(found[0]!.entry.id);
    });
  });

  describe('hostile terms are data, never query syntax', () => {
    test('searchLexical any / all / none never throw', async () => {
      expect(await throwingTerms((term) => search().searchLexical(lexical([term])))).toEqual([]);
      expect(await throwingTerms((term) => search().searchLexical(lexical([term], { context: false, every: true })))).toEqual([]);
      expect(await throwingTerms((term) => search().searchLexical(lexical(['payment'], { all: [term] })))).toEqual([]);
      expect(await throwingTerms((term) => search().searchLexical(lexical(['payment'], { none: [term] })))).toEqual([]);
      expect(await throwingTerms((term) => search().searchLexical(lexical([term, 'payment', term])))).toEqual([]);
    });

    test('hasLexicalMatch, searchTrigram and searchTime terms never throw', async () => {
      expect(await throwingTerms((term) => search().hasLexicalMatch(term))).toEqual([]);
      expect(await throwingTerms((term) => search().searchTrigram(lexical([term])))).toEqual([]);
      expect(await throwingTerms((term) => search().searchTrigram(lexical(['payment'], { all: [term], none: [term] })))).toEqual([]);
      expect(await throwingTerms((term) => search().searchTime(timeQuery({}, { all: [term] })))).toEqual([]);
      expect(await throwingTerms((term) => search().searchTime(timeQuery({}, { none: [term] })))).toEqual([]);
    });

    const everyOperation = async (terms: readonly string[]) => [
      ...(await throwingTerms((term) => search().searchLexical(lexical([term])), terms)),
      ...(await throwingTerms((term) => search().searchLexical(lexical(['payment'], { all: [term], none: [term] })), terms)),
      ...(await throwingTerms((term) => search().hasLexicalMatch(term), terms)),
      ...(await throwingTerms((term) => search().searchTrigram(lexical([term])), terms)),
      ...(await throwingTerms((term) => search().searchTime(timeQuery({}, { all: [term], none: [term] })), terms)),
    ];

    // FTS5 reads the MATCH expression as a C string, PostgreSQL text cannot hold NUL: both read NUL as a separator.
    test('control characters and lone surrogates never throw', async () => {
      expect(await everyOperation(CONTROL_TERMS)).toEqual([]);
    });

    test('words longer than the index keeps never throw', async () => {
      expect(await everyOperation(LONG_TERMS)).toEqual([]);
    });

    test('operators are words or nothing: NEAR is a word, * is no prefix, quotes are punctuation', async () => {
      expect(idSet(await lex(lexical(['NEAR'], { context: false })))).toEqual(['blog-images.1']);
      expect(await lex(lexical(['paym*']))).toEqual([]);
      expect(idSet(await lex(lexical(['"payment"'], { context: false })))).toEqual(entryIds(CHECKOUT, 1, 2, 3, 4, 5, 6, 7));
      expect(idSet(await lex(lexical(['payment OR staging'], { context: false })))).toEqual([]);
      expect(idSet(await lex(lexical(['payment'], { context: false, none: ['NOT'] })))).toEqual(entryIds(CHECKOUT, 1, 2, 3, 4, 5, 6, 7));
    });
  });

  describe('hasLexicalMatch', () => {
    test('whole words in the word index, stemmed and case-folded', async () => {
      expect(await search().hasLexicalMatch('deploying')).toBe(true);
      expect(await search().hasLexicalMatch('rotating')).toBe(true);
      expect(await search().hasLexicalMatch('KUBECTL')).toBe(true);
      expect(await search().hasLexicalMatch('payments')).toBe(true);
      expect(await search().hasLexicalMatch('paym')).toBe(false);
      expect(await search().hasLexicalMatch('kubernetes')).toBe(false);
      expect(await search().hasLexicalMatch('')).toBe(false);
      expect(await search().hasLexicalMatch('!!!')).toBe(false);
    });

    test('a term of several words is a phrase: every word known is not enough', async () => {
      expect(await search().hasLexicalMatch('DATABASE_URL')).toBe(true);
      expect(await search().hasLexicalMatch('URL_DATABASE')).toBe(false);
      expect(await search().hasLexicalMatch('DATABASE_NOWHERE')).toBe(false);
    });
  });

  describe('trigram', () => {
    const tri = async (any: string[], extra: Partial<LexicalQuery> = {}) => {
      const found = await search().searchTrigram(lexical(any, extra));
      expectRankedDescending(found);
      return found;
    };

    test('parts of identifiers inside tokens', async () => {
      expect(idSet(await tri(['SystemTi']))).toEqual(entryIds(FLAKY, 4, 5));
      expect(idSet(await tri(['useFakeTim']))).toEqual(entryIds(FLAKY, 4, 5));
      expect(idSet(await tri(['DATABASE_URL']))).toEqual(entryIds(CHECKOUT, 4, 5, 6));
    });

    test('plain words are the word index’s: the substring index holds technical tokens only', async () => {
      expect(await tri(['midnight'])).toEqual([]);
      // Inside a technical token a plain word is found: "payment-service" holds "ymen".
      expect((await tri(['ymen'])).every((hit) => /\S*ymen\S*[-_./:]|[-_./:]\S*ymen/.test(`${hit.entry.toolTarget ?? ''} ${hit.entry.text} ${hit.entry.result ?? ''}`))).toBe(true);
    });

    test('paths and file names, in targets and results', async () => {
      expect(idSet(await tri(['build_feed']))).toEqual(entryIds(FEED, 2, 3));
      expect(idSet(await tri(['cart-totals.test']))).toEqual(entryIds(FLAKY, 3, 5, 6));
      expect(idSet(await tri(['public/img/hero']))).toEqual(entryIds(IMAGES, 2));
      expect(idSet(await tri(['10.0.0.5:5432']))).toEqual(entryIds(CHECKOUT, 3));
    });

    test('CJK text', async () => {
      expect(idSet(await tri(['東京タ']))).toEqual(entryIds(FEED, 1, 4));
      expect(idSet(await tri(['タワー']))).toEqual(entryIds(FEED, 1, 4));
      expect(idSet(await tri(['京都府']))).toEqual([]);
    });

    test('any is a union; terms under three characters are left out', async () => {
      expect(idSet(await tri(['build_feed', 'SystemTi']))).toEqual([...entryIds(FEED, 2, 3), ...entryIds(FLAKY, 4, 5)].sort());
      expect(await tri(['db', 'v2', 'ts'])).toEqual([]);
      expect(idSet(await tri(['db', 'build_feed']))).toEqual(entryIds(FEED, 2, 3));
      expect(await tri([])).toEqual([]);
    });

    test('no neighbour context: only the entry’s own text, target and result', async () => {
      expect(idSet(await tri(['SystemTi']))).toEqual(entryIds(FLAKY, 4, 5));
      expect(idSet(await tri(['SystemTi'], { context: true }))).toEqual(entryIds(FLAKY, 4, 5));
    });

    test('all / none test the entry itself; filters apply before the limit', async () => {
      expect(idSet(await tri(['cart-totals'], { none: ['PASS'] }))).toEqual(entryIds(FLAKY, 3, 5));
      expect(idSet(await tri(['cart-totals'], { all: ['expected'] }))).toEqual(entryIds(FLAKY, 3));
      const full = ids(await tri(['cart-totals', 'DATABASE_URL']));
      const kept = ids(await tri(['cart-totals', 'DATABASE_URL'], { filters: { sessionIds: ['shop-checkout'] } }));
      expect([...kept].sort()).toEqual(entryIds(CHECKOUT, 4, 5, 6));
      expect(kept).toEqual(full.filter((id) => id.startsWith('shop-checkout.')));
      expect(ids(await tri(['cart-totals', 'DATABASE_URL'], { filters: { sessionIds: ['shop-checkout'] }, limit: 1 }))).toEqual([kept[0]]);
    });
  });

  describe('prefix: a plain word cut short', () => {
    const pre = async (any: string[], extra: Partial<LexicalQuery> = {}) => {
      const found = await search().searchLexical(lexical(any, { prefix: true, context: false, ...extra }));
      expectRankedDescending(found);
      return found;
    };

    test('the last word of a term matches every word it starts, after stemming', async () => {
      expect(idSet(await pre(['ymen']))).toEqual([]);
      expect(idSet(await pre(['paym']))).toEqual(idSet(await lex(lexical(['payment'], { context: false }))));
      expect(idSet(await pre(['midni']))).toEqual(entryIds(FLAKY, 1, 4));
      // "happy" is stemmed to "happi" first, as FTS5 stems a prefix; whole words still match themselves.
      expect(idSet(await pre(['midnight']))).toEqual(entryIds(FLAKY, 1, 4));
    });

    test('all / none test the entry itself; filters apply before the limit', async () => {
      const full = ids(await pre(['deplo']));
      const kept = ids(await pre(['deplo'], { filters: { sources: ['claude-code'] } }));
      expect(kept.length).toBeGreaterThan(0);
      expect(kept).toEqual(full.filter((id) => kept.includes(id)));
      expect(ids(await pre(['deplo'], { filters: { sources: ['claude-code'] }, limit: 1 }))).toEqual([kept[0]]);
      const none = ids(await pre(['deplo'], { none: ['staging'] }));
      expect(none.length).toBeLessThan(full.length);
    });
  });

  describe('time', () => {
    const time = async (filters: SearchFilters, extra: Parameters<typeof timeQuery>[1] = {}) => {
      const found = await search().searchTime(timeQuery(filters, extra));
      expectRankedDescending(found);
      return ids(found);
    };

    test('without a center: newest first, inside the windows', async () => {
      expect(await time({ windows: [{ startMs: at(5, 0), endMs: at(6, 0) }] })).toEqual(entryIds(FEED, 6, 5, 4, 3, 2, 1));
      expect(await time({ windows: [{ startMs: at(5, 0), endMs: at(6, 0) }] }, { limit: 3 })).toEqual(entryIds(FEED, 6, 5, 4));
      expect(await time({ windows: [{ startMs: at(5, 14, 5), endMs: at(5, 14, 30) }] })).toEqual(entryIds(FEED, 4, 3));
      expect(await time({ sessionIds: ['blog-images'] })).toEqual(entryIds(IMAGES, 3, 2, 1));
      expect(await time({}, { limit: 2 })).toEqual(entryIds(RELEASE, 4, 3));
    });

    test('with a center: nearest first', async () => {
      expect(await time({ windows: [{ startMs: at(5, 0), endMs: at(6, 0) }] }, { centerMs: at(5, 14, 12) })).toEqual(entryIds(FEED, 3, 4, 2, 1, 5, 6));
      expect(await time({}, { centerMs: at(4, 0, 2), limit: 4 })).toEqual(entryIds(FLAKY, 5, 6, 4, 7));
      // a center outside the windows still ranks only what the windows hold
      expect(await time({ windows: [{ startMs: at(7, 0), endMs: at(8, 0) }] }, { centerMs: at(2, 0) })).toEqual(entryIds(IMAGES, 1, 2, 3));
    });

    test('several windows are a union', async () => {
      const windows = [
        { startMs: at(2, 9, 0), endMs: at(2, 9, 1) },
        { startMs: at(8, 16, 30), endMs: at(8, 16, 31) },
      ];
      expect(await time({ windows })).toEqual(['shop-release.4', 'shop-checkout.2', 'shop-checkout.1']);
    });

    test('daily times of day, in a zone, wrapping past midnight, bounded by their days', async () => {
      const anyDay = { startMs: at(1, 0), endMs: at(10, 0) };
      expect(await time({ daily: [{ ...anyDay, offsetMs: 0, fromMs: 7 * HOUR, toMs: 8 * HOUR }] })).toEqual(entryIds(IMAGES, 3, 2, 1));
      expect(await time({ daily: [{ ...anyDay, offsetMs: 0, fromMs: 23 * HOUR, toMs: 1 * HOUR }] })).toEqual(entryIds(FLAKY, 6, 5, 4));
      // 09:00–09:40 in UTC-5 is 14:00–14:40 UTC
      expect(await time({ daily: [{ ...anyDay, offsetMs: -5 * HOUR, fromMs: 9 * HOUR, toMs: 10 * HOUR }] })).toEqual(entryIds(FEED, 6, 5, 4, 3, 2, 1));
      // 05:30–06:00 in UTC+5:30 is 00:00–00:30 UTC
      expect(await time({ daily: [{ ...anyDay, offsetMs: 5.5 * HOUR, fromMs: 5.5 * HOUR, toMs: 6 * HOUR }] })).toEqual(entryIds(FLAKY, 6));
      expect(await time({ daily: [{ startMs: at(5, 0), endMs: at(7, 0), offsetMs: 0, fromMs: 7 * HOUR, toMs: 8 * HOUR }] })).toEqual([]);
      // from is inclusive, to exclusive
      expect(await time({ daily: [{ ...anyDay, offsetMs: 0, fromMs: 7 * HOUR + 5 * MINUTE, toMs: 7 * HOUR + 20 * MINUTE }] })).toEqual(entryIds(IMAGES, 2));
      // two daily spans, and daily with a window, are unions
      expect(
        await time({
          daily: [
            { ...anyDay, offsetMs: 0, fromMs: 7 * HOUR, toMs: 7 * HOUR + MINUTE },
            { ...anyDay, offsetMs: 0, fromMs: 16 * HOUR + 25 * MINUTE, toMs: 16 * HOUR + 35 * MINUTE },
          ],
          windows: [{ startMs: at(2, 9, 10), endMs: at(2, 9, 11) }],
        }),
      ).toEqual(['shop-release.4', 'blog-images.1', 'shop-checkout.8']);
    });

    test('sessionRelative offsets and fractions', async () => {
      expect(await time({ sessionRelative: { fromMs: 0, toMs: MINUTE } })).toEqual([
        'shop-release.1',
        'blog-images.1',
        'blog-feed.1',
        'shop-flaky-test.1',
        'shop-checkout.2',
        'shop-checkout.1',
      ]);
      expect(await time({ sessionRelative: { fromMs: 2 * HOUR } })).toEqual(['shop-flaky-test.7']);
      expect(await time({ sessionRelative: { fromFraction: 0.95 } })).toEqual(['shop-release.4', 'blog-images.3', 'blog-feed.6', 'shop-flaky-test.7', 'shop-checkout.8']);
    });

    test('since / until, roles, tools, projects, sources and all / none terms', async () => {
      expect(await time({ sinceMs: at(8, 16, 20) })).toEqual(entryIds(RELEASE, 4, 3));
      expect(await time({ untilMs: at(2, 9, 1) })).toEqual(entryIds(CHECKOUT, 2, 1));
      expect(await time({ roles: ['user'], projects: ['blog'] })).toEqual(['blog-images.1', 'blog-feed.5', 'blog-feed.1']);
      expect(await time({ tools: ['edit', 'READ'] })).toEqual(['shop-flaky-test.5', 'shop-checkout.5']);
      expect(await time({ sources: ['codex'], roles: ['assistant'] })).toEqual(['shop-release.4', 'blog-feed.4', 'blog-feed.2']);
      expect(await time({ excludeSessionIds: ['shop-release', 'blog-images', 'blog-feed'] }, { limit: 1 })).toEqual(['shop-flaky-test.7']);
      expect(await time({}, { all: ['deploy'], none: ['staging'] })).toEqual(['blog-feed.6', 'blog-feed.5', 'shop-checkout.7', 'shop-checkout.3', 'shop-checkout.1']);
      expect(await time({ sessionIds: ['shop-checkout'] }, { all: ['secret'], centerMs: at(2, 9, 4) })).toEqual(entryIds(CHECKOUT, 6, 4));
    });

    test('excludeRowids', async () => {
      const all = await search().searchTime(timeQuery({ sessionIds: ['blog-images'] }));
      const rest = await search().searchTime(timeQuery({ sessionIds: ['blog-images'], excludeRowids: [all[0]!.rowid] }));
      expect(ids(rest)).toEqual(entryIds(IMAGES, 2, 1));
    });

    test('readTimeBounds: the earliest and latest entry times', async () => {
      expect(await search().readTimeBounds()).toEqual({ startMs: at(2, 9, 0), endMs: at(8, 16, 30) });
    });
  });

  test('getSession', async () => {
    expect(await search().getSession('blog-feed')).toMatchObject({ id: 'blog-feed', project: 'blog', entryCount: 6, title: 'RSS feed and unicode titles' });
    expect(await search().getSession('nope')).toBeNull();
  });
});

describeEachEngine('SearchPort on a small store', (factory) => {
  const ctx = useFreshEngine(factory);

  test('an empty store finds nothing and has no time bounds', async () => {
    const search = ctx.engine.search;
    expect(await search.searchLexical(lexical(['payment']))).toEqual([]);
    expect(await search.searchTrigram(lexical(['payment']))).toEqual([]);
    expect(await search.searchTime(timeQuery({}))).toEqual([]);
    expect(await search.hasLexicalMatch('payment')).toBe(false);
    expect(await search.readTimeBounds()).toBeNull();
  });

  test('entries without a time are never in time search nor in the bounds, but words still find them', async () => {
    const session = { ...IMAGES.session, startMs: null, endMs: null };
    const entries = [
      turn('blog-images', 1, { ts: null, role: 'user', text: 'An undated note about webp images' }),
      turn('blog-images', 2, { ts: at(7, 7, 5), role: 'assistant', text: 'Converted the images to webp' }),
    ];
    await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(session, entries)));
    expect(ids(await ctx.engine.search.searchTime(timeQuery({})))).toEqual(['blog-images.2']);
    expect(ids(await ctx.engine.search.searchTime(timeQuery({}, { centerMs: at(7, 0) })))).toEqual(['blog-images.2']);
    expect(await ctx.engine.search.readTimeBounds()).toEqual({ startMs: at(7, 7, 5), endMs: at(7, 7, 5) });
    expect(idSet(await ctx.engine.search.searchLexical(lexical(['webp'], { context: false })))).toEqual(['blog-images.1', 'blog-images.2']);
    expect(await ctx.engine.search.searchLexical({ ...lexical(['webp']), filters: { sinceMs: 0 } })).toHaveLength(1);
  });

  test('a later chunk updates the neighbour context of the entries before it', async () => {
    await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(FLAKY.session, FLAKY.entries.slice(0, 1))));
    expect(await ctx.engine.search.searchLexical(lexical(['reproduce']))).toEqual([]);
    await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(FLAKY.session, FLAKY.entries.slice(1, 2), { reset: false })));
    expect(ids(await ctx.engine.search.searchLexical(lexical(['reproduce'])))).toEqual(['shop-flaky-test.2', 'shop-flaky-test.1']);
    expect(ids(await ctx.engine.search.searchLexical(lexical(['reproduce'], { context: false })))).toEqual(['shop-flaky-test.2']);
  });
});

describeEachEngine('exact top-k: ties at the cut', (factory) => {
  const ctx = useFreshEngine(factory);

  // Thirty-six entries score alike in their own columns — the same text between neighbours of the same length
  // (the first two and the last two are filler) — and the newest come first, however many tie past the limit.
  test('rows tied with the last kept are ordered newest first, however many tie', async () => {
    const session = storedSession({ id: 'echo', source: 'claude-code', project: 'echo', cwd: '/home/dev/echo', startMs: at(1, 8), endMs: at(1, 9) });
    const entries = Array.from({ length: 40 }, (_, index) =>
      turn('echo', index + 1, {
        ts: at(1, 8) + index * 1000,
        role: 'user',
        text: index < 2 || index >= 38 ? 'one two three four five six seven eight' : 'the gateway echoed src/echo_gateway.ts twice',
      }),
    );
    await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(session, entries)));
    for (const query of [lexical(['echoed'], { limit: 3, context: false }), lexical(['echoed', 'gateway', 'absent-word'], { limit: 3, context: false })]) {
      expect(ids(await ctx.engine.search.searchLexical(query))).toEqual(['echo.38', 'echo.37', 'echo.36']);
      // Filters that keep sessions (tested as a set of rows) and filters tested on each entry order ties alike.
      for (const filters of [{ projects: ['echo'] }, { sources: ['claude-code'] }, { roles: ['user'] }] satisfies SearchFilters[]) {
        expect(ids(await ctx.engine.search.searchLexical({ ...query, filters })), JSON.stringify(filters)).toEqual(['echo.38', 'echo.37', 'echo.36']);
      }
    }
    for (const terms of [['echo_gateway'], ['echo_gateway', 'nowhere_else']]) {
      expect(ids(await ctx.engine.search.searchTrigram(lexical(terms, { limit: 2 })))).toEqual(['echo.38', 'echo.37']);
    }
  });
});

describeEachEngine('SearchPort at scale', (factory) => {
  const ctx = useFreshEngine(factory);

  // The case a cap on scored matches loses: a natural question's common words match more entries than any cap,
  // and the one entry that holds its rare words is the oldest of them all.
  test('the only entry holding a rare word, older than 50,000 common-word matches, comes first', async () => {
    const COMMON = 50_000;
    const PER_SESSION = 5_000;
    const rare = storedSession({ id: 'temple', source: 'claude-code', project: 'games', cwd: '/home/dev/games', startMs: at(1, 8), endMs: at(1, 9) });
    const first = turn('temple', 1, { ts: at(1, 8), role: 'user', text: 'How many mummies will the party face in the djinn temple?' });
    await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(rare, [first])));
    for (let start = 0; start < COMMON; start += PER_SESSION) {
      const id = `chat-${start / PER_SESSION}`;
      const session = storedSession({ id, source: 'claude-code', project: 'chat', cwd: '/home/dev/chat', startMs: at(2, 0), endMs: at(9, 0) });
      const entries = Array.from({ length: PER_SESSION }, (_, index) =>
        turn(id, index + 1, { ts: at(2, 0) + (start + index) * 1000, role: index % 2 === 0 ? 'user' : 'assistant', text: `going back to the party, how many came ${index % 97}` }),
      );
      await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(session, entries)));
    }
    const question = lexical(['going', 'back', 'many', 'party', 'face', 'djinn', 'temple', 'mummies'], { limit: 400 });
    const found = await ctx.engine.search.searchLexical(question);
    expect(found).toHaveLength(400);
    expect(found[0]!.entry.id).toBe('temple.1');
    expect((await ctx.engine.search.searchLexical({ ...question, limit: 1 })).map((hit) => hit.entry.id)).toEqual(['temple.1']);
  }, 600_000);
});
