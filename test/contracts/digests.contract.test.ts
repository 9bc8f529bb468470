import { describe, expect, test } from 'vitest';
import type { RunDigest } from '../../src/records/digests.js';
import { describeEachEngine, useFreshEngine } from './engines.js';

const NOW = Date.UTC(2026, 3, 10);

function line(text: string, ids: string[] = []) {
  return { text, message_ids: ids, commits: [], prs: [] };
}

function digest(sessionId: string, namespace: string, words: string, overrides: Partial<RunDigest> = {}): RunDigest {
  return {
    record_kind: 'run_digest',
    namespace_id: namespace,
    repo: namespace.startsWith('github.com/') ? namespace : null,
    security_scope: 'project',
    trust_class: 'derived',
    created_at_ms: NOW - 1000,
    expires_at_ms: null,
    run_ref: { session_id: sessionId, message_ids: ['m1'], archive_path: `/a/${sessionId}.jsonl`, commits: [] },
    session_id: sessionId,
    content_hash: 'h1',
    produced_by: 'heuristic',
    title: `${sessionId} digest`,
    body: {
      intent: line(`Intent: ${words}`, ['m1']),
      outcome: { ...line('Ended with a passing run', ['m9']), status: 'succeeded' },
      changes: [{ ...line('exit 1', ['m3']), kind: 'command', target: 'npm test', status: 'failed' }],
      decisions: [],
      gotchas: [line(`Gotcha: ${words}`, ['m3'])],
      next_steps: [],
    },
    ...overrides,
  };
}

