import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Entry, Role } from '../../src/model.js';
import type { StoreEngine } from '../../src/store/ports.js';
import type { Candidate, LexicalQuery, SearchFilters, TimeSearch } from '../../src/store/types.js';
import { ALL_ENGINES, type OpenedEngine, registerServerStop, selectedEngines } from './engines.js';
import { HOUR, MINUTE, at, corpusCommits, fileCommit, lexical, storedSession, timeQuery, turn } from './fixtures.js';

/**
 * The same corpus in both engines; the candidate lists recall fuses must be the same: lexical lists identical in
 * order (entry ids) with scores equal within 1e-6 relative, trigram and time lists identical in order, and entry
 * rowids in the same relative order (fusion breaks ties by rowid). This is how we know recall ranks the same on
 * either engine. It needs both engines; only MOON_TEST_ENGINES (local work) can leave it out.
 */

const RELATIVE_TOLERANCE = 1e-6;

/** A larger, deterministic corpus beside the hand-written one: varied lengths and repeated words, so BM25's
 * length normalisation, term frequency and document frequency all matter. */
function generatedCommits() {
  const words = (
    'cache invalidation redis cluster timeout retry queue worker deploy rollback migration schema index vacuum ' +
    'latency p99 histogram alert pager oncall incident postmortem kafka consumer offset lag partition rebalance ' +
    'terraform plan apply drift module provider lambda cold start bundle webpack vite esbuild sourcemap'
  ).split(' ');
  let seed = 20260302;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const roles: Role[] = ['user', 'assistant', 'tool', 'assistant'];
  const sessions = ['ops-cache', 'ops-kafka', 'infra-terraform'].map((id, index) =>
    storedSession({ id, source: index === 1 ? 'codex' : 'claude-code', project: index === 2 ? 'infra' : 'ops', cwd: `/srv/${index === 2 ? 'infra' : 'ops'}`, startMs: at(6, 8 + index * 3), endMs: at(6, 10 + index * 3) }),
  );
  return sessions.map((session, sessionIndex) => {
    const entries: Entry[] = [];
    for (let n = 1; n <= 18; n += 1) {
      const length = 3 + Math.floor(random() * (n % 5 === 0 ? 60 : 14));
      const text = Array.from({ length }, () => words[Math.floor(random() * words.length)]!).join(' ');
      const role = roles[n % roles.length]!;
      const ts = (session.startMs ?? 0) + Math.floor(random() * 2 * HOUR);
      entries.push(
        role === 'tool'
          ? turn(session.id, n, { ts, role, tool: n % 3 === 0 ? 'Bash' : 'exec_command', target: `./bin/${words[n % words.length]}.sh --env=${sessionIndex}`, text: `./bin/${words[n % words.length]}.sh`, result: text })
          : turn(session.id, n, { ts, role, text }),
      );
    }
    return fileCommit(session, entries);
  });
}

async function seed(engine: StoreEngine): Promise<void> {
  await engine.ingest.transaction(async (tx) => {
    for (const change of [...corpusCommits(), ...generatedCommits()]) await tx.commitFile(change);
  });
}

const anyDay = { startMs: at(1, 0), endMs: at(10, 0) };

