import { cpSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';

/**
 * A session a run writes from the start has its projection's keyword terms ranked at its parse, from memory; a
 * session re-rendered later (`--reproject`, a stale one) has them ranked from the store. Both must give the
 * same bytes. The corpus (examples and test fixtures: compaction anchors, repeated keys, many tools) is one
 * ingest batch, so both renders rank keywords against the same corpus.
 */
let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ path: root, cleanup } = makeTempDir('moon-projection-terms-'));
});
afterEach(() => cleanup());

function readProjections(home: string): Record<string, string> {
  const dir = join(home, 'archives', 'mlib');
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
}

test.each(['0', '2'])('projections with terms ranked at the parse equal those ranked from the store (workers: %s)', async (workers) => {
  const corpus = join(root, 'corpus');
  cpSync(join(REPO, 'examples'), join(corpus, 'examples'), { recursive: true });
  cpSync(join(REPO, 'test', 'fixtures'), join(corpus, 'fixtures'), { recursive: true });
  const env = { MOON_HOME: join(root, 'home'), MOON_INDEX_WORKERS: workers };
  const first = await spawnMoon(['index', corpus, '--json'], env);
  expect(first.code, first.stderr).toBe(0);
  const fromMemory = readProjections(env.MOON_HOME);
  expect(Object.keys(fromMemory).length).toBeGreaterThan(10);
  const again = await spawnMoon(['index', '--reproject', corpus, '--json'], env);
  expect(again.code, again.stderr).toBe(0);
  expect((JSON.parse(again.stdout) as { projections: number }).projections).toBeGreaterThanOrEqual(Object.keys(fromMemory).length);
  expect(readProjections(env.MOON_HOME)).toEqual(fromMemory);
});
