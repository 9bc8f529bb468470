import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { MAX_QUERY_CHARS, MAX_QUERY_TERMS } from '../../src/text/limits.js';
import { makeTempDir, runMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

/** A pasted query of 100,000 distinct words (about 600 KB) took 63 s; capped, it costs what a short one does. */

let home: string;
let cleanup: () => void;

beforeAll(async () => {
  const temp = makeTempDir('moon-query-');
  cleanup = temp.cleanup;
  home = join(temp.path, 'home');
  const corpus = join(temp.path, 'corpus');
  mkdirSync(corpus);
  writeFileSync(
    join(corpus, 'billing.jsonl'),
    claudeSession({
      sessionId: 'billing',
      turns: [
        { role: 'user', at: '2026-03-01T10:00:00.000Z', text: 'Why does the invoice total round the tax twice?' },
        { role: 'assistant', at: '2026-03-01T10:01:00.000Z', text: 'The invoice rounding happened per line and again on the sum.' },
      ],
    }),
  );
  const run = await runMoon(['index', corpus, '--home', home]);
  expect(run.code, run.stderr).toBe(0);
});
afterAll(() => cleanup());

/** `count` distinct words of letters only, none of them a stopword. */
function makeDistinctWords(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `z${index.toString(26).replace(/\d/g, (digit) => 'qrstuvwxyz'[Number(digit)]!)}k`);
}

describe('a huge query', () => {
  test('100,000 distinct words: answered, with notes saying what was searched', async () => {
    const words = makeDistinctWords(100_000);
    const query = `invoice ${words.join(' ')}`;
    const run = await runMoon(['recall', query, '--home', home, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as RecallResult;
    expect(result.query).toBe(query);
    expect(result.matches[0]?.metadata.session_id).toBe('billing');
    expect(result.notes).toHaveLength(2);
    expect(result.notes?.[0]).toMatch(new RegExp(`^query cut to its first \\d+ of ${query.length} characters \\(limit ${MAX_QUERY_CHARS}\\)$`));
    expect(result.notes?.[1]).toMatch(new RegExp(`^query: searched the first ${MAX_QUERY_TERMS} of \\d+ distinct terms$`));
  });

  test('text mode prints the notes on stderr', async () => {
    const run = await runMoon(['recall', `invoice ${makeDistinctWords(5_000).join(' ')}`, '--home', home]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^note: query cut to its first \d+ of \d+ characters/m);
    expect(run.stderr).toMatch(/^note: query: searched the first 64 of \d+ distinct terms/m);
    expect(run.stdout).toContain('billing');
  });

  test('many distinct terms under the character cap are cut to the term cap', async () => {
    const words = Array.from({ length: 300 }, (_, index) => `t${index}`);
    const run = await runMoon(['recall', `invoice ${words.join(' ')}`, '--home', home, '--json']);
    const result = JSON.parse(run.stdout) as RecallResult;
    expect(result.notes).toEqual([`query: searched the first ${MAX_QUERY_TERMS} of 301 distinct terms`]);
    expect(result.matches[0]?.metadata.session_id).toBe('billing');
  });

  test('--require and --exclude lists are capped on their own', async () => {
    const many = Array.from({ length: 100 }, (_, index) => `r${index}`).join(' ');
    const run = await runMoon(['recall', 'invoice', '--exclude', many, '--home', home, '--json']);
    const result = JSON.parse(run.stdout) as RecallResult;
    expect(result.notes).toEqual([`--exclude: searched the first ${MAX_QUERY_TERMS} of 100 distinct terms`]);
    expect(result.matches).toHaveLength(1);
  });

  test('an ordinary query has no notes field at all', async () => {
    const run = await runMoon(['recall', 'invoice rounding', '--home', home, '--json']);
    expect(JSON.parse(run.stdout)).not.toHaveProperty('notes');
  });
});