const LEXICAL: { name: string; query: LexicalQuery }[] = [
  ...['payment', 'deploy', 'secret', 'test', 'images', 'midnight', 'kubectl', 'staging', 'cache', 'rollback', 'latency'].flatMap((word) => [
    { name: `word ${word}`, query: lexical([word]) },
    { name: `word ${word}, no context`, query: lexical([word], { context: false }) },
  ]),
  { name: 'several words', query: lexical(['payment', 'database']) },
  { name: 'several words, no context', query: lexical(['payment', 'database'], { context: false }) },
  { name: 'three words', query: lexical(['cart', 'totals', 'flaky']) },
  { name: 'words across sessions', query: lexical(['deploy', 'staging', 'blog', 'kafka']) },
  { name: 'many generated words', query: lexical(['redis', 'timeout', 'retry', 'queue', 'worker']) },
  { name: 'every', query: lexical(['payment', 'database'], { every: true }) },
  { name: 'every, no context', query: lexical(['cache', 'redis'], { every: true, context: false }) },
  ...['deploying', 'deployment', 'deployed', 'rotating', 'fails', 'image', 'tested', 'migrations', 'partitions', 'invalidating'].map((word) => ({
    name: `stemmed ${word}`,
    query: lexical([word], { context: false }),
  })),
  ...['payment service', 'hero images', 'cart totals', 'wall clock', 'deployment logs', 'secret was rotated'].map((phrase) => ({
    name: `phrase "${phrase}"`,
    query: lexical([phrase]),
  })),
  ...['DATABASE_URL', 'setSystemTime', 'build_feed.py', 'deploy.sh', 'useFakeTimers', 'cart-totals', 'v2.4.0', '10.0.0.5', 'payment-service'].map((term) => ({
    name: `identifier ${term}`,
    query: lexical([term]),
  })),
  { name: 'stopword the', query: lexical(['the'], { context: false }) },
  { name: 'stopword and', query: lexical(['and']) },
  { name: 'unicode 東京タワー', query: lexical(['東京タワー']) },
  { name: 'unicode café', query: lexical(['café'], { context: false }) },
  { name: 'unicode cafe', query: lexical(['cafe'], { context: false }) },
  { name: 'number 1600', query: lexical(['1600']) },
  ...['paym', 'deploy', 'rollb', 'cach', 'kub', 'stag', 'deploy/paym'].map((term) => ({
    name: `prefix ${term}`,
    query: lexical([term], { prefix: true, context: false }),
  })),
  { name: 'prefixes with context', query: lexical(['paym', 'datab'], { prefix: true }) },
  { name: 'pruned: two words, limit 4', query: lexical(['deploy', 'test'], { limit: 4 }) },
  { name: 'pruned: rare and common words, limit 2', query: lexical(['midnight', 'cache', 'deploy', 'redis'], { limit: 2 }) },
  { name: 'pruned: with filters, limit 2', query: { ...lexical(['deploy', 'kafka', 'payment'], { limit: 2 }), filters: { projects: ['shop'] } } },
  { name: 'pruned: required and excluded, limit 3', query: lexical(['cache', 'redis', 'timeout'], { limit: 3, all: ['cache'], none: ['kafka'] }) },
  { name: 'pruned: excluded, limit 3', query: lexical(['cache', 'redis', 'timeout', 'deploy'], { limit: 3, none: ['kafka'] }) },
  { name: 'pruned: required, limit 3', query: lexical(['cache', 'redis', 'timeout', 'deploy'], { limit: 3, all: ['deploy'] }) },
  { name: 'pruned: a word no entry holds, limit 2', query: lexical(['midnight', 'quokkaflux', 'cache', 'deploy'], { limit: 2 }) },
  { name: 'all', query: lexical(['payment'], { all: ['secret'] }) },
  { name: 'all only', query: lexical([], { all: ['deploy'] }) },
  { name: 'none', query: lexical(['deploy'], { none: ['staging'] }) },
  { name: 'all and none', query: lexical(['deploy', 'cache'], { all: ['deploy'], none: ['blog', 'rollback'] }) },
  { name: 'limit 3 (ties at the cut)', query: lexical(['deploy'], { limit: 3 }) },
  { name: 'limit 5, many words', query: lexical(['cache', 'kafka', 'terraform'], { limit: 5 }) },
  ...(
    [
      ['projects shop', { projects: ['shop'] }],
      ['projects by cwd part', { projects: ['srv/op'] }],
      ['roles user', { roles: ['user'] }],
      ['sources codex', { sources: ['codex'] }],
      ['tools bash', { tools: ['bash'] }],
      ['priorities high', { priorities: ['high'] }],
      ['excludeSessionIds', { excludeSessionIds: ['shop-release', 'ops-cache'] }],
      ['sinceMs', { sinceMs: at(5, 0) }],
      ['windows', { windows: [{ startMs: at(2, 0), endMs: at(3, 0) }, { startMs: at(6, 9), endMs: at(6, 12) }] }],
      ['daily wrapping midnight', { daily: [{ ...anyDay, offsetMs: 0, fromMs: 22 * HOUR, toMs: 10 * HOUR }] }],
      ['sessionRelative', { sessionRelative: { fromMs: 0, toMs: 30 * MINUTE } }],
    ] as [string, SearchFilters][]
  ).flatMap(([name, filters]) => [
    { name: `filter ${name}`, query: { ...lexical(['deploy', 'cache', 'test', 'payment']), filters } },
    { name: `filter ${name}, limit 2`, query: { ...lexical(['deploy', 'cache', 'test', 'payment']), filters, limit: 2 } },
  ]),
];

const TRIGRAM: { name: string; query: LexicalQuery }[] = [
  ...['SystemTi', 'ymen', 'cart-tot', '東京タ', 'build_feed', 'DATABASE', 'deploy', 'test', 'v2.4', 'payment-serv', 'bin/', '.sh --env'].map((term) => ({
    name: term,
    query: lexical([term]),
  })),
  { name: 'several terms', query: lexical(['deploy', 'test', 'cache']) },
  { name: 'short terms dropped', query: lexical(['db', 'cart-tot']) },
  { name: 'filters', query: { ...lexical(['deploy', 'cart-totals']), filters: { projects: ['shop'], roles: ['tool'] } } },
  { name: 'all and none', query: lexical(['cart-totals', 'deploy'], { none: ['PASS'], all: ['test'] }) },
  { name: 'limit 2', query: lexical(['cache', 'deploy'], { limit: 2 }) },
  { name: 'pruned: limit 3', query: lexical(['cart-totals', 'DATABASE_URL', 'deploy'], { limit: 3 }) },
];

