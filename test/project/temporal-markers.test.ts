import { describe, expect, it } from 'vitest';
import type { CompactionAnchor } from '../../src/model.js';
import {
  computeTemporalMarkers,
  describeDayPart,
  describeElapsed,
  describeSessionPhase,
} from '../../src/project/temporal-markers.js';
import { buildBasicDoc, makeEntry, SESSION_ID } from './fixture.js';

const at = (iso: string): number => Date.parse(iso);
const MIN = 60_000;

describe('temporal markers', () => {
  it('names local parts of day, with small hours belonging to the previous night', () => {
    const zone = 'Australia/Sydney';
    // 2026-02-21 is a Saturday.
    expect(describeDayPart(at('2026-02-20T19:00:00Z'), zone)).toBe('Saturday morning'); // 06:00 AEDT
    expect(describeDayPart(at('2026-02-21T01:00:00Z'), zone)).toBe('Saturday afternoon'); // 12:00
    expect(describeDayPart(at('2026-02-21T06:00:00Z'), zone)).toBe('Saturday evening'); // 17:00
    expect(describeDayPart(at('2026-02-21T10:00:00Z'), zone)).toBe('Saturday night'); // 21:00
    expect(describeDayPart(at('2026-02-21T15:00:00Z'), zone)).toBe('Saturday night'); // 02:00 Sunday
    expect(describeDayPart(at('2026-02-21T18:00:00Z'), zone)).toBe('Sunday morning'); // 05:00 Sunday
    expect(describeDayPart(at('2026-02-21T18:00:00Z'), 'UTC')).toBe('Saturday evening');
  });

  it('describes elapsed time and session phase', () => {
    expect(describeElapsed(1)).toBe('1 minute');
    expect(describeElapsed(40)).toBe('40 minutes');
    expect(describeElapsed(60)).toBe('1 hour');
    expect(describeElapsed(140)).toBe('2 hours 20 minutes');
    expect(describeSessionPhase(0, 90 * MIN)).toBe('Early in session');
    expect(describeSessionPhase(45 * MIN, 90 * MIN)).toBe('Midway through session');
    expect(describeSessionPhase(80 * MIN, 90 * MIN)).toBe('Late in session');
  });

  it('marks start, every ~20 minutes, and end', () => {
    const start = at('2026-02-21T22:00:00Z'); // 09:00 AEDT Sunday
    const entries = Array.from({ length: 13 }, (_, i) => makeEntry({ line: i + 1, ts: start + i * 10 * MIN, role: i % 2 ? 'assistant' : 'user', text: `m${i}` }));
    const markers = computeTemporalMarkers(entries, 'Australia/Sydney');
    expect(markers.map((m) => m.kind)).toEqual(['start', 'periodic', 'periodic', 'periodic', 'periodic', 'periodic', 'end']);
    expect(markers[0]).toMatchObject({ beforeSeq: 1000, text: '[Sunday morning] [Session start] [Early in session]' });
    expect(markers.filter((m) => m.kind === 'periodic').map((m) => m.ts - start)).toEqual([20, 40, 60, 80, 100].map((n) => n * MIN));
    expect(markers[3]?.text).toBe('[Sunday morning] [Midway through session] [1 hour into session]');
    expect(markers[6]).toMatchObject({ beforeSeq: null, text: '[Sunday morning] [Session end] [Late in session] [2 hours into session]' });
  });

  it('emits one periodic marker after a long gap, not one per missed interval', () => {
    const start = at('2026-02-21T22:00:00Z');
    const entries = [0, 5, 185, 190].map((m, i) => makeEntry({ line: i + 1, ts: start + m * MIN, role: 'user', text: 'x' }));
    const markers = computeTemporalMarkers(entries, 'UTC');
    expect(markers.map((m) => m.kind)).toEqual(['start', 'periodic', 'end']);
    expect(markers[1]?.text).toBe('[Saturday night] [Late in session] [3 hours 5 minutes into session]');
  });

  it('marks compaction boundaries before the first entry after the compaction record', () => {
    const doc = buildBasicDoc();
    const markers = computeTemporalMarkers(doc.entries, doc.timezone, doc.anchors);
    const compaction = markers.find((m) => m.kind === 'compaction');
    expect(compaction).toMatchObject({ beforeSeq: 9000, text: '[Saturday night] [Compaction boundary] [50 minutes into session]' });
    const trailing: CompactionAnchor = { id: 'c-end', sessionId: SESSION_ID, ts: null, line: 999, note: 'late', originId: null };
    const withTrailing = computeTemporalMarkers(doc.entries, doc.timezone, [trailing]);
    expect(withTrailing.slice(-2).map((m) => [m.kind, m.beforeSeq])).toEqual([['compaction', null], ['end', null]]);
  });

  it('is pure and order-independent, and empty without timestamps', () => {
    const doc = buildBasicDoc();
    const forward = computeTemporalMarkers(doc.entries, doc.timezone, doc.anchors);
    expect(computeTemporalMarkers([...doc.entries].reverse(), doc.timezone, doc.anchors)).toEqual(forward);
    expect(computeTemporalMarkers([makeEntry({ line: 1, role: 'user', text: 'no time' })], 'UTC')).toEqual([]);
    const single = computeTemporalMarkers([makeEntry({ line: 1, ts: at('2026-02-21T22:00:00Z'), role: 'user', text: 'hi' })], 'UTC');
    expect(single.map((m) => m.text)).toEqual(['[Saturday night] [Session start] [Early in session]', '[Saturday night] [Session end]']);
  });
});
