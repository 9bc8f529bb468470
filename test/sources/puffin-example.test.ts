import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { MARKER_TYPES, extractMarkers } from '../../src/markers/extract.js';
import { parsePuffinHistory } from '../../src/sources/puffin-history.js';
import { REPO } from '../helpers/cli.js';

/** The demo's Puffin history (examples/puffin/history.json) stays a valid history that shows every marker type. */
test('the example Puffin history parses whole and carries every @/ marker type once', () => {
  const parsed = parsePuffinHistory(JSON.parse(readFileSync(join(REPO, 'examples', 'puffin', 'history.json'), 'utf8')));
  expect(parsed.skipped).toEqual([]);
  expect(parsed.totalPrompts).toBe(5);
  // branchOrder leaves `improvements` out: it still comes, after the listed ones.
  expect(parsed.branches.map((branch) => branch.id)).toEqual(['architecture', 'bug-fixes', 'ui', 'improvements']);
  const prompts = parsed.branches.flatMap((branch) => branch.prompts);
  expect(prompts.filter((prompt) => prompt.response === null)).toHaveLength(1);
  expect(prompts.find((prompt) => prompt.depth === 1 && prompt.branchId === 'architecture')).toBeDefined();
  const types = prompts.flatMap((prompt) => extractMarkers(prompt.response?.content ?? '').map((marker) => marker.type));
  expect([...types].sort()).toEqual([...MARKER_TYPES].sort());
});