const TIME: { name: string; query: TimeSearch }[] = [
  { name: 'everything, newest first', query: timeQuery({}) },
  { name: 'newest first, limit 5', query: timeQuery({}, { limit: 5 }) },
  { name: 'window', query: timeQuery({ windows: [{ startMs: at(6, 0), endMs: at(7, 0) }] }) },
  { name: 'center', query: timeQuery({}, { centerMs: at(5, 14, 12) }) },
  { name: 'center with ties', query: timeQuery({}, { centerMs: at(4, 0, 0), limit: 6 }) },
  { name: 'center in a window', query: timeQuery({ windows: [{ startMs: at(6, 0), endMs: at(7, 0) }] }, { centerMs: at(6, 12), limit: 10 }) },
  { name: 'daily', query: timeQuery({ daily: [{ ...anyDay, offsetMs: 3 * HOUR, fromMs: 11 * HOUR, toMs: 13 * HOUR }] }) },
  { name: 'daily wrapping midnight', query: timeQuery({ daily: [{ ...anyDay, offsetMs: -8 * HOUR, fromMs: 14 * HOUR, toMs: 2 * HOUR }] }) },
  { name: 'sessionRelative fraction', query: timeQuery({ sessionRelative: { fromFraction: 0.2, toFraction: 0.6 } }) },
  { name: 'all and none', query: timeQuery({}, { all: ['deploy'], none: ['staging'] }) },
  { name: 'filters', query: timeQuery({ projects: ['ops', 'blog'], roles: ['tool', 'user'] }, { centerMs: at(6, 10) }) },
];

const TERMS = ['deploying', 'deployment', 'rotating', 'paym', 'kubectl', 'the', 'and', 'café', 'cafe', '東京タワー', 'v2.4.0', 'DATABASE_URL', 'URL_DATABASE', 'DATABASE_NOWHERE', 'databaseurl', 'partitions', '"', 'NEAR'];

registerServerStop();

const engines = selectedEngines();
const both = ALL_ENGINES.every((factory) => engines.some((selected) => selected.name === factory.name));

describe.skipIf(!both)('parity: sqlite and postgres give recall the same candidates', () => {
  const opened: OpenedEngine[] = [];
  let failure: unknown = null;
  const pair = (): [StoreEngine, StoreEngine] => {
    if (failure) throw failure;
    if (opened.length !== 2) throw new Error('engines not open');
    return [opened[0]!.engine, opened[1]!.engine];
  };

  beforeAll(async () => {
    try {
      for (const factory of ALL_ENGINES) {
        const engine = await factory.open();
        opened.push(engine);
        await seed(engine.engine);
      }
    } catch (error) {
      failure = error;
    }
  });
  afterAll(async () => {
    for (const engine of opened) await engine.cleanup();
  });

  function expectSameList(a: Candidate[], b: Candidate[], compareScores: boolean): void {
    expect(b.map((item) => item.entry.id)).toEqual(a.map((item) => item.entry.id));
    expect(b.map((item) => item.entry)).toEqual(a.map((item) => item.entry));
    if (!compareScores) return;
    const far = a
      .map((item, index) => ({ id: item.entry.id, sqlite: item.score, postgres: b[index]!.score }))
      .filter(({ sqlite, postgres }) => Math.abs(sqlite - postgres) > RELATIVE_TOLERANCE * Math.max(Math.abs(sqlite), Math.abs(postgres)));
    expect(far).toEqual([]);
  }

  test('the corpus is the same in both', async () => {
    const [sqlite, postgres] = pair();
    const everything = (engine: StoreEngine) => engine.search.searchTime(timeQuery({}, { limit: 1000 }));
    const [a, b] = [await everything(sqlite), await everything(postgres)];
    expect(a).toHaveLength(82);
    expect(b.map((item) => item.entry.id)).toEqual(a.map((item) => item.entry.id));
    // rowids need not be equal, but must order entries alike: fusion breaks score ties by rowid
    const byRowid = (list: Candidate[]) => [...list].sort((x, y) => x.rowid - y.rowid).map((item) => item.entry.id);
    expect(byRowid(b)).toEqual(byRowid(a));
    expect(await postgres.search.readTimeBounds()).toEqual(await sqlite.search.readTimeBounds());
  });

  test.each(LEXICAL)('lexical: $name', async ({ query }) => {
    const [sqlite, postgres] = pair();
    const a = await sqlite.search.searchLexical(query);
    expect(a.length, 'a parity query should find something').toBeGreaterThan(0);
    expectSameList(a, await postgres.search.searchLexical(query), true);
  });

  test.each(TRIGRAM)('trigram: $name', async ({ query }) => {
    const [sqlite, postgres] = pair();
    const a = await sqlite.search.searchTrigram(query);
    expect(a.length, 'a parity query should find something').toBeGreaterThan(0);
    expectSameList(a, await postgres.search.searchTrigram(query), false);
  });

  test.each(TIME)('time: $name', async ({ query }) => {
    const [sqlite, postgres] = pair();
    const a = await sqlite.search.searchTime(query);
    expect(a.length, 'a parity query should find something').toBeGreaterThan(0);
    expectSameList(a, await postgres.search.searchTime(query), false);
  });

  test('hasLexicalMatch answers alike', async () => {
    const [sqlite, postgres] = pair();
    const answers = async (engine: StoreEngine) => Object.fromEntries(await Promise.all(TERMS.map(async (term) => [term, await engine.search.hasLexicalMatch(term)] as const)));
    expect(await answers(postgres)).toEqual(await answers(sqlite));
  });
});
