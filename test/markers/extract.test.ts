import { describe, expect, it } from 'vitest';
import { DEFAULT_MARKER_CONFIG, MARKER_TYPES, extractMarkers } from '../../src/markers/extract.js';

describe('extractMarkers', () => {
  it('finds every default type with its priority, line and two lines of context', () => {
    const text = ['intro', 'one', 'two', ...MARKER_TYPES.map((type) => `@/${type}: the ${type} text`), 'tail a', 'tail b', 'tail c'].join('\n');
    const markers = extractMarkers(text);
    expect(markers.map((marker) => marker.type)).toEqual([...MARKER_TYPES]);
    const decision = markers[0]!;
    expect(decision).toMatchObject({ content: 'the decision text', lineNumber: 4, priority: 10, importance: 1 });
    expect(decision.context.before).toBe('one\ntwo');
    expect(markers.at(-1)).toMatchObject({ type: 'ref', priority: 3, importance: 0.3 });
    expect(markers.at(-1)!.context.after).toBe('tail a\ntail b');
  });

  it('is case-insensitive on the tag, ignores empty markers and texts without one', () => {
    expect(extractMarkers('@/Decision:   use WAL mode  ')).toMatchObject([{ type: 'decision', content: 'use WAL mode' }]);
    expect(extractMarkers('@/todo:   \nnext')).toEqual([]);
    expect(extractMarkers('email me @ home / later')).toEqual([]);
  });

  it('takes configured patterns', () => {
    const config = { ...DEFAULT_MARKER_CONFIG, patterns: [{ type: 'risk', pattern: '@\\/risk:\\s*(.+)', priority: 9 }] };
    expect(extractMarkers('x\n@/risk: disk fills\n@/decision: no', config)).toMatchObject([{ type: 'risk', content: 'disk fills', importance: 0.9 }]);
  });
});
