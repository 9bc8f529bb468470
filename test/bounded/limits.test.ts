import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import * as limits from '../../src/text/limits.js';
import { REPO } from '../helpers/cli.js';

/** The `| \`NAME\` | value |` rows of the Limits table in docs/architecture.md. */
function readDocumentedLimits(): Map<string, number> {
  const doc = readFileSync(join(REPO, 'docs', 'architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Limits'), doc.indexOf('\n## ', doc.indexOf('## Limits') + 1));
  const rows = new Map<string, number>();
  for (const match of section.matchAll(/^\| `([A-Z_]+)` \| (\d+)/gm)) rows.set(match[1]!, Number(match[2]));
  return rows;
}

const CAPS = Object.entries(limits).filter((entry): entry is [string, number] => typeof entry[1] === 'number');

describe('caps', () => {
  test('every cap in src/text/limits.ts is in the docs with the same value, and nothing else is', () => {
    const documented = readDocumentedLimits();
    expect(CAPS.length).toBeGreaterThanOrEqual(12);
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(CAPS));
  });

  test('the values the issue settled on', () => {
    expect(limits.INDEX_HEAD_CHARS).toBe(512 * 1024);
    expect(limits.INDEX_TAIL_CHARS).toBe(64 * 1024);
    expect(limits.TRIGRAM_BODY_CHARS).toBe(1000);
    expect(limits.MAX_QUERY_CHARS).toBe(2000);
    expect(limits.MAX_QUERY_TERMS).toBe(64);
  });
});

describe('selectIndexedText', () => {
  test('keeps a text that fits whole', () => {
    const text = 'a'.repeat(limits.INDEX_HEAD_CHARS + limits.INDEX_TAIL_CHARS);
    expect(limits.selectIndexedText(text)).toBe(text);
    expect(limits.isIndexCut(text)).toBe(false);
  });

  test('keeps the head and the tail of a longer one, joined by a newline', () => {
    const text = `START${'m'.repeat(2_000_000)}END`;
    const indexed = limits.selectIndexedText(text);
    expect(limits.isIndexCut(text)).toBe(true);
    expect(indexed.length).toBe(limits.INDEX_HEAD_CHARS + limits.INDEX_TAIL_CHARS + 1);
    expect(indexed.startsWith('START')).toBe(true);
    expect(indexed.endsWith('END')).toBe(true);
  });

  test('never splits a surrogate pair at either cut', () => {
    const text = '😀'.repeat(limits.INDEX_HEAD_CHARS);
    const indexed = limits.selectIndexedText(text);
    expect(indexed).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    expect(limits.sliceHead('a😀', 2)).toBe('a');
    expect(limits.sliceTail('😀a', 2)).toBe('a');
  });
});
