import { describe, expect, test } from 'vitest';
import type { ArchiveRecord } from '../../src/model.js';
import { describeEachEngine, useFreshEngine } from './engines.js';
import { CHECKOUT, CORPUS, FEED, FLAKY, IMAGES, RELEASE, at, commitCorpus, entryIds, fileCommit, idSet, ids, lexical, timeQuery } from './fixtures.js';

describeEachEngine('ForgetPort', (factory) => {
  const ctx = useFreshEngine(factory);
  const forget = () => ctx.engine.forget;
  const sorted = (values: string[]) => [...values].sort();

  describe('findSessions', () => {
    test('by ids: only ids that exist', async () => {
      await commitCorpus(ctx.engine);
      expect(sorted(await forget().findSessions({ sessionIds: ['shop-checkout', 'blog-feed', 'no-such-session'] }))).toEqual(['blog-feed', 'shop-checkout']);
      expect(await forget().findSessions({ sessionIds: ['no-such-session'] })).toEqual([]);
      expect(await forget().findSessions({ sessionIds: ['shop-%'] })).toEqual([]);
    });

    test('by project: the name in any case, or part of the cwd with a /', async () => {
      await commitCorpus(ctx.engine);
      expect(sorted(await forget().findSessions({ project: 'SHOP' }))).toEqual(['shop-checkout', 'shop-flaky-test', 'shop-release']);
      expect(sorted(await forget().findSessions({ project: 'dev/blo' }))).toEqual(['blog-feed', 'blog-images']);
      expect(await forget().findSessions({ project: 'sho' })).toEqual([]);
      expect(await forget().findSessions({ project: 'dev/%' })).toEqual([]);
    });

    test('by beforeMs: sessions that ended before it (one still running past it stays)', async () => {
      await commitCorpus(ctx.engine);
      expect(await forget().findSessions({ beforeMs: at(4, 1, 0) })).toEqual(['shop-checkout']);
      expect(sorted(await forget().findSessions({ beforeMs: at(4, 1, 31) }))).toEqual(['shop-checkout', 'shop-flaky-test']);
      expect(await forget().findSessions({ beforeMs: at(2, 9, 10) })).toEqual([]);
      expect(await forget().findSessions({ beforeMs: at(1, 0) })).toEqual([]);
    });

    test('criteria narrow each other; an empty selector selects nothing', async () => {
      await commitCorpus(ctx.engine);
      expect(sorted(await forget().findSessions({ project: 'shop', beforeMs: at(5, 0) }))).toEqual(['shop-checkout', 'shop-flaky-test']);
      expect(await forget().findSessions({ project: 'blog', beforeMs: at(5, 0) })).toEqual([]);
      expect(await forget().findSessions({ sessionIds: ['shop-checkout', 'blog-feed'], project: 'blog' })).toEqual(['blog-feed']);
      expect(await forget().findSessions({ sessionIds: ['shop-release'], beforeMs: at(5, 0) })).toEqual([]);
      expect(await forget().findSessions({})).toEqual([]);
      expect(await forget().findSessions({ sessionIds: [] })).toEqual([]);
    });
  });

  describe('forget', () => {
    async function seed(): Promise<void> {
      await ctx.engine.ingest.transaction(async (tx) => {
        for (const item of CORPUS) {
          await tx.commitFile(
            fileCommit(item.session, item.entries, {
              file: { carry: { pending: `partial line of ${item.session.id}` } },
              anchors: [{ id: `${item.session.id}-compact`, sessionId: item.session.id, ts: item.session.startMs, line: 2, note: 'compacted', originId: null }],
              archived: { session_id: item.session.id, archive_path: `/a/${item.session.id}.jsonl`, content_hash: 'h1', created_at_epoch_secs: 1, indexed_collection: 'moon', projection_filtered_noise_count: 0 },
            }),
          );
        }
      });
      await ctx.engine.ingest.markProjected('shop-checkout', '/home/dev/.moon/archives/mlib/shop-checkout.md');
      await ctx.engine.ingest.putSessionTerms([{ sessionId: 'shop-checkout', terms: ['kubectl', 'secret'] }]);
      await ctx.engine.ingest.putSessionTerms([{ sessionId: 'shop-release', terms: ['kubectl', 'staging'] }]);
      await ctx.engine.vectors.setModel({ id: 'm', dims: 2 });
      const pending = await ctx.engine.vectors.listPending(100);
      await ctx.engine.vectors.put(pending.map((item) => ({ rowid: item.rowid, vector: new Float32Array([1, item.entry.sessionId.length]) })));
    }

    test('returns what it removed, with the files outside the index the caller removes', async () => {
      await seed();
      const removed = await forget().forget(['shop-checkout', 'blog-feed'], 'user asked', at(9, 12));
      expect([...removed].sort((a, b) => a.id.localeCompare(b.id))).toEqual([
        { id: 'blog-feed', project: 'blog', archivePath: FEED.session.archivePath, projectionPath: null },
        { id: 'shop-checkout', project: 'shop', archivePath: CHECKOUT.session.archivePath, projectionPath: '/home/dev/.moon/archives/mlib/shop-checkout.md' },
      ]);
    });

    test('removes sessions, entries, anchors and every index row: no search finds them afterwards', async () => {
      await seed();
      const embeddedBefore = await ctx.engine.vectors.count();
      await forget().forget(['shop-checkout', 'blog-feed'], 'user asked', at(9, 12));
      const { ingest, search, vectors, browse } = ctx.engine;
      expect(await ingest.getSession('shop-checkout')).toBeNull();
      expect(await browse.getSession('blog-feed')).toBeNull();
      expect(sorted((await ingest.listSessions()).map((session) => session.id))).toEqual(['blog-images', 'shop-flaky-test', 'shop-release']);
      expect(await ingest.listEntries('shop-checkout')).toEqual([]);
      expect(await ingest.listAnchors('shop-checkout')).toEqual([]);
      expect(await ingest.listAnchors('blog-feed')).toEqual([]);
      expect(await ingest.listAnchors('shop-release')).toHaveLength(1);
      // lexical, with and without context, every form of a word
      expect(await search.searchLexical(lexical(['payment']))).toEqual([]);
      expect(await search.searchLexical(lexical(['unicode', 'feed']))).toEqual([]);
      expect(await search.hasLexicalMatch('kubectl')).toBe(false);
      expect(await search.hasLexicalMatch('rotated')).toBe(false);
      expect(idSet(await search.searchLexical(lexical(['deploy'], { context: false })))).toEqual(entryIds(RELEASE, 1, 3, 4));
      // trigram
      expect(await search.searchTrigram(lexical(['DATABASE_URL', '東京タ', 'build_feed']))).toEqual([]);
      // time
      expect(await search.searchTime(timeQuery({ windows: [{ startMs: at(2, 0), endMs: at(3, 0) }, { startMs: at(5, 0), endMs: at(6, 0) }] }))).toEqual([]);
      expect(await search.readTimeBounds()).toEqual({ startMs: at(3, 22, 30), endMs: at(8, 16, 30) });
      // vectors
      expect(await vectors.count()).toBe(embeddedBefore - 14);
      const near = await vectors.search({ vector: new Float32Array([1, 13]), filters: {}, all: [], none: [], limit: 100 });
      expect(near).toHaveLength(14);
      expect(near.some((item) => ['shop-checkout', 'blog-feed'].includes(item.entry.sessionId))).toBe(false);
      expect(await vectors.listPending(100)).toEqual([]);
      // browse, stats and terms
      expect((await browse.listSessionSummaries({})).map((summary) => summary.id)).toEqual(['shop-release', 'blog-images', 'shop-flaky-test']);
      expect(await browse.findSessionsByPrefix('shop-c', 10)).toEqual([]);
      const stats = await ctx.engine.stats.stats();
      expect(stats).toMatchObject({ sessions: 3, entries: 14, anchors: 3, embeddings: 14, files: 5 });
      expect(stats.bySource).toEqual({ 'claude-code': { sessions: 2, entries: 10 }, codex: { sessions: 1, entries: 4 } });
      const terms = await ingest.countSessionTerms(['kubectl', 'secret']);
      expect(terms.sessionCount).toBe(3);
      expect([...terms.counts.entries()].sort()).toEqual([
        ['kubectl', 1],
        ['secret', 0],
      ]);
      // other sessions keep everything
      expect(await ingest.listEntries('shop-flaky-test')).toEqual(FLAKY.entries);
      expect(ids(await search.searchTime(timeQuery({ sessionIds: ['blog-images'] })))).toEqual(entryIds(IMAGES, 3, 2, 1));
    });

    test('leaves the file states, marked excluded as forgotten, with no parse state', async () => {
      await seed();
      await forget().forget(['shop-checkout'], 'user asked', at(9, 12));
      expect(await ctx.engine.ingest.getFile(CHECKOUT.session.path)).toMatchObject({ path: CHECKOUT.session.path, excluded: 'forgotten', carry: null });
      expect(await ctx.engine.ingest.getFile(FEED.session.path)).toMatchObject({ excluded: null, carry: { pending: 'partial line of blog-feed' } });
    });

    test('ledger pairs of a forgotten session are never handed out afterwards', async () => {
      await seed();
      await forget().forget(['shop-checkout'], 'user asked', at(9, 12));
      const handed: ArchiveRecord[] = [];
      expect(await ctx.engine.ingest.flushLedger((record) => handed.push(record))).toBe(4);
      expect(handed.map((record) => record.session_id).sort()).toEqual(['blog-feed', 'blog-images', 'shop-flaky-test', 'shop-release']);
    });

    test('tombstones: one per forgotten id, even an id the store never had', async () => {
      await seed();
      const removed = await forget().forget(['shop-release', 'never-indexed'], 'user asked', at(9, 12));
      expect(removed.map((item) => item.id)).toEqual(['shop-release']);
      const tombstones = [...(await forget().listTombstones())].sort((a, b) => a.sessionId.localeCompare(b.sessionId));
      expect(tombstones).toEqual([
        { sessionId: 'never-indexed', project: null, reason: 'user asked', forgottenAtMs: at(9, 12) },
        { sessionId: 'shop-release', project: 'shop', reason: 'user asked', forgottenAtMs: at(9, 12) },
      ]);
      // forgetting again adds no second tombstone and removes nothing more
      expect(await forget().forget(['shop-release'], 'ledger replay', at(9, 13))).toEqual([]);
      expect((await forget().listTombstones()).filter((item) => item.sessionId === 'shop-release')).toHaveLength(1);
      expect(await forget().listTombstones()).toHaveLength(2);
      expect(await forget().forget([], 'nothing', at(9, 14))).toEqual([]);
    });

    test('tx.isForgotten tells a tombstoned session from any other', async () => {
      await seed();
      expect(await forget().listTombstones()).toEqual([]);
      await forget().forget(['blog-images', 'ghost'], 'user asked', at(9, 12));
      const seen = await ctx.engine.ingest.transaction(async (tx) => ({
        images: await tx.isForgotten('blog-images'),
        ghost: await tx.isForgotten('ghost'),
        feed: await tx.isForgotten('blog-feed'),
        unknown: await tx.isForgotten('unknown'),
      }));
      expect(seen).toEqual({ images: true, ghost: true, feed: false, unknown: false });
    });
  });
});
