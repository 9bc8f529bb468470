import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { buildDecisionRecords, selectDecisions } from '../../src/fixes/decisions.js';
import { buildFixPatterns, selectPatterns } from '../../src/fixes/patterns.js';
import { readPackFacts } from '../../src/fixes/query.js';
import type { FixEvent } from '../../src/records/fixes.js';
import type { FixPort, StoreEngine } from '../../src/store/ports.js';
import { openSqliteEngine } from '../../src/store/sqlite/engine.js';
import { at, commitCorpus } from '../contracts/fixtures.js';

// A context pack folds a namespace's facts once per change of them: the fold the store keeps is read instead of
// the facts, and settles against the disk exactly as a fold made now would.

const SHOP = 'github.com/acme/shop';
const CART = '/home/dev/shop/src/cart.ts';
const SIGNATURE = "TypeError: Cannot read properties of undefined (reading 'map')";

function event(seq: number, fields: Partial<FixEvent> & Pick<FixEvent, 'kind'>): FixEvent {
  const sessionId = 'shop-checkout';
  return { sessionId, namespace: SHOP, repo: SHOP, seq, ts: at(3, 10, seq), signature: null, target: null, messageId: `${sessionId}.${seq}`, files: [], fileHashes: {}, commits: [], text: null, ...fields };
}

const EVENTS: FixEvent[] = [
  event(1, { kind: 'error', signature: SIGNATURE, target: 'npx vitest run test/cart.test.ts', text: `${SIGNATURE}\n    at total` }),
  event(2, { kind: 'decision', text: 'We will guard the cart items before mapping them.' }),
  event(3, { kind: 'edit', files: [CART], fileHashes: { [CART]: 'abc123' } }),
  event(4, { kind: 'pass', target: 'npx vitest run test/cart.test.ts' }),
];

let dir: string;
let engine: StoreEngine;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'moon-fact-fold-'));
  engine = openSqliteEngine(join(dir, 'moon.db'));
  await commitCorpus(engine);
  await engine.fixes.putSessionEvents('shop-checkout', EVENTS);
});
afterEach(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The engine's FixPort, counting the facts it is asked for. */
function counting(port: FixPort): { port: FixPort; reads: () => number } {
  let reads = 0;
  return {
    port: { ...port, listEvents: async (filter) => ((reads += 1), port.listEvents(filter)) },
    reads: () => reads,
  };
}

test('a kept fold is read instead of the facts, and gives what folding them now gives, settled against the disk now', async () => {
  const disk = new Map([[CART, 'abc123']]);
  const hashFile = (path: string): string | null => disk.get(path) ?? null;
  const expected = async () => ({
    patterns: selectPatterns(buildFixPatterns(await engine.fixes.listEvents({ namespaces: [SHOP] }), hashFile), null).slice(0, 5),
    decisions: selectDecisions(buildDecisionRecords(await engine.fixes.listEvents({ namespaces: [SHOP] }), hashFile), null),
  });
  const read = async (port: FixPort) => {
    const facts = readPackFacts(port, hashFile, 'test-build');
    return { patterns: await facts.patterns(SHOP, null, 5), decisions: await facts.decisions(SHOP) };
  };

  const first = counting(engine.fixes);
  const made = await read(first.port);
  expect(first.reads()).toBe(1);
  expect(made).toEqual(await expected());
  expect(made.patterns[0]).toMatchObject({ signature: SIGNATURE, state: 'verified' });
  expect(made.decisions[0]).toMatchObject({ text: 'We will guard the cart items before mapping them.', state: 'verified' });

  const second = counting(engine.fixes);
  expect(await read(second.port)).toEqual(made);
  expect(second.reads()).toBe(0);

  // The file the fix and the decision changed differs on disk now: both stale, from the kept fold too.
  disk.set(CART, 'def456');
  const third = counting(engine.fixes);
  const settled = await read(third.port);
  expect(third.reads()).toBe(0);
  expect(settled).toEqual(await expected());
  expect(settled.patterns[0]!.state).toBe('stale');
  expect(settled.decisions[0]).toMatchObject({ state: 'stale', stale_reason: `${CART} changed since` });

  // New facts: folded again, from the facts.
  await engine.fixes.putSessionEvents('shop-checkout', EVENTS.slice(0, 2));
  const fourth = counting(engine.fixes);
  const refolded = await read(fourth.port);
  expect(fourth.reads()).toBe(1);
  expect(refolded).toEqual(await expected());
  expect(refolded.patterns[0]!.state).toBe('open');
});

test('without a fold build nothing is kept or read', async () => {
  const hashFile = (): string | null => null;
  for (let run = 0; run < 2; run += 1) {
    const reader = counting(engine.fixes);
    await readPackFacts(reader.port, hashFile, null).decisions(SHOP);
    expect(reader.reads()).toBe(1);
  }
  expect((await engine.fixes.readFold(SHOP, 'test-build')).body).toBeNull();
});
