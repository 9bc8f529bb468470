import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Entry, Role } from '../../src/model.js';
import type { StoreEngine } from '../../src/store/ports.js';
import type { LexicalQuery } from '../../src/store/types.js';
import { ALL_ENGINES, type OpenedEngine, registerServerStop, selectedEngines } from './engines.js';
import { fileCommit, storedSession, turn } from './fixtures.js';

/**
 * Postings of moon's own on every engine: after the same writes, every engine's word lists are the same rows with
 * the same scores in the same order, on a corpus large enough for common words to span many blocks of postings,
 * written in several transactions that each append to those blocks. (test/store/postings.test.ts checks SQLite's
 * against FTS5's own ranking after re-indexing, dropping and forgetting too; across engines those writes are left
 * out here: SQLite's FTS5 keeps counting a deleted row in BM25's N and average length — contentless tables cannot
 * subtract what they do not store — while PostgreSQL counts the rows there are. docs/benchmarks.md, issue 33.)
 */
registerServerStop();

const WORDS = ['error', 'test', 'deploy', 'deploying', 'config', 'build', 'cache', 'timeout', 'queue', 'retry', 'flaky', 'webhook', 'invoice', 'postgres', 'zstd', 'quokka'];

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function makeText(next: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.min(WORDS.length - 1, Math.floor(WORDS.length * next() ** 3))]!).join(' ');
}

function sessionOf(index: number) {
  const project = ['shop', 'blog'][index % 2]!;
  return storedSession({ id: `p${index}`, source: 'claude-code', project, cwd: `/home/dev/${project}`, startMs: index * 100_000, endMs: index * 100_000 + 90_000 });
}

function makeTurns(next: () => number, session: number, from: number, count: number): Entry[] {
  const roles: Role[] = ['user', 'assistant'];
  return Array.from({ length: count }, (_, offset) => {
    const n = from + offset;
    const tool = next() < 0.2;
    return turn(`p${session}`, n, {
      ts: session * 100_000 + n * 10,
      role: tool ? 'assistant' : roles[n % 2]!,
      text: makeText(next, 1 + Math.floor(next() * 10)),
      ...(tool ? { tool: 'Bash', target: `npm run ${WORDS[Math.floor(next() * 6)]}` } : {}),
    });
  });
}

async function write(engine: StoreEngine): Promise<void> {
  const next = random(17);
  const sessions = Array.from({ length: 16 }, (_, index) => sessionOf(index));
  // Each transaction appends to the blocks the ones before it wrote.
  for (let from = 0; from < sessions.length; from += 4) {
    await engine.ingest.transaction(async (tx) => {
      for (const index of [from, from + 1, from + 2, from + 3]) await tx.commitFile(fileCommit(sessions[index]!, makeTurns(next, index, 1, 90)));
    });
  }
}

function queries(): LexicalQuery[] {
  const next = random(23);
  const pick = () => WORDS[Math.floor(WORDS.length * next() ** 2)]!;
  const cut = (word: string) => word.slice(0, Math.max(3, word.length - 2));
  // Some terms are phrases of several words ("npm-run", "flaky.test": the engine's full-text index scores them),
  // some queries look their terms up as prefixes ("deplo" finds "deploy" and "deploying").
  const term = (index: number) => (index % 3 === 1 ? `${pick()}-${pick()}` : index % 6 === 2 ? 'npm run' : pick());
  return Array.from({ length: 48 }, (_, index) => ({
    any: Array.from({ length: 1 + Math.floor(next() * 4) }, (_, at) => (at === 0 ? term(index) : pick())).map((word) => (index % 9 === 8 ? cut(word) : word)),
    all: index % 7 === 3 ? [pick()] : [],
    none: index % 7 === 4 ? [index % 2 ? pick() : `${pick()} ${pick()}`] : [],
    ...(index % 9 === 8 ? { prefix: true } : {}),
    filters: index % 5 === 1 ? { projects: ['shop'] } : index % 5 === 2 ? { roles: ['user'] } : {},
    limit: [1, 5, 20, 200][index % 4]!,
    context: index % 3 !== 0,
    every: index % 11 === 5,
  }));
}

describe('postings: every engine ranks the same word lists after the same writes', () => {
  const opened: { name: string; engine: OpenedEngine }[] = [];
  beforeAll(async () => {
    for (const factory of selectedEngines()) {
      const engine = await factory.open();
      opened.push({ name: factory.name, engine });
      await write(engine.engine);
    }
  }, 240_000);
  afterAll(async () => {
    for (const { engine } of opened) await engine.cleanup();
  });

  test.skipIf(selectedEngines().length < ALL_ENGINES.length)('the same rows, scores and order', async () => {
    let compared = 0;
    for (const query of queries()) {
      const lists = await Promise.all(opened.map(({ engine }) => engine.engine.search.searchLexical(query)));
      const shapes = lists.map((list) => list.map((candidate) => `${candidate.entry.id}:${candidate.score}`));
      for (const shape of shapes.slice(1)) expect(shape, JSON.stringify(query)).toEqual(shapes[0]);
      compared += shapes[0]!.length;
    }
    expect(compared).toBeGreaterThan(1000);
  });
});
