import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createMemoryApi } from '../../src/memory/api.js';
import type { PromotionSource } from '../../src/memory/promote.js';
import type { StoreEngine } from '../../src/store/ports.js';
import { openSqliteEngine } from '../../src/store/sqlite/engine.js';
import { at, fileCommit, storedSession, turn } from '../contracts/fixtures.js';

/** A v2 projection as the renderer writes its frontmatter and Decisions & Outcomes section. */
function projection(sessionId: string, decisions: string[]): string {
  return [
    '---',
    'moon_archive_projection: 2',
    `session_id: ${sessionId}`,
    `content_hash: sha256:${sessionId}`,
    '---',
    '',
    `# Session ${sessionId}`,
    '',
    '## Decisions & Outcomes',
    ...(decisions.length > 0 ? decisions.map((decision) => `- ${decision}`) : ['- (none)']),
    '',
  ].join('\n');
}

describe('moon memory propose: decisions repeated across sessions become drafts', () => {
  let dir: string;
  let engine: StoreEngine;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'moon-ltm-propose-'));
    engine = openSqliteEngine(join(dir, 'moon.db'));
  });
  afterEach(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function seed(sessions: { id: string; cwd: string; decisions: string[] }[]): Promise<void> {
    await engine.ingest.transaction(async (tx) => {
      for (const [index, spec] of sessions.entries()) {
        const session = storedSession({ id: spec.id, source: 'claude-code', project: 'x', cwd: spec.cwd, startMs: at(1 + index, 9), endMs: at(1 + index, 10) });
        await tx.commitFile(fileCommit(session, [turn(spec.id, 1, { role: 'user', text: 'hello there', ts: at(1 + index, 9) })]));
      }
    });
    for (const spec of sessions) {
      const path = join(dir, `${spec.id}.md`);
      writeFileSync(path, projection(spec.id, spec.decisions));
      await engine.ingest.markProjected(spec.id, path);
    }
  }

  test('≥2 sessions of the namespace: proposed as a draft with the sessions as provenance; never approved; other namespaces ignored', async () => {
    const shop = join(dir, 'shop');
    const blog = join(dir, 'blog');
    for (const repo of [shop, blog]) mkdirSync(join(repo, '.git'), { recursive: true });
    await seed([
      { id: 's1', cwd: shop, decisions: ['Decided to keep the payment retries in the queue worker, not the API', 'Renamed the cart module'] },
      { id: 's2', cwd: join(shop, 'src'), decisions: ['decided to keep the payment retries in the queue worker, not the API.'] },
      { id: 's3', cwd: shop, decisions: [] },
      { id: 'b1', cwd: blog, decisions: ['Renamed the cart module'] },
      { id: 'b2', cwd: blog, decisions: ['Use the image CDN for every thumbnail we render'] },
    ]);
    const api = createMemoryApi({ engine: async () => engine, clock: () => at(20, 0), env: {} });
    const report = await api.propose({ cwd: shop });
    expect(report.namespace_id).toBe(`path:${shop}`);
    expect(report.proposed).toHaveLength(1);
    expect(report.proposed[0]).toMatchObject({
      source: 'repeated_decisions',
      outcome: 'created',
      memory: {
        text: 'Decided to keep the payment retries in the queue worker, not the API',
        review_state: 'draft',
        namespace_id: `path:${shop}`,
        provenance: [{ source: 'promoted:decision', session_ids: ['s1', 's2'], message_ids: [] }],
      },
    });
    // again: nothing new
    expect((await api.propose({ cwd: shop })).proposed.map((item) => item.outcome)).toEqual(['unchanged']);
    // the blog namespace has one session per decision: nothing to propose
    expect((await api.propose({ cwd: blog })).proposed).toEqual([]);
    // an approved entry the proposal repeats keeps its state; the proposal adds provenance only
    const id = report.proposed[0]!.memory.id;
    await api.setState({ cwd: shop, id, state: 'approved' });
    const extra: PromotionSource = {
      name: 'fix_patterns_stub',
      candidates: async () => [{ text: 'Decided to keep the payment retries in the queue worker, not the API', provenance: [{ source: 'promoted:fix:sig-1', session_ids: ['s3'], message_ids: [] }] }],
    };
    const merged = await api.propose({ cwd: shop, sources: [extra] });
    expect(merged.proposed[0]).toMatchObject({ outcome: 'merged', memory: { id, review_state: 'approved' } });
  });
});
