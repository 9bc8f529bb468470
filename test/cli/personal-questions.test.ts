import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RecallMatch, RecallResult } from '../../src/model.js';
import type { Explanation } from '../../src/search/fusion.js';
import { makeTempDir, runMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

// Questions about the asker's own life (src/search/personal.ts), asked through the CLI of real transcripts.
// --now is Saturday 2026-03-07 noon UTC: "last weekend" is 2026-02-28 to 2026-03-01.
let home: string;
let cleanup: () => void;
const NOW = ['--now', '2026-03-07T12:00:00Z', '--tz', 'UTC'];

beforeAll(async () => {
  const temp = makeTempDir('moon-personal-');
  cleanup = temp.cleanup;
  home = join(temp.path, 'home');
  const corpus = join(temp.path, 'corpus');
  mkdirSync(corpus, { recursive: true });
  const write = (id: string, turns: Parameters<typeof claudeSession>[0]['turns']): void =>
    writeFileSync(join(corpus, `${id}.jsonl`), claudeSession({ sessionId: id, cwd: '/home/dev/life', turns }));
  write('weekend-bread', [
    { role: 'user', at: '2026-02-28T10:00:00Z', text: 'We are baking sourdough bread this weekend, what hydration should the dough have?' },
    { role: 'assistant', at: '2026-02-28T10:01:00Z', text: 'For sourdough bread baked at home, start at 75% hydration and bake it in a covered pot.' },
  ]);
  write('told-later', [
    { role: 'user', at: '2026-03-04T09:00:00Z', text: 'Which espresso grinder suits a small kitchen? By the way, I baked a lemon tart for my niece for her birthday last weekend and everyone loved it.' },
    { role: 'assistant', at: '2026-03-04T09:01:00Z', text: 'Glad the tart was a hit! For a small kitchen, a compact burr grinder is the usual choice.' },
  ]);
  write('tart-guide', [
    { role: 'user', at: '2025-11-02T09:00:00Z', text: 'How do I keep a tart crust crisp?' },
    { role: 'assistant', at: '2025-11-02T09:01:00Z', text: 'Blind bake the tart shell before you fill it; a birthday tart for a niece or anyone else keeps its crust crisp that way.' },
  ]);
  write('bike-owner', [
    { role: 'user', at: '2026-01-10T08:00:00Z', text: 'I have three bikes now: a road bike for weekends, a gravel bike and an old commuter. Which chain lube lasts longest in the rain?' },
    { role: 'assistant', at: '2026-01-10T08:01:00Z', text: 'A wet lube lasts longest in rain; clean the chain every few weeks.' },
  ]);
  write('bike-guide', [
    { role: 'user', at: '2026-01-12T08:00:00Z', text: 'Commuting tips please' },
    { role: 'assistant', at: '2026-01-12T08:01:00Z', text: 'Bikes: many riders own two bikes, and own bikes are cheaper than rented bikes.' },
  ]);
  const run = await runMoon(['index', corpus, '--home', home, '--json']);
  expect(run.code, run.stderr).toBe(0);
});

afterAll(() => cleanup());

/** The boosts `--explain` names for each message of a match. */
function boostsOf(match: RecallMatch): string[][] {
  return (match.metadata.explain as Explanation[]).map((explanation) => explanation.boosts.map((boost) => boost.name));
}

async function recall(args: string[]): Promise<RecallResult> {
  const run = await runMoon(['recall', ...args, '--home', home, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as RecallResult;
}

describe('questions about the asker', () => {
  test('a past date in a personal question is a soft window: what was told after it still comes first', async () => {
    const result = await recall(['What did I bake for my niece for her birthday last weekend?', ...NOW, '--limit', '1', '--explain']);
    expect(result.matches[0]!.metadata.session_id).toBe('told-later');
    expect(boostsOf(result.matches[0]!).flat()).toContain('time:since');
    // the old guide holds the same words but lies before the date asked for: it is not boosted, and ranks after
    const all = await recall(['What did I bake for my niece for her birthday last weekend?', ...NOW]);
    const order = all.matches.map((match) => match.metadata.session_id);
    expect(order.indexOf('told-later')).toBeLessThan(order.indexOf('tart-guide'));
  });

  test('a question about what was done keeps the exact window', async () => {
    const result = await recall(['What did we bake last weekend?', ...NOW, '--limit', '1']);
    expect(result.matches[0]!.metadata.session_id).toBe('weekend-bread');
    expect(result.matches[0]!.metadata.time_window).toBe('inside');
  });

  test("the user's own statement outranks an assistant's explanation of the same words", async () => {
    const hybrid = await recall(['How many bikes do I own?', ...NOW, '--group', 'message', '--explain']);
    expect(hybrid.matches[0]!.metadata.session_id).toBe('bike-owner');
    expect(hybrid.matches[0]!.metadata.roles[0]).toBe('user');
    expect(boostsOf(hybrid.matches[0]!)[0]).toContain('role:user');
    // plain BM25 ranks the denser assistant text first: the boost is what moves it
    const baseline = await recall(['How many bikes do I own?', ...NOW, '--group', 'message', '--strategy', 'bm25']);
    expect(baseline.matches[0]!.metadata.session_id).toBe('bike-guide');
  });
});
