import { afterEach, expect, test } from 'vitest';
import { makeIndexedHome, type TestHome } from '../helpers/home.js';

let home: TestHome | null = null;
afterEach(async () => {
  await home?.cleanup();
  home = null;
});

test('the watcher cycle digests finished sessions after L1, at most distill.max_per_cycle per cycle', async () => {
  home = await makeIndexedHome({ env: { MOON_DISTILL_MAX_PER_CYCLE: '2' } });
  const watcher = await home.moon.upkeep.watcher();
  const first = await watcher.watchOnce();
  expect(first.digests).toEqual({ written: 2, remaining: 2, failed: 0 });
  const second = await watcher.watchOnce();
  expect(second.digests).toEqual({ written: 2, remaining: 0, failed: 0 });
  const third = await watcher.watchOnce();
  expect(third.digests).toEqual({ written: 0, remaining: 0, failed: 0 });
  expect((await home.moon.memory.listDigests({ allNamespaces: true })).digests).toHaveLength(4);
  expect(first.errors).toEqual([]);
});

test('a session still being written (its last entry within the idle time) waits', async () => {
  home = await makeIndexedHome();
  expect((await home.moon.memory.digestSession({ all: true, idleMs: 10 * 365 * 24 * 3600 * 1000 })).digests).toEqual([]);
  expect((await home.moon.memory.digestSession({ all: true, idleMs: 0 })).digests).toHaveLength(4);
});

test('forgetting a session removes its digest', async () => {
  home = await makeIndexedHome();
  const report = await home.moon.memory.digestSession({ all: true });
  const id = report.digests[0]!.session_id;
  await home.moon.upkeep.forget({ sessions: [id] });
  const left = (await home.moon.memory.listDigests({ allNamespaces: true })).digests.map((digest) => digest.session_id);
  expect(left).toHaveLength(3);
  expect(left).not.toContain(id);
});
