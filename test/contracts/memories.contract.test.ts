import { describe, expect, test } from 'vitest';
import type { NewMemory } from '../../src/records/long-term.js';
import { rememberMemory } from '../../src/memory/long-term-service.js';
import { sharedReach } from '../../src/records/sharing.js';
import { migrateIndex } from '../../src/maintain/migrate.js';
import { openSqliteEngine } from '../../src/store/sqlite/engine.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachEngine, useFreshEngine } from './engines.js';

const T0 = Date.UTC(2026, 0, 10, 12);
const A = 'github.com/acme/shop';
const B = 'github.com/acme/shop-fork';

function memory(id: string, text: string, overrides: Partial<NewMemory> = {}): NewMemory {
  return {
    id,
    text,
    namespace_id: A,
    repo: A,
    scope: 'project',
    review_state: 'draft',
    provenance: [{ source: 'manual', session_ids: [], message_ids: [] }],
    agent_loaded: false,
    created_at_ms: T0,
    expires_at_ms: null,
    ...overrides,
  };
}

describeEachEngine('MemoryPort', (factory) => {
  const ctx = useFreshEngine(factory);
  const port = () => ctx.engine.memories;

  test('add and get: the envelope round-trips', async () => {
    const added = await port().add(memory('m1', 'Run migrations with `npm run db:migrate`, never by hand', { agent_loaded: true, scope: 'team' }));
    expect(added).toMatchObject({ id: 'm1', record_kind: 'long_term', namespace_id: A, repo: A, scope: 'team', review_state: 'draft', version: 1, agent_loaded: true });
    expect(added.created_at_ms).toBe(T0);
    expect(added.updated_at_ms).toBe(T0);
    expect(await port().get('m1', T0)).toEqual(added);
    expect(await port().get('nope', T0)).toBeNull();
  });

  test('edit keeps the previous text as a version; setState changes the review state', async () => {
    await port().add(memory('m1', 'Deploy on Tuesdays'));
    const edited = await port().edit('m1', 'Deploy on Wednesdays', T0 + 1000);
    expect(edited).toMatchObject({ text: 'Deploy on Wednesdays', version: 2, updated_at_ms: T0 + 1000 });
    await port().edit('m1', 'Deploy on Thursdays', T0 + 2000);
    expect(await port().versions('m1')).toEqual([
      { memory_id: 'm1', version: 1, text: 'Deploy on Tuesdays', replaced_at_ms: T0 + 1000 },
      { memory_id: 'm1', version: 2, text: 'Deploy on Wednesdays', replaced_at_ms: T0 + 2000 },
    ]);
    expect((await port().setState('m1', 'approved', T0 + 3000))?.review_state).toBe('approved');
    expect(await port().edit('missing', 'x', T0)).toBeNull();
    expect(await port().setState('missing', 'approved', T0)).toBeNull();
  });

  test('addProvenance unions provenance', async () => {
    await port().add(memory('m1', 'Use pnpm'));
    const merged = await port().addProvenance('m1', [{ source: 'import:/r/CLAUDE.md', session_ids: [], message_ids: [], content_hash: 'abc' }], T0 + 1);
    expect(merged?.provenance.map((item) => item.source)).toEqual(['manual', 'import:/r/CLAUDE.md']);
  });

  test('list by namespace and state, newest first; null namespace lists all', async () => {
    await port().add(memory('m1', 'one', { created_at_ms: T0 }));
    await port().add(memory('m2', 'two', { created_at_ms: T0 + 10, review_state: 'approved' }));
    await port().add(memory('m3', 'three', { created_at_ms: T0 + 20, namespace_id: B, repo: B }));
    const ids = async (query: Parameters<ReturnType<typeof port>['list']>[0]) => (await port().list(query)).map((item) => item.id);
    expect(await ids({ namespaceId: A, nowMs: T0 + 100 })).toEqual(['m2', 'm1']);
    expect(await ids({ namespaceId: A, states: ['approved'], nowMs: T0 + 100 })).toEqual(['m2']);
    expect(await ids({ namespaceId: null, nowMs: T0 + 100 })).toEqual(['m3', 'm2', 'm1']);
    expect(await ids({ namespaceId: null, nowMs: T0 + 100, limit: 1 })).toEqual(['m3']);
  });

  test('shared reads: user-scoped entries reach every namespace, team-scoped ones the same owner, project ones never', async () => {
    const C = 'github.com/acme/billing';
    const other = 'github.com/globex/shop';
    const folder = 'path:/home/dev/scratch';
    await port().add(memory('own', 'own note', { namespace_id: C, repo: C }));
    await port().add(memory('team', 'acme team convention', { scope: 'team' }));
    await port().add(memory('user', 'user preference: terse answers', { scope: 'user', namespace_id: folder, repo: null }));
    await port().add(memory('proj', 'shop-only detail'));
    await port().add(memory('globex-team', 'globex team rule', { scope: 'team', namespace_id: other, repo: other }));
    // A namespace whose name only begins like the team's is not in it.
    await port().add(memory('lookalike', 'acme-corp rule', { scope: 'team', namespace_id: 'github.com/acme-corp/x', repo: null }));
    const ids = async (namespaceId: string) =>
      (await port().list({ namespaceId, shared: sharedReach(namespaceId), nowMs: T0 + 100 })).map((item) => item.id).sort();
    expect(await ids(C)).toEqual(['own', 'team', 'user']);
    expect(await ids(other)).toEqual(['globex-team', 'user']);
    expect(await ids(folder)).toEqual(['user']);
    expect((await port().search('rule', { namespaceId: C, shared: sharedReach(C), nowMs: T0 + 100 })).map((item) => item.id)).toEqual([]);
    expect((await port().search('convention', { namespaceId: C, shared: sharedReach(C), nowMs: T0 + 100 })).map((item) => item.id)).toEqual(['team']);
    // Without `shared`, a namespace reads only its own.
    expect((await port().list({ namespaceId: C, nowMs: T0 + 100 })).map((item) => item.id)).toEqual(['own']);
  });

  test('search: every word, case-insensitive, deprecated included, LIKE wildcards literal', async () => {
    await port().add(memory('m1', 'The flaky checkout test needs STRIPE_KEY set'));
    await port().add(memory('m2', 'Checkout uses Stripe in test mode', { review_state: 'deprecated' }));
    await port().add(memory('m3', 'Nothing to see'));
    const ids = async (text: string, states?: ('draft' | 'approved' | 'deprecated')[]) =>
      (await port().search(text, { namespaceId: A, nowMs: T0, states })).map((item) => item.id).sort();
    expect(await ids('checkout stripe')).toEqual(['m1', 'm2']);
    expect(await ids('stripe_key')).toEqual(['m1']);
    expect(await ids('checkout', ['draft', 'approved'])).toEqual(['m1']);
    expect(await ids('%')).toEqual([]);
    expect(await ids('')).toEqual([]);
  });

  test('expired entries are never returned, and purgeExpired removes them and their versions', async () => {
    await port().add(memory('old', 'temporary workaround for the CI outage', { expires_at_ms: T0 + 1000 }));
    await port().add(memory('kept', 'permanent CI note'));
    await port().edit('old', 'temporary workaround for the CI outage (v2)', T0 + 10);
    expect(await port().get('old', T0 + 999)).not.toBeNull();
    expect(await port().get('old', T0 + 1000)).toBeNull();
    expect((await port().list({ namespaceId: A, nowMs: T0 + 1000 })).map((item) => item.id)).toEqual(['kept']);
    expect((await port().search('workaround', { namespaceId: A, nowMs: T0 + 1000 })).length).toBe(0);
    expect(await port().edit('old', 'too late', T0 + 2000)).toBeNull();
    expect(await port().purgeExpired(T0 + 999)).toBe(0);
    expect(await port().purgeExpired(T0 + 1000)).toBe(1);
    expect(await port().versions('old')).toEqual([]);
    expect(await port().get('old', 0)).toBeNull();
    expect(await port().get('kept', T0 + 5000)).not.toBeNull();
  });

  test('dump and restore: every entry and version (expired too) into another engine; present ids kept', async () => {
    await port().add(memory('m1', 'first text'));
    await port().edit('m1', 'second text', T0 + 5);
    await port().setState('m1', 'approved', T0 + 6);
    await port().add(memory('gone', 'expired already', { expires_at_ms: T0 - 1 }));
    const dump = await port().dump();
    expect(dump.memories.map((item) => item.id).sort()).toEqual(['gone', 'm1']);
    expect(dump.versions).toEqual([{ memory_id: 'm1', version: 1, text: 'first text', replaced_at_ms: T0 + 5 }]);
    const other = await factory.open();
    try {
      await other.engine.memories.add(memory('m1', 'a different m1 already there'));
      expect(await other.engine.memories.restore(dump)).toBe(1);
      expect((await other.engine.memories.get('m1', T0))?.text).toBe('a different m1 already there');
      expect(await other.engine.memories.get('gone', T0 - 2)).toMatchObject({ text: 'expired already' });
      expect(await other.engine.memories.versions('m1')).toEqual(dump.versions);
      expect(await other.engine.memories.restore(dump)).toBe(0);
    } finally {
      await other.cleanup();
    }
  });

  test('restore keeps version, times and review state as they were', async () => {
    await port().add(memory('m1', 'one'));
    await port().edit('m1', 'two', T0 + 5);
    await port().setState('m1', 'deprecated', T0 + 7);
    const dump = await port().dump();
    const other = await factory.open();
    try {
      await other.engine.memories.restore(dump);
      expect(await other.engine.memories.get('m1', T0)).toEqual(await port().get('m1', T0));
    } finally {
      await other.cleanup();
    }
  });

  test('moon migrate (migrateIndex) copies long-term memories from an embedded index, once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'moon-ltm-migrate-'));
    const source = openSqliteEngine(join(dir, 'moon.db'));
    try {
      await source.memories.add(memory('m1', 'Tag releases as vX.Y.Z', { review_state: 'approved' }));
      await source.memories.edit('m1', 'Tag releases as vX.Y.Z from main', T0 + 1);
      expect((await migrateIndex(source, ctx.engine)).memories).toBe(1);
      expect(await port().get('m1', T0)).toEqual(await source.memories.get('m1', T0));
      expect(await port().versions('m1')).toHaveLength(1);
      expect((await migrateIndex(source, ctx.engine)).memories).toBe(0);
    } finally {
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('isolation: two namespaces with look-alike content', () => {
    test('nothing of A appears for B (list, search, dedupe)', async () => {
      const a = await rememberMemory(port(), { text: 'Use the staging database for load tests', namespace_id: A, repo: A, provenance: [{ source: 'manual', session_ids: ['sa'], message_ids: [] }] }, T0);
      const b = await rememberMemory(port(), { text: 'Use the staging database for load tests', namespace_id: B, repo: B, provenance: [{ source: 'manual', session_ids: ['sb'], message_ids: [] }] }, T0);
      expect(b.outcome).toBe('created');
      expect(b.memory.id).not.toBe(a.memory.id);
      const forB = [...(await port().list({ namespaceId: B, nowMs: T0 })), ...(await port().search('staging database', { namespaceId: B, nowMs: T0 }))];
      expect(forB.length).toBe(2);
      for (const item of forB) {
        expect(item.namespace_id).toBe(B);
        expect(JSON.stringify(item)).not.toContain('"sa"');
      }
    });
  });

  describe('rememberMemory (dedupe on the engine)', () => {
    test('two writers adding the same text at once make one entry with both provenances', async () => {
      const another = await ctx.opened.openAnother();
      const input = (engine: typeof ctx.engine, session: string) =>
        rememberMemory(engine.memories, { text: 'Release notes are generated from conventional commits', namespace_id: A, repo: A, provenance: [{ source: 'manual', session_ids: [session], message_ids: [] }] }, T0);
      const results = await Promise.all([input(ctx.engine, 'w1'), input(another, 'w2'), input(ctx.engine, 'w3'), input(another, 'w4')]);
      expect(results.filter((result) => result.outcome === 'created')).toHaveLength(1);
      const all = await port().list({ namespaceId: A, nowMs: T0 });
      expect(all).toHaveLength(1);
      expect(all[0]!.provenance[0]!.session_ids.sort()).toEqual(['w1', 'w2', 'w3', 'w4']);
    });

    test('an exact or near-exact duplicate merges into one entry with both provenances; the same provenance again changes nothing', async () => {
      const first = await rememberMemory(port(), { text: 'Always run `npm test` before pushing to main.', namespace_id: A, repo: A, provenance: [{ source: 'manual', session_ids: ['s1'], message_ids: ['m1'] }] }, T0);
      const exact = await rememberMemory(port(), { text: '- always run npm test before pushing to main', namespace_id: A, repo: A, provenance: [{ source: 'import:/r/CLAUDE.md', session_ids: [], message_ids: [], content_hash: 'h' }] }, T0 + 1);
      expect(exact).toMatchObject({ outcome: 'merged', duplicate: 'exact' });
      expect(exact.memory.id).toBe(first.memory.id);
      const near = await rememberMemory(port(), { text: 'Always run npm test before pushing to the main branch', namespace_id: A, repo: A, provenance: [{ source: 'manual', session_ids: ['s2'], message_ids: [] }] }, T0 + 2);
      expect(near).toMatchObject({ outcome: 'merged', duplicate: 'near' });
      expect(near.memory.provenance).toEqual([
        { source: 'manual', session_ids: ['s1', 's2'], message_ids: ['m1'] },
        { source: 'import:/r/CLAUDE.md', session_ids: [], message_ids: [], content_hash: 'h' },
      ]);
      const again = await rememberMemory(port(), { text: 'Always run npm test before pushing to main', namespace_id: A, repo: A, provenance: [{ source: 'import:/r/CLAUDE.md', session_ids: [], message_ids: [], content_hash: 'h' }] }, T0 + 3);
      expect(again.outcome).toBe('unchanged');
      expect((await port().list({ namespaceId: A, nowMs: T0 + 10 })).length).toBe(1);
    });

    test('merging an agent-loaded duplicate flags the entry agent_loaded', async () => {
      const manual = await rememberMemory(port(), { text: 'Feature branches are rebased, never merged', namespace_id: A, repo: A, provenance: [{ source: 'manual', session_ids: [], message_ids: [] }] }, T0);
      expect(manual.memory.agent_loaded).toBe(false);
      const imported = await rememberMemory(port(), { text: 'Feature branches are rebased, never merged.', namespace_id: A, repo: A, agent_loaded: true, provenance: [{ source: 'import:/r/AGENTS.md', session_ids: [], message_ids: [], content_hash: 'h' }] }, T0 + 1);
      expect(imported).toMatchObject({ outcome: 'merged', memory: { id: manual.memory.id, agent_loaded: true } });
    });
  });
});
