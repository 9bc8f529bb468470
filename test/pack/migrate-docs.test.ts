import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { migrateIndex } from '../../src/maintain/migrate.js';
import { openSqliteEngine } from '../../src/store/sqlite/engine.js';
import type { DocSection } from '../../src/store/types.js';
import { describeEachEngine, useFreshEngine } from '../contracts/engines.js';

const doc = (namespace: string, path: string, index: number, text: string): DocSection => ({
  record_kind: 'doc',
  namespace_id: namespace,
  repo: null,
  security_scope: 'project',
  trust_class: 'raw',
  created_at_ms: 1_700_000_000_000,
  expires_at_ms: null,
  run_ref: null,
  path,
  section: index,
  heading: path,
  text,
  content_hash: `h-${path}`,
  line: 1,
});

describeEachEngine('moon migrate carries doc records', (factory) => {
  const ctx = useFreshEngine(factory);

  test('every namespace, every file; a second run writes the same rows again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'moon-migrate-docs-'));
    const source = openSqliteEngine(join(dir, 'moon.db'));
    try {
      const shop = [doc('path:/shop', 'README.md', 0, 'deploy with wrangler'), doc('path:/shop', 'README.md', 1, 'stripe secrets')];
      const blog = [doc('path:/blog', 'docs/a.md', 0, 'images on a CDN')];
      await source.docs.replaceDocFiles('path:/shop', [{ path: 'README.md', sections: shop }]);
      await source.docs.replaceDocFiles('path:/blog', [{ path: 'docs/a.md', sections: blog }]);
      const report = await migrateIndex(source, ctx.engine);
      expect(report.docs).toBe(3);
      expect(await ctx.engine.docs.readDocs('path:/shop')).toEqual(shop);
      expect(await ctx.engine.docs.readDocs('path:/blog')).toEqual(blog);
      await migrateIndex(source, ctx.engine);
      expect(await ctx.engine.docs.readDocs(null)).toHaveLength(3);
    } finally {
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
