import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateHistoryIndex } from '../../src/rlm/generator.js';
import { formatJsonInParts } from '../../src/rlm/json-parts.js';
import { readOldIndex, startReadingOldIndex, type OldIndex } from '../../src/rlm/old-index.js';
import type { HistoryOutline, OutlinedPrompt } from '../../src/rlm/outline.js';
import { readIndex } from '../../src/rlm/serializer.js';
import { matchOldPrompts } from '../../src/rlm/token-counts.js';
import type { HistoryIndex } from '../../src/rlm/types.js';
import { buildSampleHistory, countTokens } from './history-builder.js';

let dir: string;
let indexPath: string;
let index: HistoryIndex;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'moon-rlm-old-'));
  const history = join(dir, 'history.json');
  writeFileSync(history, JSON.stringify(buildSampleHistory()));
  indexPath = join(dir, 'index.json');
  index = (await generateHistoryIndex({ historyPath: history, outputPath: indexPath, incremental: false, provider: null, countTokens })).index;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the old index, read while the first pass runs', () => {
  it('is validated, then digested: packed prompt rows that unpack to the index rows, segments without their prompt lists', async () => {
    const reading = await startReadingOldIndex({ path: indexPath, digest: true });
    expect(reading.exists).toBe(true);
    const digest = reading.digest!;
    const rows = digest.prompts;
    expect(rows.count).toBe(index.prompts.length);
    const unpacked = Array.from({ length: rows.count }, (_, row) => ({
      id: rows.ids.slice(rows.idStarts[row], rows.idStarts[row + 1]),
      hash: rows.hashes.slice(row * 64, row * 64 + 64),
      tokens: rows.tokens[row],
    }));
    expect(unpacked).toEqual(index.prompts);
    expect(digest.segments).toEqual(index.segments.map(({ promptIds: _p, overlapPromptIds: _o, ...segment }) => segment));
    expect(digest.generator).toEqual(index.generator);
    expect(readOldIndex({ path: indexPath, digest: false })).toEqual({ exists: true, digest: null });
    expect(await startReadingOldIndex({ path: join(dir, 'none.json'), digest: true })).toEqual({ exists: false, digest: null });
  });

  it('fails as readIndex fails on a file that is not a valid index, and is never used', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...index, version: 'x' }));
    const error = await startReadingOldIndex({ path: bad, digest: true }).catch((caught: unknown) => caught);
    expect(() => readIndex(bad)).toThrow((error as Error).message);
    expect((error as Error).message).toContain(`${bad} is not a valid history index`);
  });
});

/** An outline of prompts with these ids and hashes (only what the match reads). */
function outlineOf(prompts: Array<[string, string]>, tokens = Number.NaN): HistoryOutline {
  const outlined = prompts.map(([id, hash], position) => ({ id, hash, tokens, position }) as OutlinedPrompt);
  return { branches: [{ id: 'b', name: 'b', prompts: outlined, handoffSummary: null }], totalPrompts: outlined.length, dateRange: null, updatedAt: null, activeBranch: null, skipped: [] };
}

function digestOf(rows: Array<[string, string, number]>): OldIndex {
  const idStarts = new Uint32Array(rows.length + 1);
  let at = 0;
  rows.forEach(([id], row) => {
    idStarts[row] = at;
    at += id.length;
  });
  idStarts[rows.length] = at;
  return {
    generator: index.generator,
    segments: [],
    prompts: { count: rows.length, ids: rows.map(([id]) => id).join(''), idStarts, hashes: rows.map(([, hash]) => hash).join(''), tokens: Float64Array.from(rows.map(([, , tokens]) => tokens)) },
  };
}

const h = (c: string) => c.repeat(64);

describe('matching the history against the old index', () => {
  it('finds added, modified and removed prompts in the orders detectChanges gives, and lends the unchanged counts', () => {
    // Old: a b c d e. New: a, x (added), c (modified), e (moved up), b (moved down), d removed. Ids that are
    // prefixes of one another must not be confused.
    const old = digestOf([
      ['a', h('1'), 10],
      ['b', h('2'), 20],
      ['c', h('3'), 30],
      ['d', h('4'), 40],
      ['ab', h('5'), 50],
    ]);
    const outline = outlineOf([
      ['a', h('1')],
      ['x', h('9')],
      ['c', h('7')],
      ['ab', h('5')],
      ['b', h('2')],
    ]);
    const { changes, uncounted } = matchOldPrompts(outline, old);
    expect(changes).toEqual({ added: ['x'], modified: ['c'], removed: ['d'] });
    expect(uncounted.map((prompt) => prompt.id)).toEqual(['x', 'c']);
    expect(outline.branches[0]!.prompts.map((prompt) => prompt.tokens)).toEqual([10, Number.NaN, Number.NaN, 50, 20]);
  });

  it('keeps counts the first pass took, and with no old index everything is added', () => {
    const outline = outlineOf([['a', h('1')], ['b', h('2')]], 7);
    expect(matchOldPrompts(outline, null)).toEqual({ changes: { added: ['a', 'b'], modified: [], removed: [] }, uncounted: [] });
    expect(outline.branches[0]!.prompts.map((prompt) => prompt.tokens)).toEqual([7, 7]);
  });
});

describe('JSON written in parts', () => {
  it('joins to exactly what JSON.stringify(value, null, 2) gives', () => {
    const topics = JSON.parse('{"__proto__": ["seg-1"], "10": [], "constructor": ["a", "b"]}') as Record<string, unknown>;
    const values: Array<Record<string, unknown>> = [
      {},
      { a: 1 },
      { empty: [], none: {}, list: [1, 'two', null, { deep: [{ x: 'é\n"' }] }], topics, text: 'x'.repeat(70_000), skipped: undefined, fn: () => 1 },
      { rows: Array.from({ length: 5_000 }, (_, i) => ({ id: `p${i}`, hash: h('a'), tokens: i })), holes: [undefined, () => 1, Symbol('s')] },
    ];
    for (const value of values) {
      const parts = [...formatJsonInParts(value)];
      expect(parts.join('')).toBe(JSON.stringify(value, null, 2));
    }
    expect([...formatJsonInParts(values[3]!)].length).toBeGreaterThan(4);
  });
});
