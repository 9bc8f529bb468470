import { describe, expect, test } from 'vitest';
import type { Candidate, SearchFilters } from '../../src/store/types.js';
import { describeEachEngine, useFreshEngine } from './engines.js';
import { CHECKOUT, CORPUS, FEED, IMAGES, RELEASE, allEntries, at, commitCorpus, entryIds, fileCommit, idSet, ids, turn } from './fixtures.js';

/**
 * Hand-made 3-d vectors: one axis per topic (outage, tests, blog), so the nearest entries are known. Every
 * corpus entry gets a distinct direction.
 */
function vectorFor(id: string): number[] {
  const [sessionId, n] = [id.slice(0, id.lastIndexOf('.')), Number(id.slice(id.lastIndexOf('.') + 1))];
  const wobble = n / 10;
  switch (sessionId) {
    case 'shop-checkout':
      return [1, wobble, 0];
    case 'shop-flaky-test':
      return [wobble, 1, 0];
    case 'blog-feed':
      return [0, wobble, 1];
    case 'blog-images':
      return [wobble, 0, 1];
    default:
      return [1, 1, wobble];
  }
}

function cosine(a: readonly number[], b: readonly number[]): number {
  const dot = a.reduce((sum, value, index) => sum + value * b[index]!, 0);
  const norm = (v: readonly number[]) => Math.sqrt(v.reduce((sum, value) => sum + value * value, 0));
  return dot / (norm(a) * norm(b));
}

