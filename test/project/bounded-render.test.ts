import { describe, expect, test } from 'vitest';
import type { CompactionAnchor, Entry } from '../../src/model.js';
import type { SessionDoc } from '../../src/project/doc.js';
import { formatInlineCode, renderProjection, truncateText } from '../../src/project/render.js';
import { computeTemporalMarkers } from '../../src/project/temporal-markers.js';
import { SESSION_ID, makeEntry, makeSession } from './fixture.js';

/** Sessions shaped to make a per-item rescan quadratic; each would take minutes that way. No timing is asserted. */

const START = Date.parse('2026-04-04T00:00:00Z');

function makeDoc(entries: Entry[], anchors: CompactionAnchor[] = []): SessionDoc {
  return {
    session: makeSession(),
    entries,
    anchors,
    filteredNoiseCount: 0,
    archivePath: '/home/dev/.moon/archives/raw/x.jsonl',
    contentHash: 'sha256:0',
    timezone: 'UTC',
  };
}

describe('projection of huge messages', () => {
  test('a 32 MB message renders bounded and marked where it was cut', () => {
    const text = `Start of the paste ${'z'.repeat(32_000_000)}`;
    const projection = renderProjection(makeDoc([makeEntry({ line: 1, ts: START, role: 'user', text })]));
    expect(projection.length).toBeLessThan(10_000);
    expect(projection).toMatch(/"Start of the paste z+…" \[32\.0 MB message; the raw archive keeps all of it\]/);
  });

  test('a huge tool result is marked too; a message the index holds whole is not', () => {
    const tool = makeEntry({ line: 1, ts: START, role: 'tool', toolName: 'Bash', text: 'cat big.log', result: 'log line\n'.repeat(200_000), priority: 'normal' });
    const user = makeEntry({ line: 2, ts: START + 1000, role: 'user', text: 'word '.repeat(100_000) });
    const projection = renderProjection(makeDoc([tool, user]));
    expect(projection).toContain('log line log line');
    expect(projection).toMatch(/…\s\[1\.8 MB message; the raw archive keeps all of it\]/);
    expect(projection.match(/the raw archive keeps all of it/g)).toHaveLength(1);
  });

  test('a message of a million backtick runs becomes inline code without overflowing the stack', () => {
    expect(formatInlineCode('a`'.repeat(1_000_000)).startsWith('`` a`')).toBe(true);
    expect(truncateText('`'.repeat(2_000_000), 10)).toBe('`````````…');
  });
});

describe('projection of many items', () => {
  test('30,000 distinct tool names each get their section once, in first-use order', () => {
    const entries = Array.from({ length: 30_000 }, (_, index) =>
      makeEntry({ line: index + 1, ts: START + index * 1000, role: 'tool', toolName: `tool_${index}`, text: `call ${index}`, result: 'ok', priority: 'normal' }),
    );
    const projection = renderProjection(makeDoc(entries));
    expect(projection.match(/^### tool_/gm)).toHaveLength(30_000);
    expect(projection.indexOf('### tool_0\n')).toBeLessThan(projection.indexOf('### tool_29999\n'));
  });

  test('30,000 entries an hour apart and 30,000 compactions place every marker once', () => {
    const entries = Array.from({ length: 30_000 }, (_, index) =>
      makeEntry({ line: index * 2 + 2, ts: START + index * 3_600_000, role: 'user', text: `message number ${index}` }),
    );
    const anchors = Array.from({ length: 30_000 }, (_, index) => ({
      id: `c${index}`,
      sessionId: SESSION_ID,
      ts: START + index * 3_600_000 - 1000,
      line: index * 2 + 1,
      note: `compaction ${index}`,
      originId: null,
    }));
    const markers = computeTemporalMarkers(entries, 'UTC', anchors);
    expect(markers.filter((marker) => marker.kind === 'compaction')).toHaveLength(30_000);
    expect(markers.find((marker) => marker.kind === 'compaction' && marker.text.includes('Compaction'))?.beforeSeq).toBe(entries[0]!.seq);
    const projection = renderProjection(makeDoc(entries, anchors));
    expect(projection.match(/\| marker \|/g)!.length).toBe(markers.length);
  });

  test('a compaction after entries out of line order still sits before the first later entry', () => {
    const entries = [
      makeEntry({ line: 5, ts: START, role: 'user', text: 'first by seq, late by line' }),
      makeEntry({ line: 2, ts: START + 1000, role: 'user', text: 'second by seq, early by line' }),
      makeEntry({ line: 9, ts: START + 2000, role: 'user', text: 'third' }),
    ].map((entry, index) => ({ ...entry, seq: index }));
    const anchor = { id: 'c', sessionId: SESSION_ID, ts: START + 500, line: 3, note: 'n', originId: null };
    const markers = computeTemporalMarkers(entries, 'UTC', [anchor]);
    expect(markers.find((marker) => marker.kind === 'compaction')?.beforeSeq).toBe(0);
    const late = { ...anchor, line: 6 };
    expect(computeTemporalMarkers(entries, 'UTC', [late]).find((marker) => marker.kind === 'compaction')?.beforeSeq).toBe(2);
  });
});
