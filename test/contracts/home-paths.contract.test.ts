import { describe, expect, test } from 'vitest';
import { withHomePaths } from '../../src/store/home-paths.js';
import { describeEachEngine, useFreshEngine } from './engines.js';
import { CHECKOUT, FEED, archiveRecord, fileCommit } from './fixtures.js';

const HOME = '/home/dev/.moon';
const MOVED = '/mnt/backup/moon-copy';

describeEachEngine('home-relative session paths', (factory) => {
  const ctx = useFreshEngine(factory);

  const commitWithPaths = async (archivePath: string | null, projectionPath: string | null): Promise<void> => {
    const session = { ...CHECKOUT.session, archivePath, projectionPath };
    await ctx.engine.ingest.transaction((tx) => tx.commitFile(fileCommit(session, CHECKOUT.entries)));
  };

  describe('IngestPort.rewriteSessionPaths', () => {
    test('rewrites archive and projection paths in one go, counts changed rows, and is idempotent', async () => {
      await commitWithPaths(`${HOME}/archives/raw/claude-code/shop-checkout.jsonl`, `${HOME}/archives/mlib/shop-checkout.md`);
      await ctx.engine.ingest.transaction((tx) => tx.commitFile(fileCommit({ ...FEED.session, archivePath: null, projectionPath: null }, FEED.entries)));
      const strip = (stored: string): string => (stored.startsWith(`${HOME}/`) ? stored.slice(HOME.length + 1) : stored);
      expect(await ctx.engine.ingest.rewriteSessionPaths(strip)).toBe(1);
      const row = await ctx.engine.ingest.getSession('shop-checkout');
      expect({ archivePath: row?.archivePath, projectionPath: row?.projectionPath }).toEqual({
        archivePath: 'archives/raw/claude-code/shop-checkout.jsonl',
        projectionPath: 'archives/mlib/shop-checkout.md',
      });
      const feed = await ctx.engine.ingest.getSession('blog-feed');
      expect({ archivePath: feed?.archivePath, projectionPath: feed?.projectionPath }).toEqual({ archivePath: null, projectionPath: null });
      expect(await ctx.engine.ingest.rewriteSessionPaths(strip)).toBe(0);
    });
  });

  describe('withHomePaths', () => {
    test('stores paths inside the home relative to it and reads them back against the home in use', async () => {
      const atHome = withHomePaths(ctx.engine, HOME);
      const session = { ...CHECKOUT.session, archivePath: `${HOME}/archives/raw/claude-code/shop-checkout.jsonl`, projectionPath: null };
      await atHome.ingest.transaction((tx) => tx.commitFile(fileCommit(session, CHECKOUT.entries, { archived: { ...archiveRecord('shop-checkout', 'h1'), archive_path: `${HOME}/archives/raw/claude-code/shop-checkout.jsonl` } })));
      await atHome.ingest.markProjected('shop-checkout', `${HOME}/archives/mlib/shop-checkout.md`);

      const raw = await ctx.engine.ingest.getSession('shop-checkout');
      expect(raw?.archivePath).toBe('archives/raw/claude-code/shop-checkout.jsonl');
      expect(raw?.projectionPath).toBe('archives/mlib/shop-checkout.md');
      const flushed: string[] = [];
      await ctx.engine.ingest.flushLedger((record) => flushed.push(record.archive_path));
      expect(flushed).toEqual(['archives/raw/claude-code/shop-checkout.jsonl']);

      // The same rows read through another home: the paths name that home's files.
      const moved = withHomePaths(ctx.engine, MOVED);
      for (const read of [
        await moved.ingest.getSession('shop-checkout'),
        await moved.browse.getSession('shop-checkout'),
        await moved.search.getSession('shop-checkout'),
        (await moved.ingest.listSessions()).find((item) => item.id === 'shop-checkout'),
        (await moved.browse.listSessionSummaries({})).find((item) => item.id === 'shop-checkout'),
      ]) {
        expect(read?.archivePath).toBe(`${MOVED}/archives/raw/claude-code/shop-checkout.jsonl`);
        expect(read?.projectionPath).toBe(`${MOVED}/archives/mlib/shop-checkout.md`);
      }
      const forgotten = await moved.forget.forget(['shop-checkout'], 'test', Date.parse('2026-03-01T00:00:00Z'));
      expect(forgotten.map((item) => [item.archivePath, item.projectionPath])).toEqual([
        [`${MOVED}/archives/raw/claude-code/shop-checkout.jsonl`, `${MOVED}/archives/mlib/shop-checkout.md`],
      ]);
    });

    test('a path outside the home is stored and read back absolute', async () => {
      const atHome = withHomePaths(ctx.engine, HOME);
      const outside = '/home/dev/.moon-other/archives/raw/claude-code/shop-checkout.jsonl';
      await atHome.ingest.transaction((tx) => tx.commitFile(fileCommit({ ...CHECKOUT.session, archivePath: outside, projectionPath: null }, CHECKOUT.entries)));
      expect((await ctx.engine.ingest.getSession('shop-checkout'))?.archivePath).toBe(outside);
      expect((await withHomePaths(ctx.engine, MOVED).ingest.getSession('shop-checkout'))?.archivePath).toBe(outside);
    });
  });
});