describeEachEngine('VectorPort', (factory) => {
  const ctx = useFreshEngine(factory);
  const vectors = () => ctx.engine.vectors;

  async function embedAll(): Promise<void> {
    for (;;) {
      const pending = await vectors().listPending(7);
      if (pending.length === 0) return;
      await vectors().put(pending.map((item) => ({ rowid: item.rowid, vector: new Float32Array(vectorFor(item.entry.id)) })));
    }
  }

  const nearest = async (vector: number[], filters: SearchFilters = {}, limit = 100, terms: { all?: string[]; none?: string[] } = {}) => {
    const found = await vectors().search({ vector: new Float32Array(vector), filters, all: terms.all ?? [], none: terms.none ?? [], limit });
    for (let index = 1; index < found.length; index += 1) expect(found[index]!.score).toBeLessThanOrEqual(found[index - 1]!.score);
    return found;
  };

  /** Corpus entry ids (passing `keep`) by cosine to `query`, nearest first. */
  const expectedOrder = (query: number[], keep: (id: string) => boolean = () => true) =>
    allEntries()
      .map((entry) => entry.id)
      .filter(keep)
      .map((id) => ({ id, similarity: cosine(query, vectorFor(id)) }))
      .sort((a, b) => b.similarity - a.similarity)
      .map((item) => item.id);

  test('the model: none at first, set, kept when unchanged, and a switch drops every vector', async () => {
    await commitCorpus(ctx.engine);
    expect(await vectors().getModel()).toBeNull();
    await vectors().setModel({ id: 'local:minilm-l6', dims: 3 });
    expect(await vectors().getModel()).toEqual({ id: 'local:minilm-l6', dims: 3 });
    await embedAll();
    expect(await vectors().count()).toBe(28);
    await vectors().setModel({ id: 'local:minilm-l6', dims: 3 });
    expect(await vectors().count()).toBe(28);
    expect(await vectors().listPending(100)).toEqual([]);
    await vectors().setModel({ id: 'openai:text-embedding-3-small', dims: 3 });
    expect(await vectors().getModel()).toEqual({ id: 'openai:text-embedding-3-small', dims: 3 });
    expect(await vectors().count()).toBe(0);
    expect(await vectors().listPending(100)).toHaveLength(28);
    expect(await nearest([1, 0, 0])).toEqual([]);
    await embedAll();
    await vectors().setModel({ id: 'openai:text-embedding-3-small', dims: 4 });
    expect(await vectors().count()).toBe(0);
    expect((await ctx.engine.stats.stats()).embeddingModel).toEqual({ id: 'openai:text-embedding-3-small', dims: 4 });
  });

  test('listPending hands out entries without a vector, at most `limit`, each with its stored entry', async () => {
    await commitCorpus(ctx.engine);
    await vectors().setModel({ id: 'm', dims: 3 });
    const first = await vectors().listPending(5);
    expect(first).toHaveLength(5);
    expect(new Set(first.map((item) => item.rowid)).size).toBe(5);
    const byId = new Map(allEntries().map((entry) => [entry.id, entry]));
    for (const item of first) expect(item.entry).toEqual(byId.get(item.entry.id));
    await vectors().put(first.map((item) => ({ rowid: item.rowid, vector: new Float32Array(vectorFor(item.entry.id)) })));
    expect(await vectors().count()).toBe(5);
    const rest = await vectors().listPending(100);
    expect(rest).toHaveLength(23);
    const done = new Set(first.map((item) => item.entry.id));
    expect(rest.some((item) => done.has(item.entry.id))).toBe(false);
    expect([...done, ...rest.map((item) => item.entry.id)].sort()).toEqual(allEntries().map((entry) => entry.id).sort());
    // a vector put twice is replaced, not counted twice
    await vectors().put([{ rowid: first[0]!.rowid, vector: new Float32Array([0, 0, 1]) }]);
    expect(await vectors().count()).toBe(5);
    expect(await vectors().listPending(0)).toEqual([]);
  });

  test('search ranks by cosine similarity (higher score nearer), over embedded entries only', async () => {
    await commitCorpus(ctx.engine);
    await vectors().setModel({ id: 'm', dims: 3 });
    expect(await nearest([1, 0, 0])).toEqual([]);
    await embedAll();
    const query = [1, 0.25, 0.05];
    const found = await nearest(query, {}, 6);
    expect(ids(found)).toEqual(expectedOrder(query).slice(0, 6));
    for (const item of found) expect(item.score).toBeCloseTo(cosine(query, vectorFor(item.entry.id)), 5);
    // the query's length does not matter, only its direction
    expect(ids(await nearest(query.map((value) => value * 40), {}, 6))).toEqual(ids(found));
    expect(ids(await nearest([0, 0.05, 1], {}, 3))).toEqual(expectedOrder([0, 0.05, 1]).slice(0, 3));
  });

  test('filters and all / none terms apply before the top-k', async () => {
    await commitCorpus(ctx.engine);
    await vectors().setModel({ id: 'm', dims: 3 });
    await embedAll();
    const outage = [1, 0.1, 0];
    const blog = (id: string) => id.startsWith('blog-');
    // the blog entries are the farthest from this query: a filter after the top-k would return nothing
    expect(expectedOrder(outage).slice(0, 18).some(blog)).toBe(false);
    expect(ids(await nearest(outage, { projects: ['blog'] }, 2))).toEqual(expectedOrder(outage, blog).slice(0, 2));
    expect(ids(await nearest(outage, { sessionIds: ['blog-images'] }, 10))).toEqual(expectedOrder(outage, (id) => id.startsWith('blog-images.')));
    expect(ids(await nearest(outage, { roles: ['user'], sources: ['codex'] }, 10))).toEqual(expectedOrder(outage, (id) => ['blog-feed.1', 'blog-feed.5', 'shop-release.1'].includes(id)));
    expect(idSet(await nearest(outage, { windows: [{ startMs: at(7, 0), endMs: at(8, 0) }] }, 10))).toEqual(entryIds(IMAGES, 1, 2, 3));
    expect(idSet(await nearest(outage, { tools: ['bash'] }, 10))).toEqual(['blog-images.2', 'shop-checkout.3', 'shop-checkout.7', 'shop-flaky-test.3', 'shop-flaky-test.6']);
    expect(idSet(await nearest(outage, {}, 10, { all: ['deploy'], none: ['staging'] }))).toEqual(['blog-feed.5', 'blog-feed.6', 'shop-checkout.1', 'shop-checkout.3', 'shop-checkout.7']);
    expect(ids(await nearest(outage, { projects: ['blog'] }, 1, { all: ['images'] }))).toEqual(expectedOrder(outage, (id) => ['blog-images.1', 'blog-images.2', 'blog-images.3'].includes(id)).slice(0, 1));
    const top = await nearest(outage, {}, 3);
    const withoutTop = await nearest(outage, { excludeRowids: top.map((item: Candidate) => item.rowid) }, 2);
    expect(ids(withoutTop)).toEqual(expectedOrder(outage).slice(3, 5));
  });

  test('re-committing an entry’s text, or attaching a result, queues that entry for embedding again', async () => {
    await commitCorpus(ctx.engine);
    await vectors().setModel({ id: 'm', dims: 3 });
    await embedAll();
    expect(await vectors().count()).toBe(28);
    const more = { ...IMAGES.entries[2]!, id: 'later', text: 'Also converted them to webp.' };
    await ctx.engine.ingest.transaction(async (tx) =>
      tx.commitFile(fileCommit(IMAGES.session, [more], { reset: false, results: [{ key: 'k2', result: 'resized 6 images, saved 2.1 MB', resultId: 'r2' }] })),
    );
    expect(idSet(await vectors().listPending(100))).toEqual(entryIds(IMAGES, 2, 3));
    expect(await vectors().count()).toBe(26);
    const pending = await vectors().listPending(100);
    expect(pending.find((item) => item.entry.id === 'blog-images.3')?.entry.text).toBe(
      'Resized the hero images to 1600px wide; the homepage now loads in half the time.\n\nAlso converted them to webp.',
    );
    // a new entry appended to a session is pending too; the stale vector of a changed entry is never searched
    await ctx.engine.ingest.transaction(async (tx) =>
      tx.commitFile(fileCommit(RELEASE.session, [turn('shop-release', 5, { ts: at(8, 17), role: 'user', text: 'Promote it to production tomorrow.' })], { reset: false })),
    );
    expect(idSet(await vectors().listPending(100))).toEqual([...entryIds(IMAGES, 2, 3), 'shop-release.5']);
    expect(idSet(await nearest([1, 0, 1], { sessionIds: ['blog-images'] }))).toEqual(['blog-images.1']);
  });

  test('a reset commit queues the whole session again', async () => {
    await commitCorpus(ctx.engine);
    await vectors().setModel({ id: 'm', dims: 3 });
    await embedAll();
    await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(FEED.session, FEED.entries)));
    expect(idSet(await vectors().listPending(100))).toEqual(entryIds(FEED, 1, 2, 3, 4, 5, 6));
    expect(await vectors().count()).toBe(22);
    expect(CORPUS.length).toBe(5);
    expect(await nearest([0, 0, 1], { sessionIds: ['blog-feed'] })).toEqual([]);
  });

  describe('with no vectors', () => {
    test('count is 0 and search finds nothing', async () => {
      expect(await vectors().count()).toBe(0);
      expect(await vectors().listPending(10)).toEqual([]);
      await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries)));
      expect(await vectors().count()).toBe(0);
      expect(await vectors().listPending(100)).toHaveLength(8);
    });
  });
});
