import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { migrateIndex } from '../../src/maintain/migrate.js';
import { openSqliteEngine } from '../../src/store/sqlite/engine.js';
import { buildFixPatterns } from '../../src/fixes/patterns.js';
import type { FixEvent } from '../../src/records/fixes.js';
import { describeEachEngine, useFreshEngine } from './engines.js';
import { at, commitCorpus } from './fixtures.js';

const SHOP = 'github.com/acme/shop';
const BLOG = 'path:/home/dev/blog';

function event(sessionId: string, seq: number, fields: Partial<FixEvent> & Pick<FixEvent, 'kind'>): FixEvent {
  return {
    sessionId,
    namespace: SHOP,
    repo: SHOP,
    seq,
    ts: at(3, 10, seq),
    signature: null,
    target: null,
    messageId: `${sessionId}.${seq}`,
    files: [],
    fileHashes: {},
    commits: [],
    text: null,
    ...fields,
  };
}

const SIGNATURE = "TypeError: Cannot read properties of undefined (reading 'map')";
const CHECKOUT_EVENTS: FixEvent[] = [
  event('shop-checkout', 1, { kind: 'error', signature: SIGNATURE, target: 'npx vitest run test/cart.test.ts', text: `${SIGNATURE}\n    at total` }),
  event('shop-checkout', 2, { kind: 'edit', files: ['/home/dev/shop/src/cart.ts'], fileHashes: { '/home/dev/shop/src/cart.ts': 'abc123' } }),
  event('shop-checkout', 3, { kind: 'pass', target: 'npx vitest run test/cart.test.ts' }),
  event('shop-checkout', 4, { kind: 'commit', commits: ['9fceb02'] }),
];
const BLOG_EVENTS: FixEvent[] = [
  event('blog-feed', 1, { kind: 'error', namespace: BLOG, repo: null, signature: SIGNATURE, target: 'npm test', ts: null }),
  event('blog-feed', 2, { kind: 'claim', namespace: BLOG, repo: null, commits: ['a1b2c3d'], text: 'Fixed by guarding the feed items.', ts: null }),
];

