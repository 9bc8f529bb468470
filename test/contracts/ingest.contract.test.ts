import { describe, expect, test } from 'vitest';
import type { ArchiveRecord, CompactionAnchor, Entry } from '../../src/model.js';
import { BatchAbortedError, type FailureRecord, type FileState } from '../../src/store/types.js';
import { describeEachEngine, useFreshEngine } from './engines.js';
import {
  CHECKOUT,
  FEED,
  FLAKY,
  IMAGES,
  RELEASE,
  archiveRecord,
  at,
  commitCorpus,
  fileCommit,
  fileState,
  idSet,
  lexical,
  storedSession,
  turn,
} from './fixtures.js';

describeEachEngine('IngestPort', (factory) => {
  const ctx = useFreshEngine(factory);
  const ingest = () => ctx.engine.ingest;
  const entryIdsOf = async (sessionId: string) => (await ingest().listEntries(sessionId)).map((entry) => entry.id);

  describe('transaction', () => {
    test('commits every file of the batch and returns what the work returned', async () => {
      const result = await ingest().transaction(async (tx) => {
        await tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries));
        await tx.commitFile(fileCommit(FEED.session, FEED.entries));
        return 'two files';
      });
      expect(result).toBe('two files');
      expect((await ingest().listSessions()).map((session) => session.id).sort()).toEqual(['blog-feed', 'shop-checkout']);
      expect(await entryIdsOf('shop-checkout')).toEqual(CHECKOUT.entries.map((entry) => entry.id));
      expect(await entryIdsOf('blog-feed')).toEqual(FEED.entries.map((entry) => entry.id));
      expect((await ingest().listFiles()).map((file) => file.path).sort()).toEqual([CHECKOUT.session.path, FEED.session.path].sort());
    });

    test('inside a transaction, reads see its own writes', async () => {
      const seen = await ingest().transaction(async (tx) => {
        const before = { file: await tx.getFile(CHECKOUT.session.path), session: await tx.getSession('shop-checkout') };
        await tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries, { file: { offset: 777, line: 8 } }));
        const file = await tx.getFile(CHECKOUT.session.path);
        const session = await tx.getSession('shop-checkout');
        return { before, offset: file?.offset, entryCount: session?.entryCount, forgotten: await tx.isForgotten('shop-checkout') };
      });
      expect(seen).toEqual({ before: { file: null, session: null }, offset: 777, entryCount: 8, forgotten: false });
    });

    test('listEntryKeys: the record keys a session holds, this transaction’s writes included', async () => {
      await ingest().transaction(async (tx) => tx.commitFile(fileCommit(IMAGES.session, IMAGES.entries.slice(0, 2))));
      const keys = await ingest().transaction(async (tx) => {
        const before = [...(await tx.listEntryKeys('blog-images'))].sort();
        await tx.commitFile(fileCommit(IMAGES.session, IMAGES.entries.slice(2), { reset: false }));
        return { before, after: [...(await tx.listEntryKeys('blog-images'))].sort(), unknown: await tx.listEntryKeys('missing') };
      });
      expect(keys).toEqual({ before: ['k1', 'k2'], after: ['k1', 'k2', 'k3'], unknown: [] });
    });

    test('a throwing work leaves nothing: no session, no entries, no file state, no index rows, no ledger pair', async () => {
      const failure = new Error('parser blew up after the first file');
      await expect(
        ingest().transaction(async (tx) => {
          await tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries, { archived: archiveRecord('shop-checkout', 'h1') }));
          await tx.commitFile(fileCommit(FEED.session, FEED.entries));
          throw failure;
        }),
      ).rejects.toThrow('parser blew up after the first file');
      expect(await ingest().getSession('shop-checkout')).toBeNull();
      expect(await ingest().getSession('blog-feed')).toBeNull();
      expect(await ingest().listSessions()).toEqual([]);
      expect(await ingest().listEntries('shop-checkout')).toEqual([]);
      expect(await ingest().getFile(CHECKOUT.session.path)).toBeNull();
      expect(await ingest().listFiles()).toEqual([]);
      expect(await ctx.engine.search.searchLexical(lexical(['payment']))).toEqual([]);
      expect(await ctx.engine.search.searchTrigram(lexical(['payment']))).toEqual([]);
      expect(await ctx.engine.search.readTimeBounds()).toBeNull();
      expect(await ctx.engine.vectors.listPending(10)).toEqual([]);
      const handed: ArchiveRecord[] = [];
      expect(await ingest().flushLedger((record) => handed.push(record))).toBe(0);
      expect(handed).toEqual([]);
      const stats = await ctx.engine.stats.stats();
      expect({ sessions: stats.sessions, entries: stats.entries, files: stats.files }).toEqual({ sessions: 0, entries: 0, files: 0 });
    });

    test('a rolled-back rewrite keeps what was committed before it', async () => {
      await ingest().transaction(async (tx) => tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries, { file: { offset: 100 } })));
      await expect(
        ingest().transaction(async (tx) => {
          await tx.commitFile(fileCommit(CHECKOUT.session, [turn('shop-checkout', 1, { ts: at(2, 9), role: 'user', text: 'replacement text' })], { file: { offset: 5 } }));
          throw new Error('abort the rewrite');
        }),
      ).rejects.toThrow('abort the rewrite');
      expect(await entryIdsOf('shop-checkout')).toEqual(CHECKOUT.entries.map((entry) => entry.id));
      expect((await ingest().listEntries('shop-checkout'))[0]!.text).toBe(CHECKOUT.entries[0]!.text);
      expect((await ingest().getFile(CHECKOUT.session.path))?.offset).toBe(100);
      expect(await ctx.engine.search.searchLexical(lexical(['replacement']))).toEqual([]);
      expect(idSet(await ctx.engine.search.searchLexical(lexical(['checkout'], { context: false })))).toEqual(['shop-checkout.1', 'shop-checkout.8']);
    });

    test('a commit that fails mid-file rejects with BatchAbortedError naming the file, and the whole batch rolls back', async () => {
      const broken = fileCommit(FEED.session, FEED.entries.map((entry) => ({ ...entry })));
      (broken.entries[1] as unknown as { text: unknown }).text = null; // the second entry violates NOT NULL
      let caught: unknown = null;
      try {
        await ingest().transaction(async (tx) => {
          await tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries));
          await tx.commitFile(broken);
        });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(BatchAbortedError);
      expect((caught as BatchAbortedError).path).toBe(FEED.session.path);
      expect(await ingest().listSessions()).toEqual([]);
      expect(await ingest().listFiles()).toEqual([]);
      expect(await ingest().listEntries('blog-feed')).toEqual([]);
      expect(await ingest().listEntries('shop-checkout')).toEqual([]);
    });

    test('a failed commit never leaves half a file, even when the work goes on', async () => {
      const broken = fileCommit(FEED.session, FEED.entries.map((entry) => ({ ...entry })));
      (broken.entries[1] as unknown as { text: unknown }).text = null;
      const outcome = await ingest()
        .transaction(async (tx) => {
          await expect(tx.commitFile(broken)).rejects.toThrow();
          await tx.commitFile(fileCommit(IMAGES.session, IMAGES.entries));
          return 'went on';
        })
        .catch((error: unknown) => error);
      // Either the transaction refuses to commit, or it commits the other file alone: never part of the broken one.
      expect(await ingest().getSession('blog-feed')).toBeNull();
      expect(await ingest().listEntries('blog-feed')).toEqual([]);
      expect(await ingest().getFile(FEED.session.path)).toBeNull();
      if (outcome === 'went on') expect(await entryIdsOf('blog-images')).toEqual(IMAGES.entries.map((entry) => entry.id));
      else expect(await ingest().listSessions()).toEqual([]);
    });

    test('a second transaction waits for the first: their work never interleaves', async () => {
      const events: string[] = [];
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const first = ingest().transaction(async (tx) => {
        events.push('first:start');
        await tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries));
        await gate;
        events.push('first:end');
      });
      const second = ingest().transaction(async (tx) => {
        events.push('second:start');
        const session = await tx.getSession('shop-checkout');
        events.push(`second:sees ${session?.entryCount ?? 'nothing'}`);
        await tx.commitFile(fileCommit(FEED.session, FEED.entries));
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(events).toEqual(['first:start']);
      release();
      await Promise.all([first, second]);
      expect(events).toEqual(['first:start', 'first:end', 'second:start', 'second:sees 8']);
      expect((await ingest().listSessions()).map((session) => session.id).sort()).toEqual(['blog-feed', 'shop-checkout']);
    });

    test('after a failed transaction the engine takes the next one', async () => {
      await expect(ingest().transaction(async () => Promise.reject(new Error('first fails')))).rejects.toThrow('first fails');
      await ingest().transaction(async (tx) => tx.commitFile(fileCommit(IMAGES.session, IMAGES.entries)));
      expect(await entryIdsOf('blog-images')).toEqual(['blog-images.1', 'blog-images.2', 'blog-images.3']);
    });
  });

  describe('file states', () => {
    const carry = {
      pending: [{ uuid: 'a1', text: 'half a line — 東京 ☕', nested: { depth: [1, 2, { three: null }] } }],
      requestIds: ['req_1', 'req_2'],
      count: 3,
      flag: true,
    };

    test('getFile and listFiles round-trip every field: carry as JSON, excluded, offsets, fractional mtime', async () => {
      const withCarry: FileState = fileState(CHECKOUT.session, { size: 9123, mtimeMs: 1772442600123.4567, offset: 8800, line: 57, carry, prefixHash: 'p'.repeat(64), contentHash: 'c'.repeat(64), indexedAtMs: at(9, 1) });
      const excluded: FileState = { ...fileState(storedSession({ id: 'fork-1', source: 'claude-code', project: 'shop', cwd: '/home/dev/shop', startMs: null, endMs: null })), sessionId: null, source: null, carry: null, excluded: 'fork', offset: 0, line: 0 };
      await ingest().transaction(async (tx) => {
        await tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries, { file: withCarry }));
        await tx.commitFile({ file: excluded, session: null, reset: false, entries: [], results: [], anchors: [], usage: [] });
      });
      expect(await ingest().getFile(withCarry.path)).toEqual(withCarry);
      expect(await ingest().getFile(excluded.path)).toEqual(excluded);
      expect(await ingest().getFile('/nowhere.jsonl')).toBeNull();
      const listed = await ingest().listFiles();
      expect([...listed].sort((a, b) => a.path.localeCompare(b.path))).toEqual([withCarry, excluded].sort((a, b) => a.path.localeCompare(b.path)));
      // an excluded file holds no session
      expect(await ingest().listSessions()).toHaveLength(1);
    });

    test('a later commit replaces the file state; forgetFile drops another file state in the same commit', async () => {
      await ingest().transaction(async (tx) => {
        await tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries.slice(0, 4), { file: { offset: 1000, line: 4, carry: { open: 'k4' } } }));
        await tx.commitFile(fileCommit(FEED.session, FEED.entries));
      });
      await ingest().transaction(async (tx) =>
        tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries.slice(4), { reset: false, file: { offset: 2000, line: 8, carry: null } })),
      );
      expect(await ingest().getFile(CHECKOUT.session.path)).toMatchObject({ offset: 2000, line: 8, carry: null });
      const moved = { ...FEED.session, path: '/home/dev/.codex/sessions/rebuilt/blog-feed.jsonl' };
      await ingest().transaction(async (tx) => tx.commitFile(fileCommit(moved, FEED.entries, { forgetFile: FEED.session.path })));
      expect(await ingest().getFile(FEED.session.path)).toBeNull();
      expect((await ingest().getFile(moved.path))?.sessionId).toBe('blog-feed');
      expect((await ingest().listFiles()).map((file) => file.path).sort()).toEqual([CHECKOUT.session.path, moved.path].sort());
    });
  });

  describe('sessions and entries', () => {
    test('getSession round-trips the session; entryCount is counted by the store', async () => {
      const session = storedSession(
        { id: 'sub-agent-1', source: 'claude-code', project: 'shop', cwd: '/home/dev/shop', branch: 'main', startMs: at(2, 10), endMs: at(2, 11), title: 'Refactor cart' },
        { parentSessionId: 'shop-checkout', agentType: 'general-purpose', agentDescription: 'Find every caller of cartTotals', filteredNoiseCount: 4, skipped: { progress: 3, 'file-history-snapshot': 1 }, entryCount: 999, contentHash: 'sha256:abc' },
      );
      const entries = [
        turn('sub-agent-1', 1, { ts: at(2, 10), role: 'user', text: 'Find every caller of cartTotals' }),
        turn('sub-agent-1', 2, { ts: at(2, 10, 1), role: 'assistant', text: 'Searching.' }),
      ];
      const machine = await ingest().transaction(async (tx) => {
        await tx.commitFile(fileCommit(session, entries));
        return tx.machine;
      });
      const { machine: stored, ...rest } = (await ingest().getSession('sub-agent-1'))!;
      expect(rest).toEqual({ ...session, entryCount: 2, projectionStale: true });
      // the machine whose file it was read from, where several share the engine (else null or absent)
      expect(stored ?? null).toBe(machine);
      expect(await ingest().getSession('missing')).toBeNull();
      expect(await ctx.engine.search.getSession('sub-agent-1')).toEqual(await ingest().getSession('sub-agent-1'));
      expect(await ctx.engine.browse.getSession('sub-agent-1')).toEqual(await ingest().getSession('sub-agent-1'));
    });

    test('listEntries round-trips every entry field, in seq order whatever the commit order', async () => {
      const special: Entry = {
        ...turn('shop-checkout', 9, { ts: null, role: 'system', text: 'line one\nline two — “quoted” 東京 😀' }),
        parentId: 'shop-checkout.8',
        sidechain: true,
        kind: 'recap',
        resultId: null,
      };
      const reversed = [...CHECKOUT.entries, special].reverse();
      await ingest().transaction(async (tx) => tx.commitFile(fileCommit(CHECKOUT.session, reversed)));
      const listed = await ingest().listEntries('shop-checkout');
      expect(listed).toEqual([...CHECKOUT.entries, special]);
      expect(await ctx.engine.browse.listEntries('shop-checkout')).toEqual(listed);
      expect(await ingest().listEntries('missing')).toEqual([]);
      expect((await ingest().getSession('shop-checkout'))?.entryCount).toBe(9);
    });

    test('listSessions lists every session once', async () => {
      await commitCorpus(ctx.engine);
      const sessions = await ingest().listSessions();
      expect(sessions.map((session) => session.id).sort()).toEqual(['blog-feed', 'blog-images', 'shop-checkout', 'shop-flaky-test', 'shop-release']);
      expect(sessions.find((session) => session.id === 'shop-flaky-test')?.entryCount).toBe(7);
    });

    test('append: entries with a known key continue one message, results attach to their calls by key', async () => {
      const call = turn('shop-checkout', 3, { ts: at(2, 9, 1), role: 'tool', tool: 'Bash', target: 'kubectl logs deploy/payment-service --tail=50', text: 'kubectl logs deploy/payment-service --tail=50', priority: 'high' });
      const firstChunk = [CHECKOUT.entries[0]!, { ...CHECKOUT.entries[1]!, text: "I'll check the deployment logs" }, call];
      await ingest().transaction(async (tx) => tx.commitFile(fileCommit(CHECKOUT.session, firstChunk, { file: { offset: 300 } })));
      expect(await ctx.engine.search.searchLexical(lexical(['refused']))).toEqual([]);

      const continuation = { ...CHECKOUT.entries[1]!, id: 'later-record-id', seq: 2500, line: 3, text: 'for the payment service first.', toolTarget: 'later-target', kind: 'recap' as const };
      await ingest().transaction(async (tx) =>
        tx.commitFile(
          fileCommit(CHECKOUT.session, [continuation, { ...call, id: 'later-call-record', seq: 3500, text: '--since=1h', toolTarget: 'kubectl logs other' }, CHECKOUT.entries[3]!], {
            reset: false,
            file: { offset: 600 },
            results: [
              { key: 'k3', result: 'Error: connection refused to postgres', resultId: 'toolu_3', exitCode: 1, durationMs: 2300, status: 'failed' },
              { key: 'k3', result: 'retrying in 5s', resultId: 'toolu_3b', append: true },
              { key: 'k-unknown', result: 'a result for a call this store never saw', resultId: 'x' },
            ],
          }),
        ),
      );
      const entries = await ingest().listEntries('shop-checkout');
      expect(entries.map((entry) => entry.id)).toEqual(['shop-checkout.1', 'shop-checkout.2', 'shop-checkout.3', 'shop-checkout.4']);
      const merged = entries[1]!;
      // mergeEntryInto (src/model.ts): the first record's identity, seq and line stay, the text continues, a
      // target or kind the first record lacked comes from the later one
      expect(merged).toMatchObject({ id: 'shop-checkout.2', seq: 2000, line: 2, text: "I'll check the deployment logs\n\nfor the payment service first.", toolTarget: 'later-target', kind: 'recap' });
      expect(entries[2]).toMatchObject({
        result: 'Error: connection refused to postgres\nretrying in 5s',
        resultId: 'toolu_3',
        exitCode: 1,
        durationMs: 2300,
        status: 'failed',
        text: 'kubectl logs deploy/payment-service --tail=50\n\n--since=1h',
        toolTarget: 'kubectl logs deploy/payment-service --tail=50',
      });
      expect((await ingest().getSession('shop-checkout'))?.entryCount).toBe(4);
      // the merged text and the attached result are indexed
      expect(idSet(await ctx.engine.search.searchLexical(lexical(['refused'], { context: false })))).toEqual(['shop-checkout.3']);
      expect(idSet(await ctx.engine.search.searchLexical(lexical(['first'], { context: false })))).toEqual(['shop-checkout.2']);
      expect(idSet(await ctx.engine.search.searchLexical(lexical(['retr'], { prefix: true, context: false })))).toEqual(['shop-checkout.3']);
      expect(idSet(await ctx.engine.search.searchTrigram(lexical(['since=1'])))).toEqual(['shop-checkout.3']);
    });

    test('two entries sharing a key in one commit are one message', async () => {
      const a = turn('blog-images', 1, { ts: at(7, 7), role: 'assistant', text: 'Resizing the hero images' });
      const b = { ...a, id: 'blog-images.1b', seq: 1001, text: 'to 1600px wide.' };
      await ingest().transaction(async (tx) => tx.commitFile(fileCommit(IMAGES.session, [a, b])));
      const entries = await ingest().listEntries('blog-images');
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ id: 'blog-images.1', text: 'Resizing the hero images\n\nto 1600px wide.' });
      expect((await ingest().getSession('blog-images'))?.entryCount).toBe(1);
    });

    test('reset drops what the session had: entries, anchors, index rows', async () => {
      await ingest().transaction(async (tx) =>
        tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries, { anchors: [anchor('shop-checkout', 'compact-1', 5)] })),
      );
      const rewritten = [turn('shop-checkout', 1, { ts: at(2, 9), role: 'user', text: 'A rewritten transcript about invoices.' })];
      await ingest().transaction(async (tx) => tx.commitFile(fileCommit(CHECKOUT.session, rewritten)));
      expect(await ingest().listEntries('shop-checkout')).toEqual(rewritten);
      expect(await ingest().listAnchors('shop-checkout')).toEqual([]);
      expect((await ingest().getSession('shop-checkout'))?.entryCount).toBe(1);
      expect(await ctx.engine.search.searchLexical(lexical(['payment']))).toEqual([]);
      expect(await ctx.engine.search.searchTrigram(lexical(['kubectl']))).toEqual([]);
      expect(await ctx.engine.search.hasLexicalMatch('kubectl')).toBe(false);
      expect(idSet(await ctx.engine.search.searchLexical(lexical(['invoices'])))).toEqual(['shop-checkout.1']);
    });

    test('a later commit keeps session facts it leaves unknown, and marks the projection stale again', async () => {
      await ingest().transaction(async (tx) => tx.commitFile(fileCommit(FEED.session, FEED.entries.slice(0, 3))));
      await ingest().markProjected('blog-feed', '/home/dev/.moon/archives/mlib/blog-feed.md');
      expect(await ingest().getSession('blog-feed')).toMatchObject({ projectionPath: '/home/dev/.moon/archives/mlib/blog-feed.md', projectionStale: false });
      const later = { ...FEED.session, title: null, endMs: at(5, 15), contentHash: 'sha256:grown' };
      await ingest().transaction(async (tx) => tx.commitFile(fileCommit(later, FEED.entries.slice(3), { reset: false })));
      expect(await ingest().getSession('blog-feed')).toMatchObject({
        title: 'RSS feed and unicode titles',
        endMs: at(5, 15),
        contentHash: 'sha256:grown',
        projectionPath: '/home/dev/.moon/archives/mlib/blog-feed.md',
        projectionStale: true,
        entryCount: 6,
      });
    });
  });

  describe('anchors and usage', () => {
    test('anchors are stored per session, replaced by id, listed in line order', async () => {
      const anchors = [anchor('shop-flaky-test', 'compact-b', 30, 'second compaction'), anchor('shop-flaky-test', 'compact-a', 12)];
      const usage = [
        { session_id: 'shop-flaky-test', used_tokens: 151_000, max_tokens: 200_000, usage_ratio: 0.755, captured_at_epoch_secs: Math.floor(at(3, 23) / 1000), provider: 'anthropic' },
        { session_id: 'shop-flaky-test', used_tokens: 30_000, max_tokens: 200_000, usage_ratio: 0.15, captured_at_epoch_secs: Math.floor(at(3, 23, 50) / 1000), provider: 'anthropic' },
      ];
      await ingest().transaction(async (tx) => {
        await tx.commitFile(fileCommit(FLAKY.session, FLAKY.entries, { anchors, usage }));
        await tx.commitFile(fileCommit(IMAGES.session, IMAGES.entries, { anchors: [anchor('blog-images', 'compact-x', 2)] }));
      });
      expect(await ingest().listAnchors('shop-flaky-test')).toEqual([anchors[1], anchors[0]]);
      expect(await ingest().listAnchors('blog-images')).toEqual([anchor('blog-images', 'compact-x', 2)]);
      expect(await ingest().listAnchors('missing')).toEqual([]);
      const replaced = { ...anchors[1]!, note: 'rewritten note', originId: null };
      await ingest().transaction(async (tx) => tx.commitFile(fileCommit(FLAKY.session, [], { reset: false, anchors: [replaced] })));
      expect(await ingest().listAnchors('shop-flaky-test')).toEqual([replaced, anchors[0]]);
      expect((await ctx.engine.stats.stats()).anchors).toBe(3);
    });
  });

  test('markProjected records the projection and clears the stale flag', async () => {
    await commitCorpus(ctx.engine);
    expect((await ingest().getSession('shop-release'))?.projectionStale).toBe(true);
    await ingest().markProjected('shop-release', '/home/dev/.moon/archives/mlib/shop-release.md');
    expect(await ingest().getSession('shop-release')).toMatchObject({ projectionPath: '/home/dev/.moon/archives/mlib/shop-release.md', projectionStale: false });
    expect((await ingest().getSession('shop-checkout'))?.projectionStale).toBe(true);
  });

  test('session terms: recorded per session (replacing), counted by how many sessions hold each term', async () => {
    await commitCorpus(ctx.engine);
    await ingest().putSessionTerms([{ sessionId: 'shop-checkout', terms: ['payment', 'kubectl', 'secret'] }]);
    await ingest().putSessionTerms([{ sessionId: 'shop-release', terms: ['kubectl', 'staging', 'staging'] }]);
    await ingest().putSessionTerms([{ sessionId: 'blog-feed', terms: ['unicode'] }]);
    let counted = await ingest().countSessionTerms(['kubectl', 'payment', 'staging', 'nothing', 'kubectl']);
    expect(counted.sessionCount).toBe(5);
    expect([...counted.counts.entries()].sort()).toEqual([
      ['kubectl', 2],
      ['nothing', 0],
      ['payment', 1],
      ['staging', 1],
    ]);
    await ingest().putSessionTerms([{ sessionId: 'shop-checkout', terms: ['invoice'] }]);
    counted = await ingest().countSessionTerms(['kubectl', 'payment', 'invoice']);
    expect([...counted.counts.entries()].sort()).toEqual([
      ['invoice', 1],
      ['kubectl', 1],
      ['payment', 0],
    ]);
    await ingest().putSessionTerms([{ sessionId: 'shop-checkout', terms: [] }]);
    expect((await ingest().countSessionTerms(['invoice'])).counts.get('invoice')).toBe(0);
    expect((await ingest().countSessionTerms([])).counts.size).toBe(0);
  });

  test('session terms: several sessions in one call, each replacing only its own', async () => {
    await commitCorpus(ctx.engine);
    await ingest().putSessionTerms([{ sessionId: 'blog-feed', terms: ['unicode', 'feed'] }]);
    await ingest().putSessionTerms([
      { sessionId: 'shop-checkout', terms: ['kubectl', 'payment', 'kubectl'] },
      { sessionId: 'shop-release', terms: ['kubectl'] },
    ]);
    await ingest().putSessionTerms([
      { sessionId: 'shop-release', terms: ['staging'] },
      { sessionId: 'blog-feed', terms: [] },
    ]);
    const counted = await ingest().countSessionTerms(['kubectl', 'payment', 'staging', 'unicode', 'feed']);
    expect([...counted.counts.entries()].sort()).toEqual([
      ['feed', 0],
      ['kubectl', 1],
      ['payment', 1],
      ['staging', 1],
      ['unicode', 0],
    ]);
    await ingest().putSessionTerms([]);
    expect((await ingest().countSessionTerms(['kubectl'])).counts.get('kubectl')).toBe(1);
  });

  describe('the ledger', () => {
    test('flushLedger hands each archived pair exactly once', async () => {
      await ingest().transaction(async (tx) => {
        await tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries, { archived: archiveRecord('shop-checkout', 'h1') }));
        await tx.commitFile(fileCommit(FEED.session, FEED.entries, { archived: archiveRecord('blog-feed', 'h1') }));
      });
      // the same pair committed again is not a new line
      await ingest().transaction(async (tx) => tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries, { archived: archiveRecord('shop-checkout', 'h1') })));
      const handed: ArchiveRecord[] = [];
      expect(await ingest().flushLedger((record) => handed.push(record))).toBe(2);
      expect([...handed].sort((a, b) => a.session_id.localeCompare(b.session_id))).toEqual([archiveRecord('blog-feed', 'h1'), archiveRecord('shop-checkout', 'h1')]);
      expect(await ingest().flushLedger((record) => handed.push(record))).toBe(0);
      expect(handed).toHaveLength(2);
      await ingest().transaction(async (tx) => tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries, { archived: archiveRecord('shop-checkout', 'h2') })));
      await ingest().transaction(async (tx) => tx.commitFile(fileCommit(CHECKOUT.session, CHECKOUT.entries, { archived: archiveRecord('shop-checkout', 'h1') })));
      const later: ArchiveRecord[] = [];
      expect(await ingest().flushLedger((record) => later.push(record))).toBe(1);
      expect(later).toEqual([archiveRecord('shop-checkout', 'h2')]);
    });

    test('of two engines over the same data, exactly one hands each pair', async () => {
      await ingest().transaction(async (tx) => tx.commitFile(fileCommit(RELEASE.session, RELEASE.entries, { archived: archiveRecord('shop-release', 'h1') })));
      const other = await ctx.opened.openAnother();
      const handed: string[] = [];
      const counts = await Promise.all([
        ingest().flushLedger((record) => handed.push(`a:${record.content_hash}`)),
        other.ingest.flushLedger((record) => handed.push(`b:${record.content_hash}`)),
      ]);
      expect(counts.reduce((sum, n) => sum + n, 0)).toBe(1);
      expect(handed).toHaveLength(1);
      expect(await other.ingest.flushLedger(() => undefined)).toBe(0);
    });

    test('a failing append leaves the pair for the next flush', async () => {
      await ingest().transaction(async (tx) => tx.commitFile(fileCommit(IMAGES.session, IMAGES.entries, { archived: archiveRecord('blog-images', 'h') })));
      await expect(
        ingest().flushLedger(() => {
          throw new Error('disk full');
        }),
      ).rejects.toThrow('disk full');
      const handed: string[] = [];
      expect(await ingest().flushLedger((record) => handed.push(record.content_hash))).toBe(1);
      expect(handed).toEqual(['h']);
    });
  });

  describe('a file holding several sessions (a whole-file document)', () => {
    const DOC = '/home/dev/shop/.puffin/history.json';
    const docState = (carry: unknown): FileState => ({ ...fileState({ id: 'x', source: 'puffin', path: DOC }), sessionId: null, offset: 0, line: 0, carry });
    const write = (fixture: { session: typeof CHECKOUT.session; entries: Entry[] }, archived: ArchiveRecord | null = null) => ({
      session: { ...fixture.session, path: DOC, source: 'puffin' },
      reset: true,
      entries: fixture.entries,
      results: [],
      anchors: [],
      usage: [],
      archived,
    });
    const empty = { session: null, reset: false, entries: [], results: [], anchors: [], usage: [] };

    test('writes each session, its entries and index rows, the archived pairs and the carry, in one commit', async () => {
      await ingest().transaction(async (tx) =>
        tx.commitFile({ ...empty, file: docState({ sessions: ['a', 'b'] }), sessions: [write(CHECKOUT, archiveRecord('shop-checkout', 'd1')), write(FEED, archiveRecord('blog-feed', 'd1'))] }),
      );
      expect((await ingest().listSessions()).map((session) => [session.id, session.path, session.source]).sort()).toEqual([
        ['blog-feed', DOC, 'puffin'],
        ['shop-checkout', DOC, 'puffin'],
      ]);
      expect(await entryIdsOf('shop-checkout')).toEqual(CHECKOUT.entries.map((entry) => entry.id));
      expect((await ingest().getSession('blog-feed'))?.entryCount).toBe(FEED.entries.length);
      expect(idSet(await ctx.engine.search.searchLexical(lexical(['payment'])))).toContain(CHECKOUT.entries.find((entry) => /payment/i.test(entry.text))!.id);
      expect(await ingest().getFile(DOC)).toMatchObject({ sessionId: null, carry: { sessions: ['a', 'b'] } });
      const pairs: string[] = [];
      await ingest().flushLedger((record) => pairs.push(`${record.session_id}:${record.content_hash}`));
      expect(pairs.sort()).toEqual(['blog-feed:d1', 'shop-checkout:d1']);
    });

    test('a later commit rewrites one session and drops another, leaving the rest as it was', async () => {
      await ingest().transaction(async (tx) => tx.commitFile({ ...empty, file: docState(null), sessions: [write(CHECKOUT), write(FEED), write(IMAGES)] }));
      const imagesBefore = await ingest().listEntries('blog-images');
      const edited = { session: FEED.session, entries: FEED.entries.slice(0, 2) };
      await ingest().transaction(async (tx) => tx.commitFile({ ...empty, file: docState({ v: 2 }), sessions: [write(edited)], dropSessions: ['shop-checkout'] }));
      expect(await ingest().getSession('shop-checkout')).toBeNull();
      expect(await ingest().listEntries('shop-checkout')).toEqual([]);
      expect(await ctx.engine.search.searchLexical(lexical(['payment']))).toEqual([]);
      expect(await entryIdsOf('blog-feed')).toEqual(FEED.entries.slice(0, 2).map((entry) => entry.id));
      expect(await ingest().listEntries('blog-images')).toEqual(imagesBefore);
      expect((await ingest().getFile(DOC))?.carry).toEqual({ v: 2 });
    });

    test('a transaction that throws after the commit leaves none of its sessions', async () => {
      await expect(
        ingest().transaction(async (tx) => {
          await tx.commitFile({ ...empty, file: docState(null), sessions: [write(CHECKOUT), write(FEED)] });
          throw new Error('the next file failed');
        }),
      ).rejects.toThrow('the next file failed');
      expect(await ingest().listSessions()).toEqual([]);
      expect(await ingest().getFile(DOC)).toBeNull();
      expect(await ctx.engine.search.searchLexical(lexical(['payment']))).toEqual([]);
    });
  });

  test('failures: put (replacing by key), list, clear', async () => {
    const file: FailureRecord = { key: '/home/dev/.claude/projects/bad.jsonl', kind: 'file', path: '/home/dev/.claude/projects/bad.jsonl', fingerprint: '812:1772442600123.5', reason: 'not a transcript: line 1 is not JSON', failedAtMs: at(9, 1) };
    const projection: FailureRecord = { key: 'projection:shop-release', kind: 'projection', path: '/home/dev/.moon/archives/mlib/shop-release.md', fingerprint: 'sha256:shop-release', reason: 'EACCES: permission denied', failedAtMs: at(9, 2) };
    expect(await ingest().listFailures()).toEqual([]);
    await ingest().putFailure(file);
    await ingest().putFailure(projection);
    const byKey = (items: FailureRecord[]) => [...items].sort((a, b) => a.key.localeCompare(b.key));
    expect(byKey(await ingest().listFailures())).toEqual(byKey([file, projection]));
    const again = { ...file, fingerprint: '900:1772442700000', reason: 'still not a transcript', failedAtMs: at(9, 3) };
    await ingest().putFailure(again);
    expect(byKey(await ingest().listFailures())).toEqual(byKey([again, projection]));
    await ingest().clearFailure(file.key);
    await ingest().clearFailure('no-such-key');
    expect(await ingest().listFailures()).toEqual([projection]);
  });
});

function anchor(sessionId: string, id: string, line: number, note = 'Conversation compacted'): CompactionAnchor {
  return { id, sessionId, ts: at(3, 23, line), line, note, originId: `${id}-origin` };
}
