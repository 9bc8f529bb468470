import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { makeTempDir, runMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

/**
 * A plain word the index does not hold is looked up as a word prefix ("wrangl" finds "wrangler"). The word index
 * stems a prefix before matching it — "buy" becomes "bui", which starts "build" — so recall keeps only the
 * entries where a word starts with the prefix as typed.
 */
let home: string;
let cleanup: () => void;

beforeAll(async () => {
  const temp = makeTempDir();
  cleanup = temp.cleanup;
  home = join(temp.path, 'home');
  const corpus = join(temp.path, 'projects', '-home-dev-shed');
  mkdirSync(corpus, { recursive: true });
  writeFileSync(
    join(corpus, 'shed.jsonl'),
    claudeSession({
      sessionId: 'shed',
      cwd: '/home/dev/shed',
      turns: [
        { role: 'user', at: '2026-04-01T09:00:00Z', id: 's-1', text: 'We should build the garden shed this weekend' },
        { role: 'assistant', at: '2026-04-01T09:01:00Z', id: 's-2', text: 'The building permit arrived on Monday' },
        { role: 'user', at: '2026-04-01T09:02:00Z', id: 's-3', text: 'Melanie bought the timber; the buyer at the yard was happy' },
        { role: 'assistant', at: '2026-04-01T09:03:00Z', id: 's-4', text: 'The rainGauge reading was low all week' },
        { role: 'user', at: '2026-04-01T09:04:00Z', id: 's-5', text: 'Then npx wrangler deploy for the shed website' },
      ],
    }),
  );
  const indexed = await runMoon(['index', join(temp.path, 'projects'), '--home', home, '--json']);
  expect(indexed.code, indexed.stderr).toBe(0);
});

afterAll(() => cleanup());

/** Entries the prefix list found (`--explain` names it the "trigram" signal, the partial-word list). */
async function prefixMatchIds(query: string): Promise<string[]> {
  const run = await runMoon(['recall', query, '--home', home, '--json', '--explain', '--limit', '10', '--now', '2026-04-02T00:00:00Z']);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as RecallResult).matches
    .flatMap((match) => {
      const explain = (match.metadata as { explain?: { signals: Record<string, unknown> }[] }).explain ?? [];
      return match.metadata.message_ids.filter((_, index) => explain[index]?.signals.trigram !== undefined);
    })
    .sort();
}

describe('recall: a word cut short', () => {
  test('matches words that start with it as typed, not words its stem starts', async () => {
    // No entry holds "buy" or a word stemmed like it: the index turns the prefix into "bui*", which starts
    // "build" and "building" (s-1, s-2) — neither starts with "buy".
    expect(await prefixMatchIds('buy')).toEqual([]);
    expect(await prefixMatchIds('buil')).toEqual(['s-1', 's-2']);
    expect(await prefixMatchIds('wrangl')).toEqual(['s-5']);
  });

  test('an identifier part counts as a word start', async () => {
    expect(await prefixMatchIds('gau')).toEqual(['s-4']);
  });
});
