import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { MoonPaths } from '../archive/paths.js';
import { MoonError } from '../errors.js';
import type { IngestContext } from '../ingest/context.js';
import { type IndexReport, runIndex } from '../ingest/run-index.js';
import type { StoreEngine } from '../store/ports.js';
import { projectionPathFor } from '../archive/paths.js';
import { syncTombstones } from './forget.js';

/** How the engine builds a store beside the live one and swaps it in (for SQLite: files renamed). */
export interface AsideStore {
  open(path: string): StoreEngine;
  remove(path: string): void;
  /** Make the built store complete on disk (checkpoint, close). */
  seal(path: string): void;
  swap(from: string, to: string): void;
}

export interface RebuildReport {
  db: string;
  /** Raw archive files read, sessions restored, and the index run's own report. */
  files: number;
  sessions: number;
  entries: number;
  durationMs: number;
  index: IndexReport;
}

/**
 * Rebuild the index from the raw archive: a new database is built beside the old one and renamed over it
 * only once complete, so a crash or error mid-rebuild leaves the old index as it was. Sessions keep the ids the
 * ledger recorded for their raw copies (a copy of a second file that claimed an id is named `<id>~<hash>`);
 * the raw files themselves are recorded as the sessions' files, and the first `moon index` of an original
 * transcript takes its session over from its raw copy without adding a duplicate (see indexFile).
 * Vectors are not rebuilt here: the next `moon index` with an embedder configured embeds what is missing.
 * `carryOver` copies into the built index what is in no archive (long-term memories, doc records) before it is swapped in.
 */
export async function rebuildIndex(
  paths: MoonPaths,
  context: IngestContext,
  aside: AsideStore,
  closeCurrent: () => Promise<void>,
  carryOver: (built: StoreEngine) => Promise<void> = async () => undefined,
): Promise<RebuildReport> {
  if (!existsSync(paths.raw)) {
    throw new MoonError('not_found', `nothing to rebuild from: no raw archive at ${paths.raw}`, { hint: 'run `moon index` to build the index' });
  }
  const started = context.now();
  const asidePath = `${paths.db}.rebuild-${process.pid}`;
  aside.remove(asidePath);
  let report: IndexReport;
  let sessions = 0;
  let entries = 0;
  const store = aside.open(asidePath);
  try {
    await syncTombstones(store, context.ledger, (sessionId) => projectionPathFor(paths, sessionId), context.now());
    report = await runIndex(context, store, { roots: [paths.raw], force: true, sessionIds: sessionIdsByArchive(paths, context), fromArchive: true });
    // What the archive cannot give back (long-term memories, curated by people) is copied from the old index.
    if (!report.fatal) await carryOver(store);
    const stats = await store.stats.stats();
    sessions = stats.sessions;
    entries = stats.entries;
  } finally {
    await store.close();
  }
  if (report.fatal) {
    aside.remove(asidePath);
    throw new MoonError(report.fatal.code === 'io' ? 'io' : 'store', `rebuild stopped, the old index is untouched: ${report.fatal.message}`, {
      hint: report.fatal.hint ?? undefined,
    });
  }
  aside.seal(asidePath);
  await closeCurrent();
  aside.swap(asidePath, paths.db);
  return { db: paths.db, files: report.files, sessions, entries, durationMs: context.now() - started, index: report };
}

/**
 * The ledger names each raw copy's session: the copy of a second file that claimed an id is stored under
 * `<id>~<hash>`, which its content alone cannot tell. Keyed by `<source>/<file>` under archives/raw, so a
 * moved $MOON_HOME still matches. The latest record of a copy wins.
 */
function sessionIdsByArchive(paths: MoonPaths, context: IngestContext): Map<string, string> {
  const ids = new Map<string, string>();
  for (const record of context.ledger.records()) {
    const local = join(paths.raw, basename(dirname(record.archive_path)), basename(record.archive_path));
    ids.set(local, record.session_id);
  }
  return ids;
}
