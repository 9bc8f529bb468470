import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { StoreEngine } from '../../src/store/ports.js';
import { mergeEntriesByKey } from '../../src/ingest/project-session.js';
import { rankSessionTerms } from '../../src/normalize/keywords.js';
import type { Candidate, FileCommit } from '../../src/store/types.js';
import { listFixtureCommits, withoutDocuments } from '../helpers/prepared.js';
import { type OpenedEngine, describeEachEngine } from './engines.js';
import { lexical } from './fixtures.js';

/**
 * A commit may carry its entries' index documents, prepared beside the parse (an ingest worker). Every engine
 * must index such a commit exactly as one without them: the same matches with the same scores for words,
 * phrases, prefixes and substrings — for whole transcripts, and for transcripts committed in two halves where
 * the second merges into rows of the first (there the prepared document no longer fits and must not be used).
 */
const home = mkdtempSync(join(tmpdir(), 'moon-prepared-contract-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const QUERIES: { any: string[]; prefix?: boolean; trigram?: boolean }[] = [
  { any: ['error'] },
  { any: ['test', 'file'] },
  { any: ['continued'] },
  { any: ['read', 'write', 'edit'] },
  { any: ['session'], prefix: true },
  { any: ['comp'], prefix: true },
  { any: ['src/'], trigram: true },
  { any: ['.ts'], trigram: true },
  { any: ['json'], trigram: true },
  { any: ['.md'], trigram: true },
  { any: ['npm', 'git'], trigram: true },
];

/** Matches by what they are (session and entry key), not by row id, which differs between two stores. */
function describeMatches(candidates: Candidate[]): string[] {
  return candidates.map((candidate) => `${candidate.entry.sessionId} ${candidate.entry.key} ${candidate.score.toFixed(9)}`).sort();
}

async function commitAll(engine: StoreEngine, files: FileCommit[][], strip: boolean): Promise<void> {
  for (const commits of files) {
    for (const commit of commits) {
      await engine.ingest.transaction(async (tx) => {
        await tx.commitFile(strip ? withoutDocuments(commit) : commit);
      });
    }
  }
}

describeEachEngine('prepared index documents', (factory) => {
  for (const halves of [false, true]) {
    describe(`halves: ${halves}`, () => {
      let prepared: OpenedEngine;
      let plain: OpenedEngine;
      let files: FileCommit[][];
      beforeAll(async () => {
        files = listFixtureCommits(join(home, 'home'), halves);
        expect(files.length).toBeGreaterThan(10);
        prepared = await factory.open();
        plain = await factory.open();
        await commitAll(prepared.engine, files, false);
        await commitAll(plain.engine, files, true);
      }, 120_000);
      afterAll(async () => {
        await prepared?.cleanup();
        await plain?.cleanup();
      });

      test.each(QUERIES.map((query) => [query.any.join(' ') + (query.prefix ? ' (prefix)' : '') + (query.trigram ? ' (substring)' : ''), query] as const))(
        '%s',
        async (_title, query) => {
          const search = (engine: StoreEngine): Promise<Candidate[]> => {
            const asked = lexical(query.any, { limit: 1000, ...(query.prefix ? { prefix: true } : {}) });
            return query.trigram ? engine.search.searchTrigram(asked) : engine.search.searchLexical(asked);
          };
          const [withDocuments, withoutThem] = [await search(prepared.engine), await search(plain.engine)];
          expect(withDocuments.length).toBeGreaterThan(0);
          expect(describeMatches(withDocuments)).toEqual(describeMatches(withoutThem));
        },
      );

      if (!halves) {
        // A session written from the start has its keyword terms ranked at the parse, from the file's entries
        // merged in memory (index-file.ts): every engine must read back exactly those entries.
        test('a session written from the start reads back as its entries merged in memory', async () => {
          for (const [commit] of files) {
            const merged = mergeEntriesByKey(commit!.entries, commit!.results);
            const stored = await plain.engine.ingest.listEntries(commit!.session!.id);
            expect(stored).toEqual(merged);
            expect(rankSessionTerms(stored)).toEqual(rankSessionTerms(merged));
          }
        });
      }
    });
  }
});
