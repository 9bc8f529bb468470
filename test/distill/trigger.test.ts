import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { type TestHome, makeIndexedHome } from '../helpers/home.js';

/** Seed 001 Distill Trigger contract, rule by rule, through the watcher's cycle on a clock the test moves. */
let current: TestHome | null = null;
afterEach(async () => {
  await current?.cleanup();
  current = null;
});

const MINUTE = 60_000;
const SESSIONS_BY_END = [
  '3e8f1a2b-6c7d-4e9f-a0b1-c2d3e4f5a6b7', // openclaw, January
  '5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d', // claude-code, 2026-02-20 18:39Z
  '019c8b2e-4a1f-7d3c-b5e6-2f8a9c0d1e3b', // codex, 2026-02-21 09:18Z
  'a7d41c09-2e6f-4b3a-8c5d-9e0f1a2b3c4d', // claude-code, 2026-02-25
];

function readState(home: string): { last_syns_day: string | null } {
  return JSON.parse(readFileSync(join(home, 'state', 'watcher.json'), 'utf8'));
}

describe('Distill Trigger contract', () => {
  test('rule 2: L1 takes at most max_per_cycle pending projections, oldest last activity first, the same every time', async () => {
    current = await makeIndexedHome({ toml: '[distill]\nmax_per_cycle = 2\n[watcher]\ncooldown_secs = 0\n' });
    const watcher = await current.moon.upkeep.watcher();
    expect(watcher.planCycle().pending_l1.map((path) => path.split('/').pop())).toEqual(SESSIONS_BY_END.slice(0, 2).map((id) => `${id}.md`));
    const first = await watcher.watchOnce();
    expect(first.l1).toMatchObject({ state: 'ran', written: 2, remaining: 2 });
    expect(watcher.status().pending_l1.oldest.map((path) => path.split('/').pop())).toEqual(SESSIONS_BY_END.slice(2).map((id) => `${id}.md`));
    const second = await watcher.watchOnce();
    expect(second.l1).toMatchObject({ state: 'ran', written: 2, remaining: 0 });
    const third = await watcher.watchOnce();
    expect(third.l1).toMatchObject({ state: 'ran', written: 0 });
  }, 30_000);

  test('rule 1: L1 runs only once the cooldown has passed since it last wrote, and only when something is pending', async () => {
    current = await makeIndexedHome({ toml: '[distill]\nmax_per_cycle = 1\n[watcher]\ncooldown_secs = 600\n' });
    const start = Date.parse('2026-03-01T01:00:00Z');
    const watcher = await current.moon.upkeep.watcher();
    expect((await watcher.watchOnce()).l1.written).toBe(1);
    current.setNow(start + 9 * MINUTE);
    expect((await watcher.watchOnce()).l1.state).toBe('cooldown');
    expect(watcher.status().pending_l1.count).toBe(3);
    current.setNow(start + 10 * MINUTE);
    expect((await watcher.watchOnce()).l1).toMatchObject({ state: 'ran', written: 1 });
  }, 30_000);

  test('rule 3: a held L1 lock skips the cycle\'s L1 step instead of waiting, and writes nothing', async () => {
    current = await makeIndexedHome({ toml: '[watcher]\ncooldown_secs = 0\n' });
    const { home } = current;
    const watcher = await current.moon.upkeep.watcher();
    mkdirSync(join(home, 'logs'), { recursive: true });
    writeFileSync(join(home, 'logs', 'moon-l1.lock'), JSON.stringify({ pid: process.ppid, started_at_epoch_secs: 1 }));
    const cycle = await watcher.watchOnce();
    expect(cycle.l1).toMatchObject({ state: 'skipped', owner: process.ppid, written: 0 });
    expect(existsSync(join(home, 'memory'))).toBe(false);
    // A lock left by a process that is gone is stale: the next cycle takes it over.
    writeFileSync(join(home, 'logs', 'moon-l1.lock'), '999999999\n');
    expect((await watcher.watchOnce()).l1).toMatchObject({ state: 'ran', written: 4 });
  }, 30_000);

  test('rules 6 and 7: L2 runs once per residential day, on the first cycle after local midnight in Sydney, from yesterday\'s file and MEMORY.md', async () => {
    current = await makeIndexedHome({ toml: '[watcher]\ncooldown_secs = 0\n' });
    const { home } = current;
    const watcher = await current.moon.upkeep.watcher();
    // 2026-02-21 20:00 in Sydney: L1 writes the day files; L2 runs for yesterday (the 20th), which has none.
    current.setNow(Date.parse('2026-02-21T09:00:00Z'));
    const first = await watcher.watchOnce();
    expect(first.syns).toEqual({ day: '2026-02-20', outcome: 'nothing to read' });
    expect(readState(home).last_syns_day).toBe('2026-02-21');
    // 23:59 the same local day (12:59 UTC): not again.
    current.setNow(Date.parse('2026-02-21T12:59:00Z'));
    expect((await watcher.watchOnce()).syns).toBeNull();
    // 00:01 on the 22nd in Sydney — still the 21st in UTC: the first cycle after local midnight synthesises the 21st.
    current.setNow(Date.parse('2026-02-21T13:01:00Z'));
    const afterMidnight = await watcher.watchOnce();
    expect(afterMidnight.syns).toEqual({ day: '2026-02-21', outcome: 'written' });
    const memory = readFileSync(join(home, 'MEMORY.md'), 'utf8');
    expect(memory).toMatch(/## Lessons Learned[\s\S]*## User Preferences[\s\S]*## Durable Decisions & Context/);
    expect(memory).toContain('(2026-02-21, session 5f3c2a1e)');
    const audit = readFileSync(join(home, 'logs', 'audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const syns = audit.filter((event) => event.event === 'syns');
    expect(syns).toHaveLength(1);
    // The audit names files inside the home relative to it (docs/formats.md, Audit event).
    expect(syns[0].inputs.map((input: { path: string }) => input.path)).toEqual(['memory/2026-02-21.md', 'MEMORY.md']);
    expect(syns[0].inputs[1].sha256).toBeNull();
    // Later that day: not again.
    current.setNow(Date.parse('2026-02-21T20:00:00Z'));
    expect((await watcher.watchOnce()).syns).toBeNull();
  }, 30_000);
});
