import { describe, expect, test } from 'vitest';
import { type Entry, createEntry } from '../../src/model.js';
import { extractEntryMarkers, fingerprintMarkerConfig, selectMarkerTexts } from '../../src/markers/entry-markers.js';
import { DEFAULT_MARKER_CONFIG } from '../../src/markers/extract.js';
import { MARKERS_PER_ENTRY, MARKER_CONTENT_CHARS, MARKER_CONTEXT_CHARS } from '../../src/text/limits.js';

const entry = (fields: Partial<Entry>): Entry =>
  createEntry({ id: 'm1', key: 'k1', sessionId: 's1', seq: 1000, line: 1, ts: null, role: 'user', text: '', ...fields });

describe('which texts of an entry markers are read from', () => {
  test('prompts and replies by their text, tools by their output only; reasoning, recaps and system text never', () => {
    expect(selectMarkerTexts(entry({ role: 'user', text: 'a' }))).toEqual([{ field: 'prompt', text: 'a' }]);
    expect(selectMarkerTexts(entry({ role: 'assistant', text: 'b' }))).toEqual([{ field: 'response', text: 'b' }]);
    expect(selectMarkerTexts(entry({ role: 'assistant', kind: 'reasoning', text: 'b' }))).toEqual([]);
    expect(selectMarkerTexts(entry({ role: 'assistant', kind: 'recap', text: 'b' }))).toEqual([]);
    expect(selectMarkerTexts(entry({ role: 'tool', text: 'input', result: 'output' }))).toEqual([{ field: 'response', text: 'output' }]);
    expect(selectMarkerTexts(entry({ role: 'tool', text: 'input' }))).toEqual([]);
    expect(selectMarkerTexts(entry({ role: 'system', text: '@/decision: x' }))).toEqual([]);
  });
});

describe('extractEntryMarkers', () => {
  test('numbers markers in order and caps text and context', () => {
    const long = 'x'.repeat(MARKER_CONTENT_CHARS + 50);
    const before = 'b'.repeat(MARKER_CONTEXT_CHARS + 10);
    const markers = extractEntryMarkers(entry({ text: `${before}\n@/decision: ${long}\n@/todo: next` }), DEFAULT_MARKER_CONFIG);
    expect(markers.map((marker) => [marker.ordinal, marker.type, marker.field])).toEqual([
      [0, 'decision', 'prompt'],
      [1, 'todo', 'prompt'],
    ]);
    expect(markers[0]!.content.length).toBe(MARKER_CONTENT_CHARS);
    expect(markers[0]!.context.before.length).toBe(MARKER_CONTEXT_CHARS);
    expect(markers[1]!.context.before.endsWith('xxx')).toBe(true);
  });

  test('keeps at most MARKERS_PER_ENTRY of a tool output listing many', () => {
    const result = Array.from({ length: MARKERS_PER_ENTRY + 20 }, (_, index) => `src/a.ts:${index}: // @/todo: item ${index}`).join('\n');
    const markers = extractEntryMarkers(entry({ role: 'tool', text: 'grep -rn @/todo src', result }), DEFAULT_MARKER_CONFIG);
    expect(markers.length).toBe(MARKERS_PER_ENTRY);
    expect(markers.at(-1)!.content).toBe(`item ${MARKERS_PER_ENTRY - 1}`);
  });

  test('the fingerprint changes with the patterns and the context, not with object identity', () => {
    const same = { patterns: DEFAULT_MARKER_CONFIG.patterns.map((entry) => ({ ...entry })), contextLines: 2 };
    expect(fingerprintMarkerConfig(same)).toBe(fingerprintMarkerConfig(DEFAULT_MARKER_CONFIG));
    expect(fingerprintMarkerConfig({ ...same, contextLines: 3 })).not.toBe(fingerprintMarkerConfig(DEFAULT_MARKER_CONFIG));
    expect(fingerprintMarkerConfig({ ...same, patterns: same.patterns.slice(1) })).not.toBe(fingerprintMarkerConfig(DEFAULT_MARKER_CONFIG));
  });
});
