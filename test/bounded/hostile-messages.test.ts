import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { INDEX_HEAD_CHARS } from '../../src/text/limits.js';
import { makeTempDir, runMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

/**
 * One huge user message of each shape, next to a normal session, through `moon index`. No timing assertion: the
 * sizes are chosen so that a quadratic stage would run for minutes and hit the test timeout (a 125 KB token of `x`
 * took 50 s before the identifier scan was linear; a 1.1 MB prose message overflowed the stack).
 */

let root: string;
let home: string;
let corpus: string;
let cleanup: () => void;

beforeEach(() => {
  const temp = makeTempDir('moon-bounded-');
  root = temp.path;
  cleanup = temp.cleanup;
  home = join(root, 'home');
  corpus = join(root, 'corpus');
  mkdirSync(corpus, { recursive: true });
});
afterEach(() => cleanup());

const AT = '2026-03-01T10:00:00.000Z';

function writeGoodSession(): void {
  writeFileSync(
    join(corpus, 'good.jsonl'),
    claudeSession({
      sessionId: 'good',
      turns: [
        { role: 'user', at: AT, text: 'Why does the invoice total round the tax twice in the billing module?' },
        { role: 'assistant', at: '2026-03-01T10:01:00.000Z', text: 'roundTax runs per line and again on the sum; I removed the second call.' },
        { role: 'user', at: '2026-03-01T10:02:00.000Z', text: 'Great, please run the billing tests again.' },
      ],
    }),
  );
}

function writeHugeSession(text: string): void {
  writeFileSync(
    join(corpus, 'huge.jsonl'),
    claudeSession({
      sessionId: 'huge',
      turns: [
        { role: 'user', at: AT, text },
        { role: 'assistant', at: '2026-03-01T10:05:00.000Z', text: 'That paste is very large; looking at its start.' },
      ],
    }),
  );
}

/** Prose of many distinct words, so every word stage has real work: about 5.5 characters a word. */
function makeProse(chars: number): string {
  const words: string[] = [];
  let length = 0;
  for (let index = 0; length < chars; index += 1) {
    const word = `w${index.toString(36)}q`;
    words.push(word);
    length += word.length + 1;
  }
  return words.join(index36Space).slice(0, chars);
}
const index36Space = ' ';

async function index(): Promise<{ code: number; stderr: string; report: { indexed: number; failed: number; entries: number } }> {
  const run = await runMoon(['index', corpus, '--home', home, '--json']);
  return { code: run.code, stderr: run.stderr, report: JSON.parse(run.stdout || '{}') };
}

function countRows(sql: string, ...params: unknown[]): number {
  const db = new Database(join(home, 'moon.db'), { readonly: true });
  try {
    return db.prepare(sql).pluck().get(...params) as number;
  } finally {
    db.close();
  }
}

function readProjection(sessionId: string): string {
  return readFileSync(join(home, 'archives', 'mlib', `${sessionId}.md`), 'utf8');
}

async function recallGood(): Promise<RecallResult> {
  const run = await runMoon(['recall', 'invoice', 'rounding', 'tax', '--home', home, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as RecallResult;
}

const SHAPES: [string, () => string][] = [
  ['a 4 MB single token', () => 'x'.repeat(4_000_000)],
  ['4 MB of hex', () => randomBytes(2_000_000).toString('hex')],
  ['4 MB of base64', () => randomBytes(3_000_000).toString('base64')],
  ['4 MB of prose', () => makeProse(4_000_000)],
];

describe('a huge message indexes fully beside a normal session', () => {
  test.each(SHAPES)('%s', async (_name, make) => {
    writeGoodSession();
    const text = make();
    writeHugeSession(text);
    const run = await index();
    expect(run.code, run.stderr).toBe(0);
    expect(run.report).toMatchObject({ indexed: 2, failed: 0 });
    // Every entry of both sessions is stored, the huge text whole.
    expect(countRows('SELECT count(*) FROM entries WHERE session_id = ?', 'good')).toBe(3);
    expect(countRows('SELECT count(*) FROM entries WHERE session_id = ?', 'huge')).toBe(2);
    expect(countRows("SELECT max(length(text)) FROM entries WHERE session_id = 'huge'")).toBeGreaterThan(3_000_000);
    // The normal session is searchable and both projections are written.
    const result = await recallGood();
    expect(result.matches[0]?.metadata.session_id).toBe('good');
    expect(readProjection('good')).toContain('invoice total');
    const projection = readProjection('huge');
    expect(projection).toContain('[4.0 MB message; the raw archive keeps all of it]');
    expect(projection.length).toBeLessThan(20_000);
  });
});

describe('a huge prose message', () => {
  test('1.1 MB: indexed, projected and marked cut, and a second run has nothing left to do', async () => {
    writeGoodSession();
    const head = 'The deployment checklist for the orbital gateway starts here.';
    const text = `${head} ${makeProse(1_100_000)} The final line names the zirconium fallback.`;
    writeHugeSession(text);
    const first = await index();
    expect(first.code, first.stderr).toBe(0);
    expect(first.report).toMatchObject({ indexed: 2, failed: 0 });
    const projection = readProjection('huge');
    expect(projection).toMatch(/The deployment checklist for the orbital gateway starts here\. [^\n]*…" \[1\.1 MB message; the raw archive keeps all of it\]/);
    // The head and the tail are in the word index.
    for (const word of ['orbital', 'zirconium']) {
      const run = await runMoon(['recall', word, '--home', home, '--json']);
      const result = JSON.parse(run.stdout) as RecallResult;
      expect(result.matches[0]?.metadata.session_id, word).toBe('huge');
      expect(result.matches[0]?.snippet.length).toBeLessThan(2000);
    }
    const second = await index();
    expect(second.code, second.stderr).toBe(0);
    expect(second.report).toMatchObject({ indexed: 0, failed: 0 });
  });

  test('words past the indexed head and before the tail are not in the word index', async () => {
    const middle = makeProse(INDEX_HEAD_CHARS + 10_000);
    writeHugeSession(`${middle} quetzalcoatl ${makeProse(200_000)}`);
    const run = await index();
    expect(run.code, run.stderr).toBe(0);
    const recall = await runMoon(['recall', 'quetzalcoatl', '--home', home, '--json']);
    expect((JSON.parse(recall.stdout) as RecallResult).matches).toHaveLength(0);
  });
});
