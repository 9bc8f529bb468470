import { expect, test } from 'vitest';
import { toFieldDoc, FIELDS_VERSION } from '../../src/fields/field-doc.js';
import { buildFieldDoc } from '../../src/digest/session-fields.js';
import { rankSessionsByFields } from '../../src/fields/rank-sessions.js';
import { SESSION_FIELDS, type SessionFieldPosting } from '../../src/store/types.js';
import { describeEachEngine, useFreshEngine } from './engines.js';
import { CHECKOUT, FEED, FLAKY, at, commitCorpus, fileCommit } from './fixtures.js';

const ALL = [...SESSION_FIELDS];
const NO_TEXT = { title: '', summary: '', digest: '', files: '', errors: '' };

describeEachEngine('SessionFieldPort', (factory) => {
  const ctx = useFreshEngine(factory);

  test('an empty store: no sessions with fields, no postings, nothing stale', async () => {
    const port = ctx.engine.fields;
    expect(await port.readStats()).toEqual({ sessions: 0, totalLengths: { title: 0, summary: 0, digest: 0, files: 0, errors: 0 } });
    expect(await port.countTerms(['checkout'], ALL)).toEqual(new Map([['checkout', { postings: 0, sessions: 0 }]]));
    expect(await port.listPostings(['checkout'], ALL)).toEqual([]);
    expect(await port.listStale(FIELDS_VERSION)).toEqual([]);
  });

  test('put, then counts, postings with their field lengths, texts and stats read back what was put', async () => {
    await commitCorpus(ctx.engine);
    expect(await ctx.engine.fields.listStale(FIELDS_VERSION)).toEqual([...(await ctx.engine.ingest.listSessions()).map((s) => s.id)].sort());
    const checkout = toFieldDoc(CHECKOUT.session.id, { ...NO_TEXT, title: 'Checkout flow', digest: 'fixed the checkout total; checkout passes', files: 'src/cart.ts' });
    const flaky = toFieldDoc(FLAKY.session.id, { ...NO_TEXT, errors: 'AssertionError: checkout total', summary: 'the flaky test' });
    await ctx.engine.fields.put([checkout, flaky, toFieldDoc('no-such-session', { ...NO_TEXT, title: 'ghost' })]);

    const stats = await ctx.engine.fields.readStats();
    expect(stats.sessions).toBe(2);
    for (const field of SESSION_FIELDS) expect(stats.totalLengths[field]).toBe(checkout.lengths[field] + flaky.lengths[field]);
    expect(await ctx.engine.fields.countTerms(['checkout', 'ghost', 'flaki'], ALL)).toEqual(
      new Map([
        ['checkout', { postings: 3, sessions: 2 }],
        ['ghost', { postings: 0, sessions: 0 }],
        ['flaki', { postings: 1, sessions: 1 }],
      ]),
    );
    const postings = await ctx.engine.fields.listPostings(['checkout'], ALL);
    const expected: SessionFieldPosting[] = [
      { term: 'checkout', sessionId: CHECKOUT.session.id, field: 'title', tf: 1, length: checkout.lengths.title },
      { term: 'checkout', sessionId: CHECKOUT.session.id, field: 'digest', tf: 2, length: checkout.lengths.digest },
      { term: 'checkout', sessionId: FLAKY.session.id, field: 'errors', tf: 1, length: flaky.lengths.errors },
    ];
    expected.sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : SESSION_FIELDS.indexOf(a.field) - SESSION_FIELDS.indexOf(b.field)));
    expect(postings).toEqual(expected);
    // Only the fields asked for: their postings, and the sessions holding the term in them.
    expect(await ctx.engine.fields.countTerms(['checkout'], ['errors', 'files'])).toEqual(new Map([['checkout', { postings: 1, sessions: 1 }]]));
    expect(await ctx.engine.fields.listPostings(['checkout'], ['title'])).toEqual([expected.find((item) => item.field === 'title')]);
    const texts = await ctx.engine.fields.readTexts([CHECKOUT.session.id, 'no-such-session']);
    expect([...texts.keys()]).toEqual([CHECKOUT.session.id]);
    expect(texts.get(CHECKOUT.session.id)?.title).toBe('Checkout flow');
    expect(await ctx.engine.fields.listStale(FIELDS_VERSION)).not.toContain(CHECKOUT.session.id);
    expect(await ctx.engine.fields.listStale(FIELDS_VERSION + 1)).toContain(CHECKOUT.session.id);
  });

  test('a put replaces a session\'s fields whole; forgetting or dropping the session removes them', async () => {
    await commitCorpus(ctx.engine);
    await ctx.engine.fields.put([toFieldDoc(FEED.session.id, { ...NO_TEXT, title: 'rss feed parser' })]);
    await ctx.engine.fields.put([toFieldDoc(FEED.session.id, { ...NO_TEXT, title: 'atom feed' })]);
    expect((await ctx.engine.fields.countTerms(['rss'], ALL)).get('rss')).toEqual({ postings: 0, sessions: 0 });
    expect((await ctx.engine.fields.countTerms(['atom'], ALL)).get('atom')).toEqual({ postings: 1, sessions: 1 });
    await ctx.engine.forget.forget([FEED.session.id], 'test', at(9, 0));
    expect((await ctx.engine.fields.countTerms(['atom'], ALL)).get('atom')).toEqual({ postings: 0, sessions: 0 });
    expect((await ctx.engine.fields.readStats()).sessions).toBe(0);
    expect(await ctx.engine.stats.checkIntegrity()).toEqual([]);
  });

  test('fields made from a committed session rank it first for the words that summarise it', async () => {
    await commitCorpus(ctx.engine);
    const docs = [];
    for (const session of await ctx.engine.ingest.listSessions()) {
      docs.push(buildFieldDoc({ session, entries: await ctx.engine.ingest.listEntries(session.id), anchors: await ctx.engine.ingest.listAnchors(session.id) }));
    }
    await ctx.engine.fields.put(docs);
    const anyField = [...SESSION_FIELDS];
    const words = (await ctx.engine.ingest.listEntries(CHECKOUT.session.id)).find((entry) => entry.role === 'user')!.text.split(/\s+/).slice(0, 6);
    const ranked = await rankSessionsByFields(ctx.engine.fields, words, { fields: anyField, limit: 3 });
    expect(ranked[0]?.sessionId).toBe(CHECKOUT.session.id);
    expect(ranked[0]!.coverage).toBeGreaterThan(0);
    expect(ranked[0]!.coverage).toBeLessThanOrEqual(1);
  });

  test('appending to a session keeps its fields until they are written again', async () => {
    await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries.slice(0, 3))));
    await ctx.engine.fields.put([toFieldDoc(CHECKOUT.session.id, { ...NO_TEXT, title: 'checkout' })]);
    await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries.slice(3), { reset: false })));
    expect((await ctx.engine.fields.readStats()).sessions).toBe(1);
  });
});
