import { expect, test } from 'vitest';
import type { CompactionAnchor } from '../../src/model.js';
import { countCompactions } from '../../src/project/render.js';

const anchor = (id: string, originId: string | null): CompactionAnchor => ({ id, sessionId: 's', ts: null, line: 1, note: 'n', originId });

test('a boundary and the summary that points back at it are one compaction', () => {
  expect(countCompactions([anchor('cb', 'a9'), anchor('cs', 'cb')])).toBe(1);
  expect(countCompactions([anchor('cb', 'a9'), anchor('cs', 'cb'), anchor('cb2', 'x1')])).toBe(2);
  expect(countCompactions([anchor('c1', null), anchor('c2', null)])).toBe(2);
  expect(countCompactions([])).toBe(0);
});
