import { describe, expect, test } from 'vitest';
import type { SessionListFilter } from '../../src/store/types.js';
import { describeEachEngine, useFreshEngine, useSeededEngine } from './engines.js';
import { CHECKOUT, CORPUS, FEED, FLAKY, at, commitCorpus, fileCommit, storedSession, turn } from './fixtures.js';

describeEachEngine('BrowsePort', (factory) => {
  describe('session summaries over the corpus', () => {
    const ctx = useSeededEngine(factory, commitCorpus);
    const list = async (filter: SessionListFilter) => (await ctx.engine.browse.listSessionSummaries(filter)).map((summary) => summary.id);

    test('newest first, each with its stored session', async () => {
      const summaries = await ctx.engine.browse.listSessionSummaries({});
      expect(summaries.map((summary) => summary.id)).toEqual(['shop-release', 'blog-images', 'blog-feed', 'shop-flaky-test', 'shop-checkout']);
      for (const summary of summaries) {
        const { messages: _messages, tools: _tools, firstPrompt: _firstPrompt, ...session } = summary;
        expect(session).toEqual(await ctx.engine.browse.getSession(summary.id));
      }
    });

    test('session records are the summaries without their counts, under the same filter; ids keeps only those sessions', async () => {
      for (const filter of [{}, { projects: ['shop'] }, { ids: ['blog-feed', 'shop-release', 'no-such-session'] }, { ids: [] }, { projects: ['blog'], ids: ['blog-feed', 'shop-release'], limit: 5 }] as SessionListFilter[]) {
        const records = await ctx.engine.browse.listSessionRecords(filter);
        const summaries = await ctx.engine.browse.listSessionSummaries(filter);
        expect(records).toEqual(summaries.map(({ messages: _m, tools: _t, firstPrompt: _f, ...session }) => session));
      }
      expect(await list({ ids: ['blog-feed', 'shop-release', 'no-such-session'] })).toEqual(['shop-release', 'blog-feed']);
      expect(await list({ ids: [] })).toEqual([]);
      expect(await list({ projects: ['blog'], ids: ['blog-feed', 'shop-release'] })).toEqual(['blog-feed']);
    });

    test('messages count user and assistant entries, not tool calls or reasoning', async () => {
      const summaries = await ctx.engine.browse.listSessionSummaries({});
      expect(Object.fromEntries(summaries.map((summary) => [summary.id, summary.messages]))).toEqual({
        'shop-checkout': 4,
        'shop-flaky-test': 4,
        'blog-feed': 4,
        'blog-images': 2,
        'shop-release': 2,
      });
    });

    test('tools with their call counts, most used first', async () => {
      const summaries = await ctx.engine.browse.listSessionSummaries({});
      expect(Object.fromEntries(summaries.map((summary) => [summary.id, summary.tools]))).toEqual({
        'shop-checkout': [
          { name: 'Bash', count: 2 },
          { name: 'Read', count: 1 },
        ],
        'shop-flaky-test': [
          { name: 'Bash', count: 2 },
          { name: 'Edit', count: 1 },
        ],
        'blog-feed': [{ name: 'exec_command', count: 2 }],
        'blog-images': [{ name: 'Bash', count: 1 }],
        'shop-release': [{ name: 'exec_command', count: 2 }],
      });
    });

    test('firstPrompt is the start of the first user entry', async () => {
      const summaries = await ctx.engine.browse.listSessionSummaries({});
      expect(Object.fromEntries(summaries.map((summary) => [summary.id, summary.firstPrompt]))).toEqual(
        Object.fromEntries(CORPUS.map((item) => [item.session.id, item.entries.find((entry) => entry.role === 'user')!.text])),
      );
    });

    test('projects by name (any case) or by part of the cwd', async () => {
      expect(await list({ projects: ['SHOP'] })).toEqual(['shop-release', 'shop-flaky-test', 'shop-checkout']);
      expect(await list({ projects: ['dev/blo'] })).toEqual(['blog-images', 'blog-feed']);
      expect(await list({ projects: ['blog', 'shop'] })).toEqual(['shop-release', 'blog-images', 'blog-feed', 'shop-flaky-test', 'shop-checkout']);
      expect(await list({ projects: ['sho'] })).toEqual([]);
      expect(await list({ projects: ['dev/%'] })).toEqual([]);
    });

    test('sources, and a time range a session overlaps', async () => {
      expect(await list({ sources: ['codex'] })).toEqual(['shop-release', 'blog-feed']);
      expect(await list({ sources: ['openclaw'] })).toEqual([]);
      // the flaky-test session began on the 3rd and ran into the 4th
      expect(await list({ sinceMs: at(4, 1, 0) })).toEqual(['shop-release', 'blog-images', 'blog-feed', 'shop-flaky-test']);
      expect(await list({ sinceMs: at(4, 1, 31) })).toEqual(['shop-release', 'blog-images', 'blog-feed']);
      // until is exclusive: a session starting at it is not listed
      expect(await list({ untilMs: at(3, 22, 30) })).toEqual(['shop-checkout']);
      expect(await list({ sinceMs: at(4, 0), untilMs: at(7, 7, 1) })).toEqual(['blog-images', 'blog-feed', 'shop-flaky-test']);
      expect(await list({ sinceMs: at(6, 0), untilMs: at(7, 0) })).toEqual([]);
    });

    test('limit, and filters together', async () => {
      expect(await list({ limit: 2 })).toEqual(['shop-release', 'blog-images']);
      expect(await list({ projects: ['shop'], sources: ['claude-code'], limit: 1 })).toEqual(['shop-flaky-test']);
      expect(await list({ projects: ['shop'], sources: ['codex'], sinceMs: at(9, 0) })).toEqual([]);
    });

    test('getEntriesByIds: by the entries own ids, in one session or any, by session then session order', async () => {
      const browse = ctx.engine.browse;
      const wanted = [FLAKY.entries[2]!.id, CHECKOUT.entries[1]!.id, CHECKOUT.entries[0]!.id, 'no-such-id', FLAKY.entries[2]!.id];
      expect(await browse.getEntriesByIds(wanted)).toEqual([CHECKOUT.entries[0], CHECKOUT.entries[1], FLAKY.entries[2]]);
      expect(await browse.getEntriesByIds(wanted, 'shop-checkout')).toEqual([CHECKOUT.entries[0], CHECKOUT.entries[1]]);
      expect(await browse.getEntriesByIds(wanted, 'blog-feed')).toEqual([]);
      expect(await browse.getEntriesByIds(wanted, 'no-such-session')).toEqual([]);
      expect(await browse.getEntriesByIds([])).toEqual([]);
      expect(await browse.getEntriesByIds(['%', '_', "'"])).toEqual([]);
    });

    test('listSessionPlaces: every session with its cwd and project, by id', async () => {
      expect(await ctx.engine.browse.listSessionPlaces()).toEqual(
        [...CORPUS].map((item) => ({ id: item.session.id, cwd: item.session.cwd, project: item.session.project })).sort((a, b) => (a.id < b.id ? -1 : 1)),
      );
    });

    test('getSession and listEntries', async () => {
      expect(await ctx.engine.browse.getSession('blog-feed')).toMatchObject({ id: 'blog-feed', entryCount: 6, source: 'codex', cwd: '/home/dev/blog' });
      expect(await ctx.engine.browse.getSession('blog')).toBeNull();
      expect(await ctx.engine.browse.listEntries('blog-feed')).toEqual(FEED.entries);
    });
  });

  describe('small stores', () => {
    const ctx = useFreshEngine(factory);

    test('a session without user entries has no first prompt, no messages; a long prompt is cut at its start', async () => {
      const quiet = storedSession({ id: 'quiet', source: 'codex', project: 'shop', cwd: '/home/dev/shop', startMs: at(2, 8), endMs: at(2, 8, 5) });
      const long = storedSession({ id: 'long', source: 'claude-code', project: 'shop', cwd: '/home/dev/shop', startMs: at(2, 7), endMs: at(2, 7, 5) });
      const prompt = `Please review ${'the checkout flow and the payment retries '.repeat(30)}`.trim();
      await ctx.engine.ingest.transaction(async (tx) => {
        await tx.commitFile(fileCommit(quiet, [turn('quiet', 1, { ts: at(2, 8), role: 'tool', tool: 'exec_command', target: 'ls', text: 'ls', result: 'src' })]));
        await tx.commitFile(
          fileCommit(long, [
            turn('long', 2, { ts: at(2, 7, 1), role: 'user', text: 'a later question' }),
            turn('long', 1, { ts: at(2, 7), role: 'user', text: prompt }),
            turn('long', 3, { ts: at(2, 7, 2), role: 'assistant', kind: 'reasoning', text: 'thinking about retries' }),
            turn('long', 4, { ts: at(2, 7, 3), role: 'system', text: 'a system note' }),
          ]),
        );
      });
      const summaries = await ctx.engine.browse.listSessionSummaries({});
      expect(summaries.map((summary) => summary.id)).toEqual(['quiet', 'long']);
      expect(summaries[0]).toMatchObject({ messages: 0, firstPrompt: null, tools: [{ name: 'exec_command', count: 1 }] });
      expect(summaries[1]).toMatchObject({ messages: 2, tools: [] });
      const first = summaries[1]!.firstPrompt!;
      expect(first.length).toBeGreaterThanOrEqual(100);
      expect(first.length).toBeLessThan(prompt.length);
      expect(prompt.startsWith(first)).toBe(true);
    });

    test('an empty store lists nothing', async () => {
      expect(await ctx.engine.browse.listSessionSummaries({})).toEqual([]);
      expect(await ctx.engine.browse.findSessionsByPrefix('a', 10)).toEqual([]);
      expect(await ctx.engine.browse.listSessionPlaces()).toEqual([]);
      expect(await ctx.engine.browse.getEntriesByIds(['a'])).toEqual([]);
    });

    test('an id two sessions share is found in both, or in the one named; a session without a cwd has a null place', async () => {
      const one = storedSession({ id: 'rollout-1', source: 'codex', project: null, cwd: null, startMs: at(2, 8), endMs: at(2, 8, 5) });
      const two = storedSession({ id: 'rollout-2', source: 'codex', project: 'api', cwd: '/home/dev/api', startMs: at(3, 8), endMs: at(3, 8, 5) });
      const line = (sessionId: string, n: number, text: string) => ({ ...turn(sessionId, n, { ts: at(2, 8, n), role: 'user', text }), id: `L${n}` });
      await ctx.engine.ingest.transaction(async (tx) => {
        await tx.commitFile(fileCommit(one, [line('rollout-1', 1, 'first of one'), line('rollout-1', 2, 'second of one')]));
        await tx.commitFile(fileCommit(two, [line('rollout-2', 2, 'second of two')]));
      });
      const both = await ctx.engine.browse.getEntriesByIds(['L2']);
      expect(both.map((entry) => [entry.sessionId, entry.text])).toEqual([
        ['rollout-1', 'second of one'],
        ['rollout-2', 'second of two'],
      ]);
      expect((await ctx.engine.browse.getEntriesByIds(['L2', 'L1'], 'rollout-1')).map((entry) => entry.text)).toEqual(['first of one', 'second of one']);
      expect(await ctx.engine.browse.listSessionPlaces()).toEqual([
        { id: 'rollout-1', cwd: null, project: null },
        { id: 'rollout-2', cwd: '/home/dev/api', project: 'api' },
      ]);
    });

    describe('findSessionsByPrefix', () => {
      const names = ['a1b2c3d4-0000-4000-8000-000000000001', 'a1b2c3d4-0000-4000-8000-000000000002', 'a1b2', 'a1b2_x', 'a1b2%y', 'a1b3', 'b1', 'A1B2c3d4-upper'];
      const seed = async () =>
        ctx.engine.ingest.transaction(async (tx) => {
          for (const [index, id] of names.entries()) {
            const session = storedSession({ id, source: 'claude-code', project: 'shop', cwd: '/home/dev/shop', startMs: at(2, index), endMs: at(2, index, 5) });
            await tx.commitFile(fileCommit(session, [turn(id, 1, { ts: at(2, index), role: 'user', text: `question ${index}` })]));
          }
        });
      const find = async (prefix: string, limit = 10) => (await ctx.engine.browse.findSessionsByPrefix(prefix, limit)).map((match) => match.id);

      test('ids equal to or starting with the prefix, the exact one first, then by id, at most limit', async () => {
        await seed();
        const found = await find('a1b2');
        expect(found[0]).toBe('a1b2');
        expect([...found].sort()).toEqual(['a1b2', 'a1b2%y', 'a1b2_x', 'a1b2c3d4-0000-4000-8000-000000000001', 'a1b2c3d4-0000-4000-8000-000000000002'].sort());
        expect(found.slice(1)).toEqual([...found.slice(1)].sort());
        expect(await find('a1b2', 1)).toEqual(['a1b2']);
        expect(await find('a1b2', 3)).toHaveLength(3);
        expect((await find('a1b2', 3))[0]).toBe('a1b2');
        expect(await find('a1b2c3d4-')).toEqual(['a1b2c3d4-0000-4000-8000-000000000001', 'a1b2c3d4-0000-4000-8000-000000000002']);
        expect(await find('a1b2c3d4-0000-4000-8000-000000000002')).toEqual(['a1b2c3d4-0000-4000-8000-000000000002']);
        expect(await find('c')).toEqual([]);
      });

      test('the prefix is matched as written: case counts, % _ and \\ are literal characters', async () => {
        await seed();
        expect(await find('A1B2')).toEqual(['A1B2c3d4-upper']);
        expect(await find('a1b2c3d4-u')).toEqual([]);
        expect(await find('a1b2_')).toEqual(['a1b2_x']);
        expect(await find('a1b2%')).toEqual(['a1b2%y']);
        expect(await find('a1b_')).toEqual([]);
        expect(await find('%')).toEqual([]);
        expect(await find('_')).toEqual([]);
        expect(await find('a1b2\\')).toEqual([]);
      });

      test('each match carries what tells it apart: source, project, title, start and parent', async () => {
        const parent = storedSession({ id: 'ef958aa1-0e93-49f0-bb71-150f63befcd1', source: 'claude-code', project: 'tree', cwd: '/home/dev/tree', startMs: at(5, 9), endMs: at(5, 10) });
        const child = storedSession({
          id: 'ef958aa1-0e93-49f0-bb71-150f63befcd1:agent-a1',
          source: 'claude-code',
          project: 'tree',
          cwd: '/home/dev/tree',
          startMs: at(5, 9, 30),
          endMs: at(5, 9, 40),
        });
        await ctx.engine.ingest.transaction(async (tx) => {
          await tx.commitFile(fileCommit({ ...parent, title: 'Compare the worktrees' }, [turn(parent.id, 1, { ts: at(5, 9), role: 'user', text: 'compare them' })]));
          await tx.commitFile(fileCommit({ ...child, parentSessionId: parent.id }, [turn(child.id, 1, { ts: at(5, 9, 30), role: 'user', text: 'round two' })]));
        });
        expect(await ctx.engine.browse.findSessionsByPrefix('ef958aa1', 10)).toEqual([
          { id: parent.id, source: 'claude-code', project: 'tree', title: 'Compare the worktrees', startMs: at(5, 9), parentSessionId: null },
          { id: child.id, source: 'claude-code', project: 'tree', title: null, startMs: at(5, 9, 30), parentSessionId: parent.id },
        ]);
      });
    });
  });
});
