import { expect, test } from 'vitest';
import type { RunRecord } from '../../src/store/types.js';
import { describeEachEngine, useFreshEngine } from './engines.js';
import { CHECKOUT, FLAKY, at, commitCorpus, fileCommit, fileState, storedSession } from './fixtures.js';

describeEachEngine('StatsPort', (factory) => {
  const ctx = useFreshEngine(factory);

  test('an empty store: zero counts, no model, no sources, no last run, sound', async () => {
    const stats = await ctx.engine.stats.stats();
    expect(stats).toMatchObject({ sessions: 0, entries: 0, files: 0, anchors: 0, embeddings: 0, embeddingModel: null, bySource: {}, lastRun: null });
    expect(typeof stats.dbBytes).toBe('number');
    expect(stats.dbBytes).toBeGreaterThanOrEqual(0);
    expect(await ctx.engine.stats.checkIntegrity()).toEqual([]);
  });

  test('counts sessions, entries, files (excluded ones too), anchors, embeddings, and per source', async () => {
    await commitCorpus(ctx.engine);
    const fork = storedSession({ id: 'fork', source: 'claude-code', project: null, cwd: null, startMs: null, endMs: null });
    await ctx.engine.ingest.transaction(async (tx) => {
      await tx.commitFile({ file: { ...fileState(fork), sessionId: null, source: null, excluded: 'fork' }, session: null, reset: false, entries: [], results: [], anchors: [], usage: [] });
      await tx.commitFile(
        fileCommit(FLAKY.session, [], {
          reset: false,
          anchors: [
            { id: 'compact-1', sessionId: 'shop-flaky-test', ts: at(3, 23), line: 40, note: 'compacted', originId: null },
            { id: 'compact-2', sessionId: 'shop-flaky-test', ts: at(4, 1), line: 90, note: 'compacted again', originId: 'compact-1' },
          ],
        }),
      );
    });
    await ctx.engine.vectors.setModel({ id: 'm', dims: 2 });
    const pending = await ctx.engine.vectors.listPending(3);
    await ctx.engine.vectors.put(pending.map((item) => ({ rowid: item.rowid, vector: new Float32Array([1, item.rowid]) })));
    const stats = await ctx.engine.stats.stats();
    expect(stats).toMatchObject({
      sessions: 5,
      entries: 28,
      files: 6,
      anchors: 2,
      embeddings: 3,
      embeddingModel: { id: 'm', dims: 2 },
      lastRun: null,
    });
    expect(stats.bySource).toEqual({ 'claude-code': { sessions: 3, entries: 18 }, codex: { sessions: 2, entries: 10 } });
    expect(stats.dbBytes).toBeGreaterThan(0);
  });

  test('entry counts follow appends and rewrites', async () => {
    await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries.slice(0, 3))));
    await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries.slice(3), { reset: false })));
    expect((await ctx.engine.stats.stats()).entries).toBe(8);
    expect((await ctx.engine.stats.stats()).bySource).toEqual({ 'claude-code': { sessions: 1, entries: 8 } });
    await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries.slice(0, 2))));
    expect((await ctx.engine.stats.stats()).entries).toBe(2);
    expect((await ctx.engine.stats.stats()).bySource).toEqual({ 'claude-code': { sessions: 1, entries: 2 } });
  });

  test('recordRun: the last recorded run is lastRun', async () => {
    const first: RunRecord = { startedAtMs: at(9, 8), finishedAtMs: at(9, 8, 1), command: 'index', files: 12, filesChanged: 5, entries: 28, warnings: 1, errors: 0 };
    const second: RunRecord = { startedAtMs: at(9, 9), finishedAtMs: at(9, 9, 0, 3), command: 'index --force', files: 12, filesChanged: 0, entries: 0, warnings: 0, errors: 2 };
    await ctx.engine.stats.recordRun(first);
    expect((await ctx.engine.stats.stats()).lastRun).toEqual(first);
    await ctx.engine.stats.recordRun(second);
    expect((await ctx.engine.stats.stats()).lastRun).toEqual(second);
  });

  test('checkIntegrity finds nothing wrong with a store that was written, rewritten and forgotten from', async () => {
    await commitCorpus(ctx.engine);
    await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries.slice(0, 4))));
    await ctx.engine.forget.forget(['blog-feed'], 'test', at(9, 0));
    expect(await ctx.engine.stats.checkIntegrity()).toEqual([]);
  });
});
