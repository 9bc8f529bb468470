import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { migrateIndex } from '../../src/maintain/migrate.js';
import { openSqliteEngine } from '../../src/store/sqlite/engine.js';
import { DEFAULT_MARKER_CONFIG, type MarkerConfig } from '../../src/markers/extract.js';
import type { StoredMarker } from '../../src/markers/types.js';
import type { StoreEngine } from '../../src/store/ports.js';
import { describeEachEngine, useFreshEngine } from './engines.js';
import { CHECKOUT, at, commitCorpus, fileCommit, ids, lexical, storedSession, timeQuery, turn } from './fixtures.js';

/**
 * MarkerPort and the marker filter of recall, on every engine: markers are derived from what a commit stores
 * (merged entries included), replaced with their entries, removed with their sessions, listed newest first, and
 * filter every candidate list inside its query.
 */

const DECISIONS = storedSession({ id: 'shop-decisions', source: 'claude-code', project: 'shop', cwd: '/home/dev/shop', startMs: at(6, 10), endMs: at(6, 11) });

function decisionEntries() {
  return [
    turn(DECISIONS.id, 1, { ts: at(6, 10, 0), role: 'user', text: 'Should the index use WAL?\n@/decision: use WAL mode for the index\nthanks' }),
    turn(DECISIONS.id, 2, {
      ts: at(6, 10, 5),
      role: 'assistant',
      text: 'Agreed.\nline two\nline three\n@/Bug: the checkpoint never runs on close\n@/todo: add a checkpoint on shutdown\nafter one\nafter two\nafter three',
    }),
    turn(DECISIONS.id, 3, { ts: at(6, 10, 6), role: 'assistant', kind: 'reasoning', text: '@/decision: thinking is not a marker' }),
    turn(DECISIONS.id, 4, {
      ts: at(6, 10, 7),
      role: 'tool',
      tool: 'Write',
      target: 'NOTES.md',
      text: '@/todo: written into a file (a tool input)',
      result: 'grep found:\nNOTES.md:3: @/perf: the index scan is slow past 1M rows',
    }),
    turn(DECISIONS.id, 5, { ts: at(6, 10, 30), role: 'user', text: 'Fine. The checkpoint is a second concern, nothing to mark here; see NOTES.md.' }),
  ];
}

async function commitDecisions(engine: StoreEngine): Promise<void> {
  await engine.ingest.transaction(async (tx) => {
    await tx.commitFile(fileCommit(DECISIONS, decisionEntries()));
  });
}

const summary = (markers: StoredMarker[]) => markers.map((marker) => `${marker.entryId}:${marker.type}:${marker.content}`);

