import { expect, test } from 'vitest';
import type { DocSection } from '../../src/store/types.js';
import { describeEachEngine, useFreshEngine } from './engines.js';

const NOW = Date.UTC(2026, 10, 26, 12);

function section(namespace: string, path: string, index: number, heading: string, text: string, extra: Partial<DocSection> = {}): DocSection {
  return {
    record_kind: 'doc',
    namespace_id: namespace,
    repo: namespace.startsWith('github.com/') ? namespace : null,
    security_scope: 'project',
    trust_class: 'raw',
    created_at_ms: NOW - 1000,
    expires_at_ms: null,
    run_ref: null,
    path,
    section: index,
    heading,
    text,
    content_hash: `hash-${path}`,
    line: 1 + index * 10,
    ...extra,
  };
}

const SHOP = 'github.com/acme/shop';
const BLOG = 'github.com/acme/blog';

describeEachEngine('DocPort', (factory) => {
  const ctx = useFreshEngine(factory);

  test('an empty store lists no files and finds nothing', async () => {
    expect(await ctx.engine.docs.listDocFiles(SHOP)).toEqual([]);
    expect(await ctx.engine.docs.searchDocs({ namespace_id: SHOP, text: 'checkout', limit: 5, nowMs: NOW })).toEqual([]);
  });

  test('files are replaced whole, listed with their hash, and searched by stemmed words within the namespace', async () => {
    await ctx.engine.docs.replaceDocFiles(SHOP, [
      {
        path: 'README.md',
        sections: [section(SHOP, 'README.md', 0, 'Shop', 'A small shop.'), section(SHOP, 'README.md', 1, 'Payments', 'Checkout retries payments twice before failing.')],
      },
      { path: 'docs/adr/0001-queue.md', sections: [section(SHOP, 'docs/adr/0001-queue.md', 0, 'Use a queue', 'Orders go through a queue.')] },
    ]);
    await ctx.engine.docs.replaceDocFiles(BLOG, [{ path: 'README.md', sections: [section(BLOG, 'README.md', 0, 'Blog', 'The blog has no checkout and no payments.')] }]);

    expect(await ctx.engine.docs.listDocFiles(SHOP)).toEqual([
      { path: 'README.md', content_hash: 'hash-README.md', sections: 2 },
      { path: 'docs/adr/0001-queue.md', content_hash: 'hash-docs/adr/0001-queue.md', sections: 1 },
    ]);
    const hits = await ctx.engine.docs.searchDocs({ namespace_id: SHOP, text: 'how does the checkout retry a payment?', limit: 5, nowMs: NOW });
    expect(hits.map((hit) => [hit.section.namespace_id, hit.section.path, hit.section.heading])).toEqual([[SHOP, 'README.md', 'Payments']]);
    expect(hits[0]!.section).toEqual(section(SHOP, 'README.md', 1, 'Payments', 'Checkout retries payments twice before failing.'));

    const everywhere = await ctx.engine.docs.searchDocs({ namespace_id: null, text: 'payments', limit: 5, nowMs: NOW });
    expect(everywhere.map((hit) => hit.section.namespace_id).sort()).toEqual([BLOG, SHOP]);

    // Replacing a file drops its old sections (and their search rows); an empty list removes it.
    await ctx.engine.docs.replaceDocFiles(SHOP, [
      { path: 'README.md', sections: [section(SHOP, 'README.md', 0, 'Shop', 'A shop with invoices.', { content_hash: 'hash-2' })] },
      { path: 'docs/adr/0001-queue.md', sections: [] },
    ]);
    expect(await ctx.engine.docs.listDocFiles(SHOP)).toEqual([{ path: 'README.md', content_hash: 'hash-2', sections: 1 }]);
    expect(await ctx.engine.docs.searchDocs({ namespace_id: SHOP, text: 'payments queue', limit: 5, nowMs: NOW })).toEqual([]);
    expect((await ctx.engine.docs.searchDocs({ namespace_id: SHOP, text: 'invoice', limit: 5, nowMs: NOW })).map((hit) => hit.section.text)).toEqual([
      'A shop with invoices.',
    ]);
  });

  test('expired sections are not returned; a query of no words finds nothing; limit is honoured', async () => {
    await ctx.engine.docs.replaceDocFiles(SHOP, [
      {
        path: 'NOTES.md',
        sections: [
          section(SHOP, 'NOTES.md', 0, 'Deploy', 'deploy deploy on friday', { expires_at_ms: NOW - 1 }),
          section(SHOP, 'NOTES.md', 1, 'Deploy', 'deploy with the script'),
          section(SHOP, 'NOTES.md', 2, 'Deploy again', 'deploy with care'),
        ],
      },
    ]);
    const hits = await ctx.engine.docs.searchDocs({ namespace_id: SHOP, text: 'deploy', limit: 5, nowMs: NOW });
    expect(hits.map((hit) => hit.section.section).sort()).toEqual([1, 2]);
    expect(await ctx.engine.docs.searchDocs({ namespace_id: SHOP, text: 'deploy', limit: 1, nowMs: NOW })).toHaveLength(1);
    expect(await ctx.engine.docs.searchDocs({ namespace_id: SHOP, text: '?? !! "', limit: 5, nowMs: NOW })).toEqual([]);
  });

  test('readDocs returns every section of a namespace, or of all, in order, as stored', async () => {
    const readme = [section(SHOP, 'README.md', 0, 'Shop', 'A small shop.'), section(SHOP, 'README.md', 1, 'Payments', 'Checkout retries.', { run_ref: { session_id: 's-1', message_ids: ['m-1'], archive_path: null, commits: ['abc'] } })];
    const adr = [section(SHOP, 'docs/adr.md', 0, 'ADR', 'Use a queue.', { expires_at_ms: NOW + 5 })];
    await ctx.engine.docs.replaceDocFiles(SHOP, [{ path: 'docs/adr.md', sections: adr }, { path: 'README.md', sections: readme }]);
    await ctx.engine.docs.replaceDocFiles(BLOG, [{ path: 'README.md', sections: [section(BLOG, 'README.md', 0, 'Blog', 'A blog.')] }]);
    expect(await ctx.engine.docs.readDocs(SHOP)).toEqual([...readme, ...adr]);
    expect((await ctx.engine.docs.readDocs(null)).map((doc) => `${doc.namespace_id} ${doc.path} ${doc.section}`)).toEqual([
      `${BLOG} README.md 0`,
      `${SHOP} README.md 0`,
      `${SHOP} README.md 1`,
      `${SHOP} docs/adr.md 0`,
    ]);
  });
});
