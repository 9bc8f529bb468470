import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePuffinHistory } from '../../src/sources/puffin-history.js';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/puffin/history-real-subset-small.json', import.meta.url), 'utf8'));

describe('parsePuffinHistory on a real history subset', () => {
  const parsed = parsePuffinHistory(fixture);
  const all = parsed.branches.flatMap((branch) => branch.prompts);
  const byId = new Map(all.map((prompt) => [prompt.id, prompt]));

  it('reads every prompt of every branch, branchOrder first and the branches it leaves out after', () => {
    expect(parsed.totalPrompts).toBe(19);
    expect(parsed.skipped).toEqual([]);
    const ids = parsed.branches.map((branch) => branch.id);
    expect(ids.slice(0, fixture.branchOrder.length)).toEqual(fixture.branchOrder);
    expect(ids).toContain('fullstack');
    expect(ids).toContain('plugin');
    expect(parsed.branches.find((branch) => branch.id === 'architecture')!.prompts).toEqual([]);
  });

  it('computes depth from the root, links children from parent links, and starts a tree at a dangling parent', () => {
    const derivation = all.find((prompt) => prompt.kind === 'derivation')!;
    expect(derivation.depth).toBe(0);
    expect(derivation.children).toHaveLength(4);
    for (const childId of derivation.children) {
      const child = byId.get(childId)!;
      expect(child.kind).toBe('story-thread');
      expect(child.depth).toBe(1);
      expect(child.rootId).toBe(derivation.id);
      expect(child.response).toBeNull();
    }
    const dangling = all.filter((prompt) => prompt.parentMissing);
    expect(dangling).toHaveLength(1);
    expect(dangling[0]!.depth).toBe(0);
    // A 3-deep thread written without `children` keys: linked through parentId alone.
    const root = all.find((prompt) => prompt.id.startsWith('mjbdk3fu1cn29aqx'))!;
    expect('children' in fixture.branches.specifications.prompts.find((prompt: { id: string }) => prompt.id === root.id)).toBe(false);
    expect(root.children).toHaveLength(1);
    expect(all.find((prompt) => prompt.depth === 2 && prompt.rootId === root.id)).toBeDefined();
  });

  it('reads CLI-synced prompts with ISO timestamps', () => {
    const synced = byId.get('128c37f7aaaa3333')!;
    expect(synced.timestamp).toBe(Date.parse(fixture.branches.improvements.prompts[0].timestamp));
    expect(synced.parentId).toBeNull();
    expect(synced.response!.timestamp).not.toBeNull();
  });

  it('skips malformed entries with the reason and keeps the rest', () => {
    const broken = structuredClone(fixture);
    broken.branches.tmp.prompts.push(42, { id: 'x1', timestamp: 1 }, { id: 'x2', content: 'hi', timestamp: 'not a date' });
    const again = parsePuffinHistory(broken);
    expect(again.totalPrompts).toBe(19);
    expect(again.skipped.map((entry) => entry.reason)).toEqual(['prompt is not an object', 'prompt x1 has no content string', 'prompt x2 has no readable timestamp']);
  });
});