describeEachEngine('DigestPort', (factory) => {
  const ctx = useFreshEngine(factory);
  const port = () => ctx.engine.digests;

  describe('put', () => {
    test('inserted, then unchanged for the same session and hash, replaced for a new hash', async () => {
      const first = digest('s1', 'github.com/acme/shop', 'checkout flow');
      expect(await port().put(first)).toBe('inserted');
      expect(await port().put(first)).toBe('unchanged');
      const second = digest('s1', 'github.com/acme/shop', 'payment webhook', { content_hash: 'h2', created_at_ms: NOW - 500 });
      expect(await port().put(second)).toBe('replaced');
      expect((await port().get('s1', NOW))?.content_hash).toBe('h2');
      expect(await port().list({ namespace: null, limit: 10, nowMs: NOW })).toHaveLength(1);
      // The word index follows the replacement: the old words are gone.
      expect(await port().search({ text: 'checkout', namespace: null, limit: 10, nowMs: NOW })).toEqual([]);
      expect((await port().search({ text: 'webhook', namespace: null, limit: 10, nowMs: NOW })).map((hit) => hit.digest.session_id)).toEqual(['s1']);
    });

    test('a different producer for the same hash replaces (the LLM digest after the heuristic one)', async () => {
      await port().put(digest('s1', 'ns', 'alpha'));
      expect(await port().put(digest('s1', 'ns', 'alpha', { produced_by: 'openai' }))).toBe('replaced');
      expect((await port().get('s1', NOW))?.produced_by).toBe('openai');
    });
  });

  test('get: the whole record back, null for an unknown session', async () => {
    const stored = digest('s1', 'github.com/acme/shop', 'checkout flow');
    await port().put(stored);
    expect(await port().get('s1', NOW)).toEqual(stored);
    expect(await port().get('nope', NOW)).toBeNull();
  });

  test('list: newest first, by namespace, bounded', async () => {
    await port().put(digest('old', 'A', 'one', { created_at_ms: NOW - 3000 }));
    await port().put(digest('new', 'A', 'two', { created_at_ms: NOW - 1000 }));
    await port().put(digest('mid', 'B', 'three', { created_at_ms: NOW - 2000 }));
    const ids = async (namespace: string | null, limit = 10) => (await port().list({ namespace, limit, nowMs: NOW })).map((d) => d.session_id);
    expect(await ids('A')).toEqual(['new', 'old']);
    expect(await ids('B')).toEqual(['mid']);
    expect(await ids(null)).toEqual(['new', 'mid', 'old']);
    expect(await ids(null, 2)).toEqual(['new', 'mid']);
    expect(await ids('C')).toEqual([]);
  });

  test('search: stemmed words, any of them, best match first; query syntax is only words', async () => {
    await port().put(digest('both', 'A', 'migrations failing on the staging database'));
    await port().put(digest('one', 'A', 'database backup rotated'));
    await port().put(digest('none', 'A', 'css tweaks'));
    const hits = await port().search({ text: 'migration database', namespace: 'A', limit: 10, nowMs: NOW });
    expect(hits.map((hit) => hit.digest.session_id)).toEqual(['both', 'one']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    for (const hostile of ['"', 'NEAR(a b)', "it's & | ! :*", '*', '']) {
      await expect(port().search({ text: hostile, namespace: 'A', limit: 10, nowMs: NOW })).resolves.toBeInstanceOf(Array);
    }
    expect(await port().search({ text: 'database', namespace: 'A', limit: 1, nowMs: NOW })).toHaveLength(1);
  });

  test('namespace isolation: look-alike digests in A and B; a search in A never returns B', async () => {
    await port().put(digest('a1', 'github.com/acme/shop', 'flaky checkout test fixed by awaiting the cart promise'));
    await port().put(digest('b1', 'github.com/other/shop', 'flaky checkout test fixed by awaiting the cart promise'));
    for (const text of ['flaky checkout', 'cart promise', 'awaiting', 'digest']) {
      const inA = await port().search({ text, namespace: 'github.com/acme/shop', limit: 10, nowMs: NOW });
      expect(inA.map((hit) => hit.digest.namespace_id)).toEqual(['github.com/acme/shop']);
      const inB = await port().search({ text, namespace: 'github.com/other/shop', limit: 10, nowMs: NOW });
      expect(inB.map((hit) => hit.digest.session_id)).toEqual(['b1']);
    }
    expect((await port().list({ namespace: 'github.com/acme/shop', limit: 10, nowMs: NOW })).map((d) => d.session_id)).toEqual(['a1']);
    expect(await port().search({ text: 'checkout', namespace: null, limit: 10, nowMs: NOW })).toHaveLength(2);
  });

  test('expires_at: not returned once past; remove drops expired and named sessions', async () => {
    await port().put(digest('short', 'A', 'temporary note', { expires_at_ms: NOW + 1000 }));
    await port().put(digest('long', 'A', 'temporary note too'));
    expect(await port().get('short', NOW)).not.toBeNull();
    expect(await port().get('short', NOW + 1000)).toBeNull();
    expect((await port().list({ namespace: 'A', limit: 10, nowMs: NOW + 1000 })).map((d) => d.session_id)).toEqual(['long']);
    expect((await port().search({ text: 'temporary', namespace: 'A', limit: 10, nowMs: NOW + 5000 })).map((hit) => hit.digest.session_id)).toEqual(['long']);
    expect(await port().remove({ expiredAtMs: NOW + 1000 })).toBe(1);
    expect(await port().get('short', NOW)).toBeNull();
    expect(await port().remove({ sessionIds: ['long', 'unknown'] })).toBe(1);
    expect(await port().list({ namespace: null, limit: 10, nowMs: NOW })).toEqual([]);
  });

  test('a second engine over the same data sees the digests', async () => {
    await port().put(digest('s1', 'A', 'shared'));
    const other = await ctx.opened.openAnother();
    expect((await other.digests.get('s1', NOW))?.session_id).toBe('s1');
  });
});

describeEachEngine('DigestPort beside an ingest transaction', (factory) => {
  const ctx = useFreshEngine(factory);
  test('a digest written while the engine is in an ingest transaction survives its rollback', async () => {
    const failing = ctx.engine.ingest.transaction(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      throw new Error('rolled back');
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const put = ctx.engine.digests.put(digest('s1', 'A', 'kept'));
    await expect(failing).rejects.toThrow('rolled back');
    expect(await put).toBe('inserted');
    expect((await ctx.engine.digests.get('s1', NOW))?.session_id).toBe('s1');
  });
});