describeEachEngine('FixPort', (factory) => {
  const ctx = useFreshEngine(factory);

  test('facts round-trip whole, in order, by namespace', async () => {
    await commitCorpus(ctx.engine);
    await ctx.engine.fixes.putSessionEvents('blog-feed', BLOG_EVENTS);
    await ctx.engine.fixes.putSessionEvents('shop-checkout', CHECKOUT_EVENTS);
    expect(await ctx.engine.fixes.listEvents({ namespaces: [SHOP] })).toEqual(CHECKOUT_EVENTS);
    expect(await ctx.engine.fixes.listEvents({ namespaces: [BLOG] })).toEqual(BLOG_EVENTS);
    // Null times sort first; within a session by seq.
    expect(await ctx.engine.fixes.listEvents({ namespaces: null })).toEqual([...BLOG_EVENTS, ...CHECKOUT_EVENTS]);
    expect(await ctx.engine.fixes.listEvents({ namespaces: [] })).toEqual([]);
    expect(await ctx.engine.fixes.listEvents({ namespaces: ['github.com/acme/nothing'] })).toEqual([]);
    expect(await ctx.engine.fixes.listNamespaces()).toEqual([SHOP, BLOG].sort());
  });

  test("putting a session's facts again replaces them; an empty list clears them", async () => {
    await commitCorpus(ctx.engine);
    await ctx.engine.fixes.putSessionEvents('shop-checkout', CHECKOUT_EVENTS);
    await ctx.engine.fixes.putSessionEvents('shop-checkout', CHECKOUT_EVENTS.slice(0, 2));
    expect(await ctx.engine.fixes.listEvents({ namespaces: [SHOP] })).toEqual(CHECKOUT_EVENTS.slice(0, 2));
    await ctx.engine.fixes.putSessionEvents('shop-checkout', []);
    expect(await ctx.engine.fixes.listEvents({ namespaces: null })).toEqual([]);
    expect(await ctx.engine.fixes.listNamespaces()).toEqual([]);
  });

  test('a read after a write — by this engine or another over the same data — sees the write', async () => {
    await commitCorpus(ctx.engine);
    await ctx.engine.fixes.putSessionEvents('shop-checkout', CHECKOUT_EVENTS.slice(0, 2));
    expect(await ctx.engine.fixes.listEvents({ namespaces: [SHOP] })).toHaveLength(2);
    await ctx.engine.fixes.putSessionEvents('shop-checkout', CHECKOUT_EVENTS);
    expect(await ctx.engine.fixes.listEvents({ namespaces: [SHOP] })).toEqual(CHECKOUT_EVENTS);
    const another = await ctx.opened.openAnother();
    await another.fixes.putSessionEvents('shop-checkout', CHECKOUT_EVENTS.slice(0, 1));
    expect(await ctx.engine.fixes.listEvents({ namespaces: [SHOP] })).toEqual(CHECKOUT_EVENTS.slice(0, 1));
    await another.forget.forget(['shop-checkout'], 'test', at(9, 0));
    expect(await ctx.engine.fixes.listEvents({ namespaces: [SHOP] })).toEqual([]);
  });

  test('a fold is kept for the facts as they are: read back by its build, and gone once they change in any way', async () => {
    // Facts of a session not indexed yet: not listed, and the session arriving changes the version.
    await ctx.engine.fixes.putSessionEvents('shop-checkout', CHECKOUT_EVENTS);
    const before = await ctx.engine.fixes.readFold(SHOP, 'b1');
    expect(before.body).toBeNull();
    await commitCorpus(ctx.engine);
    const indexed = await ctx.engine.fixes.readFold(SHOP, 'b1');
    expect(indexed.version).not.toBe(before.version);
    expect(indexed.body).toBeNull();

    expect(await ctx.engine.fixes.putFold(SHOP, { version: indexed.version, build: 'b1', body: 'fold-1' })).toBe(true);
    expect(await ctx.engine.fixes.readFold(SHOP, 'b1')).toEqual({ version: indexed.version, body: 'fold-1' });
    // Another build of the fold does not read it; a fold of a version that is not the namespace's is not kept.
    expect((await ctx.engine.fixes.readFold(SHOP, 'b2')).body).toBeNull();
    expect(await ctx.engine.fixes.putFold(SHOP, { version: before.version, build: 'b1', body: 'stale' })).toBe(false);
    expect((await ctx.engine.fixes.readFold(SHOP, 'b1')).body).toBe('fold-1');
    // Another namespace's facts leave it be, another connection reads it.
    await ctx.engine.fixes.putSessionEvents('blog-feed', BLOG_EVENTS);
    const another = await ctx.opened.openAnother();
    expect(await another.fixes.readFold(SHOP, 'b1')).toEqual({ version: indexed.version, body: 'fold-1' });

    // The same facts put again (an unchanged session indexed again): nothing changed, the fold stays.
    await another.fixes.putSessionEvents('shop-checkout', [...CHECKOUT_EVENTS].reverse());
    expect(await ctx.engine.fixes.readFold(SHOP, 'b1')).toEqual({ version: indexed.version, body: 'fold-1' });
    // Other facts for the session: a new version, no fold.
    await another.fixes.putSessionEvents('shop-checkout', [...CHECKOUT_EVENTS.slice(0, 3), { ...CHECKOUT_EVENTS[3]!, commits: ['9fceb03'] }]);
    const replaced = await ctx.engine.fixes.readFold(SHOP, 'b1');
    expect(replaced.version).not.toBe(indexed.version);
    expect(replaced.body).toBeNull();
    // Forgetting the session: the fold that quoted its facts goes in the same write.
    expect(await ctx.engine.fixes.putFold(SHOP, { version: replaced.version, build: 'b1', body: 'fold-2' })).toBe(true);
    await ctx.engine.forget.forget(['shop-checkout'], 'test', at(9, 0));
    const forgotten = await ctx.engine.fixes.readFold(SHOP, 'b1');
    expect(forgotten.version).not.toBe(replaced.version);
    expect(forgotten.body).toBeNull();
    expect(await ctx.engine.fixes.putFold(SHOP, { version: replaced.version, build: 'b1', body: 'fold-2' })).toBe(false);
    // The blog's facts were not touched by any of it.
    expect((await ctx.engine.fixes.readFold(BLOG, 'b1')).body).toBeNull();
  });

  test('a forgotten session is no evidence', async () => {
    await commitCorpus(ctx.engine);
    await ctx.engine.fixes.putSessionEvents('shop-checkout', CHECKOUT_EVENTS);
    await ctx.engine.fixes.putSessionEvents('blog-feed', BLOG_EVENTS);
    await ctx.engine.forget.forget(['shop-checkout'], 'test', at(9, 0));
    expect(await ctx.engine.fixes.listEvents({ namespaces: null })).toEqual(BLOG_EVENTS);
    expect(await ctx.engine.fixes.listNamespaces()).toEqual([BLOG]);
  });

  test('patterns built from what the engine returns: verified in one namespace, claimed in the other, never mixed', async () => {
    await commitCorpus(ctx.engine);
    await ctx.engine.fixes.putSessionEvents('shop-checkout', CHECKOUT_EVENTS);
    await ctx.engine.fixes.putSessionEvents('blog-feed', BLOG_EVENTS);
    const unchanged = (path: string) => (path === '/home/dev/shop/src/cart.ts' ? 'abc123' : null);
    const shop = buildFixPatterns(await ctx.engine.fixes.listEvents({ namespaces: [SHOP] }), unchanged);
    expect(shop).toHaveLength(1);
    expect(shop[0]).toMatchObject({ signature: SIGNATURE, namespace_id: SHOP, count: 1, worked: 1, state: 'verified' });
    expect(shop[0]!.evidence).toEqual([
      expect.objectContaining({
        session_id: 'shop-checkout',
        message_ids: ['shop-checkout.1', 'shop-checkout.2', 'shop-checkout.3'],
        files: ['/home/dev/shop/src/cart.ts'],
        commits: ['9fceb02'],
        state: 'verified',
      }),
    ]);
    const blog = buildFixPatterns(await ctx.engine.fixes.listEvents({ namespaces: [BLOG] }), unchanged);
    expect(blog).toHaveLength(1);
    expect(blog[0]).toMatchObject({ namespace_id: BLOG, state: 'claimed', worked: 0 });
    expect(JSON.stringify(blog)).not.toContain('shop');
  });

  test('moon migrate copies the facts as they are (the hashes from when they were indexed)', async () => {
    await commitCorpus(ctx.engine);
    await ctx.engine.fixes.putSessionEvents('shop-checkout', CHECKOUT_EVENTS);
    await ctx.engine.fixes.putSessionEvents('blog-feed', BLOG_EVENTS);
    const dir = mkdtempSync(join(tmpdir(), 'moon-fixes-migrate-'));
    const target = openSqliteEngine(join(dir, 'moon.db'));
    try {
      await migrateIndex(ctx.engine, target);
      expect(await target.fixes.listEvents({ namespaces: null })).toEqual(await ctx.engine.fixes.listEvents({ namespaces: null }));
    } finally {
      await target.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