describeEachEngine('MarkerPort', (factory) => {
  const ctx = useFreshEngine(factory);

  test("a commit stores its entries' markers: prompts, replies and tool output; never tool input or reasoning", async () => {
    await commitCorpus(ctx.engine);
    await commitDecisions(ctx.engine);
    const markers = await ctx.engine.markers.list({ limit: 100 });
    expect(summary(markers)).toEqual([
      'shop-decisions.4:perf:the index scan is slow past 1M rows',
      'shop-decisions.2:bug:the checkpoint never runs on close',
      'shop-decisions.2:todo:add a checkpoint on shutdown',
      'shop-decisions.1:decision:use WAL mode for the index',
    ]);
    expect(markers[1]).toEqual({
      type: 'bug',
      content: 'the checkpoint never runs on close',
      priority: 8,
      importance: 0.8,
      sessionId: 'shop-decisions',
      entryId: 'shop-decisions.2',
      sourceField: 'response',
      line: 4,
      context: { before: 'line two\nline three', after: '@/todo: add a checkpoint on shutdown\nafter one' },
      ts: at(6, 10, 5),
      project: 'shop',
    });
    expect(markers[3]).toMatchObject({ sourceField: 'prompt', line: 2, priority: 10, importance: 1, context: { before: 'Should the index use WAL?', after: 'thanks' } });
    expect(markers[0]).toMatchObject({ sourceField: 'response', line: 2, context: { before: 'grep found:', after: '' } });
  });

  test('lists filter by type, session, time and words; counts by type ignore the types asked for', async () => {
    await commitCorpus(ctx.engine);
    await commitDecisions(ctx.engine);
    const port = ctx.engine.markers;
    expect(summary(await port.list({ types: ['decision', 'todo'], limit: 10 }))).toEqual([
      'shop-decisions.2:todo:add a checkpoint on shutdown',
      'shop-decisions.1:decision:use WAL mode for the index',
    ]);
    expect(await port.list({ sessionIds: [CHECKOUT.session.id], limit: 10 })).toEqual([]);
    expect(await port.list({ sessionIds: [], limit: 10 })).toEqual([]);
    expect((await port.list({ sessionIds: [DECISIONS.id], limit: 2 })).length).toBe(2);
    expect(summary(await port.list({ sinceMs: at(6, 10, 1), untilMs: at(6, 10, 6), limit: 10 }))).toEqual([
      'shop-decisions.2:bug:the checkpoint never runs on close',
      'shop-decisions.2:todo:add a checkpoint on shutdown',
    ]);
    expect(summary(await port.list({ words: ['CHECKPOINT', 'close'], limit: 10 }))).toEqual(['shop-decisions.2:bug:the checkpoint never runs on close']);
    expect(await port.list({ words: ['100%_'], limit: 10 })).toEqual([]);
    expect(await port.countByType({})).toEqual({ bug: 1, decision: 1, perf: 1, todo: 1 });
    expect(await port.countByType({ words: ['checkpoint'] })).toEqual({ bug: 1, todo: 1 });
  });

  test("a streamed message continued by a later commit gets the continuation's markers once; a result patch adds its own", async () => {
    const first = turn(DECISIONS.id, 1, { ts: at(6, 10), role: 'assistant', text: 'Part one.\n@/decision: keep one writer' });
    const call = turn(DECISIONS.id, 2, { ts: at(6, 10, 1), role: 'tool', tool: 'Bash', target: 'cat TODO', text: 'cat TODO' });
    await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(DECISIONS, [first, call])));
    const continued = { ...first, text: '@/breaking: the lock file moved' };
    await ctx.engine.ingest.transaction(async (tx) =>
      tx.commitFile(fileCommit(DECISIONS, [continued], { reset: false, results: [{ key: call.key, result: '@/todo: from the file', resultId: 'r2' }] })),
    );
    expect(summary(await ctx.engine.markers.list({ limit: 10 }))).toEqual([
      'shop-decisions.2:todo:from the file',
      'shop-decisions.1:decision:keep one writer',
      'shop-decisions.1:breaking:the lock file moved',
    ]);
    const breaking = (await ctx.engine.markers.list({ types: ['breaking'], limit: 1 }))[0]!;
    // The continuation is joined after a blank line (model.ts mergeEntryInto).
    expect(breaking.line).toBe(4);
    expect(breaking.context.before).toBe('@/decision: keep one writer\n');
  });

  test("a session read again from the start replaces its markers; forgetting it removes them", async () => {
    await commitDecisions(ctx.engine);
    await commitDecisions(ctx.engine);
    expect((await ctx.engine.markers.list({ limit: 100 })).length).toBe(4);
    const shorter = decisionEntries().slice(0, 1);
    await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(DECISIONS, shorter)));
    expect(summary(await ctx.engine.markers.list({ limit: 100 }))).toEqual(['shop-decisions.1:decision:use WAL mode for the index']);
    await ctx.engine.forget.forget([DECISIONS.id], 'test', at(9, 0));
    expect(await ctx.engine.markers.list({ limit: 100 })).toEqual([]);
    expect(await ctx.engine.markers.countByType({})).toEqual({});
  });

  test('the marker filter narrows every candidate list inside its query, before the top-k', async () => {
    await commitCorpus(ctx.engine);
    await commitDecisions(ctx.engine);
    // "checkpoint" is in entries 2 and 5 (and, through the neighbours' context, around them); only 2 carries a bug marker.
    const own = { context: false };
    expect(ids(await ctx.engine.search.searchLexical(lexical(['checkpoint'], own))).sort()).toEqual(['shop-decisions.2', 'shop-decisions.5']);
    expect(ids(await ctx.engine.search.searchLexical(lexical(['checkpoint'], { ...own, filters: { markerTypes: ['bug'] } })))).toEqual(['shop-decisions.2']);
    expect(ids(await ctx.engine.search.searchLexical(lexical(['checkpoint'], { ...own, filters: { markerTypes: ['ref'] } })))).toEqual([]);
    expect(ids(await ctx.engine.search.searchLexical(lexical(['checkpoint'], { limit: 1, filters: { markerTypes: ['todo', 'decision'] } }))).length).toBe(1);
    expect(ids(await ctx.engine.search.searchTrigram(lexical(['NOTES.md']))).sort()).toEqual(['shop-decisions.4', 'shop-decisions.5']);
    expect(ids(await ctx.engine.search.searchTrigram(lexical(['NOTES.md'], { filters: { markerTypes: ['perf'] } })))).toEqual(['shop-decisions.4']);
    const inWindow = await ctx.engine.search.searchTime(timeQuery({ windows: [{ startMs: at(6, 0), endMs: at(7, 0) }], markerTypes: ['perf', 'decision'] }));
    expect(ids(inWindow).sort()).toEqual(['shop-decisions.1', 'shop-decisions.4']);
  });

  test('the best match carrying a marker is found however many better matches lack one', async () => {
    const noise = Array.from({ length: 30 }, (_, index) =>
      turn(DECISIONS.id, index + 1, { ts: at(6, 9, index), role: 'user', text: `retry budget retry budget retry note ${index}` }),
    );
    const marked = turn(DECISIONS.id, 31, { ts: at(6, 12), role: 'assistant', text: 'Long reply about many things.\n@/decision: a retry budget of three' });
    await ctx.engine.ingest.transaction(async (tx) => tx.commitFile(fileCommit(DECISIONS, [...noise, marked])));
    const plain = ids(await ctx.engine.search.searchLexical(lexical(['retry', 'budget'], { limit: 5 })));
    expect(plain).not.toContain('shop-decisions.31');
    expect(ids(await ctx.engine.search.searchLexical(lexical(['retry', 'budget'], { limit: 5, filters: { markerTypes: ['decision'] } })))).toEqual(['shop-decisions.31']);
  });

  test('moon migrate (migrateIndex) brings the markers with the entries, already current', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'moon-markers-migrate-'));
    const source = openSqliteEngine(join(dir, 'moon.db'));
    try {
      await commitDecisions(source);
      await migrateIndex(source, ctx.engine);
      expect(await ctx.engine.markers.list({ limit: 10 })).toEqual(await source.markers.list({ limit: 10 }));
      expect(await ctx.engine.markers.sync()).toEqual({ rederived: false, markers: 4 });
    } finally {
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('sync derives every marker again when the patterns change, and does nothing when they have not', async () => {
    await commitDecisions(ctx.engine);
    const first = await ctx.engine.markers.sync();
    expect(first).toEqual({ rederived: true, markers: 4 });
    expect(await ctx.engine.markers.sync()).toEqual({ rederived: false, markers: 4 });
    const custom: MarkerConfig = { patterns: [{ type: 'risk', pattern: 'RISK:\\s*(.+)', priority: 9 }, DEFAULT_MARKER_CONFIG.patterns[0]!], contextLines: 0 };
    const other = await ctx.opened.openAnother({ markers: custom });
    await other.ingest.transaction(async (tx) =>
      tx.commitFile(fileCommit(DECISIONS, [turn(DECISIONS.id, 6, { ts: at(6, 11), role: 'user', text: 'risk: the disk fills up' })], { reset: false })),
    );
    expect(await other.markers.sync()).toEqual({ rederived: true, markers: 2 });
    expect(summary(await other.markers.list({ limit: 10 }))).toEqual(['shop-decisions.6:risk:the disk fills up', 'shop-decisions.1:decision:use WAL mode for the index']);
    expect((await other.markers.list({ types: ['decision'], limit: 1 }))[0]!.context).toEqual({ before: '', after: '' });
    // Back to the defaults: derived again.
    expect(await ctx.engine.markers.sync()).toEqual({ rederived: true, markers: 4 });
  });
});
