import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { prepareFile } from '../../src/ingest/index-file.js';
import { createIngestContext } from '../../src/ingest/settings.js';
import { prepareDocuments } from '../../src/store/index-document.js';
import type { FileCommit, StoredSession } from '../../src/store/types.js';
import { REPO } from './cli.js';

/**
 * Commits of every real and synthetic transcript under test/fixtures and examples, parsed the way `moon index`
 * prepares them (prepareFile), each with the index documents prepared beside the parse. With `halves`, each
 * file is committed in two parts, the second repeating the first's last entry under its key with more text (a
 * streamed message split across two reads), so it merges into a stored row.
 */
export function listFixtureCommits(home: string, halves: boolean): FileCommit[][] {
  const context = createIngestContext({
    home,
    redact: { enabled: true, extraPatterns: [] },
    minMessageChars: 0,
    timezone: 'UTC',
    maxLineBytes: 8 * 1024 * 1024,
    exclude: [],
    excludeSessionIds: [],
    prepareDocuments: true,
  });
  return FIXTURES.map((path) => commitsOf(context, path, halves)).filter((commits) => commits.length > 0);
}

function commitsOf(context: ReturnType<typeof createIngestContext>, path: string, halves: boolean): FileCommit[] {
  const prepared = prepareFile(context, path, null, {});
  if (prepared.kind !== 'read') return [];
  const { chunk } = prepared.transcript.normalized;
  if (chunk.fork || chunk.entries.length === 0) return [];
  const session: StoredSession = {
    ...chunk.session,
    entryCount: 0,
    filteredNoiseCount: 0,
    skipped: {},
    archivePath: null,
    projectionPath: null,
    contentHash: null,
    projectionStale: true,
  };
  const file = { path, sessionId: session.id, source: chunk.session.source, size: 1, mtimeMs: 1, prefixHash: '', contentHash: '', offset: 1, line: 1, carry: null, excluded: null, indexedAtMs: 1 };
  const base = { file, session, anchors: chunk.anchors, usage: [] };
  if (!halves) return [{ ...base, reset: true, entries: chunk.entries, results: chunk.results, documents: prepared.transcript.documents! }];
  const middle = Math.floor(chunk.entries.length / 2);
  const first = chunk.entries.slice(0, middle + 1);
  const second = [...chunk.entries.slice(middle, middle + 1).map((entry) => ({ ...entry, text: `${entry.text} continued` })), ...chunk.entries.slice(middle + 1)];
  return [
    { ...base, reset: true, entries: first, results: [], documents: prepareDocuments(first, []) },
    { ...base, reset: false, entries: second, results: chunk.results, documents: prepareDocuments(second, chunk.results) },
  ];
}

function listFixtures(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return listFixtures(path);
      return name.endsWith('.jsonl') ? [path] : [];
    });
}

const FIXTURES = [...listFixtures(join(REPO, 'test', 'fixtures')), ...listFixtures(join(REPO, 'examples'))];

/** A commit as a writer without prepared documents sends it. */
export function withoutDocuments(commit: FileCommit): FileCommit {
  const { documents: _documents, ...plain } = commit;
  return plain;
}
