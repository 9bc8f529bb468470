import { statSync } from 'node:fs';
import { BatchAbortedError, type Store } from '../store/store.js';
import type { FileOutcome, IngestContext } from './context.js';
import { discoverFiles } from './discover.js';
import { indexFile } from './index-file.js';
import { projectStoredSession } from './project-session.js';
import { reprojectLegacy } from './reproject.js';

export interface IndexOptions {
  roots: string[];
  force?: boolean;
  /** Rewrite every projection as v2 (seed 000 §3.3), v1 ones included. */
  reproject?: boolean;
  onProgress?: (done: number, total: number, path: string) => void;
}

export interface IndexReport {
  files: number;
  indexed: number;
  unchanged: number;
  excluded: number;
  /** Files with no record yet (nothing to index; not an error). */
  empty: number;
  failed: number;
  resumed: number;
  entries: number;
  filtered: number;
  bytes: number;
  projections: number;
  sessions: string[];
  warnings: string[];
  errors: { path: string; reason: string }[];
  excludedFiles: { path: string; reason: string }[];
  durationMs: number;
}

export function runIndex(context: IngestContext, store: Store, options: IndexOptions): IndexReport {
  const startedAtMs = context.now();
  const discovery = discoverFiles(options.roots, [context.paths.home]);
  const report: IndexReport = {
    files: discovery.files.length,
    indexed: 0,
    unchanged: 0,
    excluded: 0,
    empty: 0,
    failed: 0,
    resumed: 0,
    entries: 0,
    filtered: 0,
    bytes: 0,
    projections: 0,
    sessions: [],
    warnings: [...discovery.warnings],
    errors: [],
    excludedFiles: [],
    durationMs: 0,
  };
  const touched = new Set<string>();
  let done = 0;
  // Ledger lines of pairs an earlier run committed but did not get to write (it crashed in between).
  flushLedger(context, store);
  for (const group of groupFiles(discovery.files)) {
    const outcomes = indexGroup(context, store, group, options.force ?? false);
    flushLedger(context, store);
    for (const outcome of outcomes) {
      tally(report, outcome);
      // Projections are written after their batch commits; a crash in between leaves them stale, and the
      // next run (below) finishes them.
      if (outcome.status === 'indexed' && outcome.sessionId) {
        touched.add(outcome.sessionId);
        if (projectStoredSession(context, store, outcome.sessionId)) report.projections += 1;
      }
      done += 1;
      options.onProgress?.(done, discovery.files.length, outcome.path);
    }
  }
  // A crash between a commit and its projection leaves the session stale; finish that work now.
  for (const session of store.listSessions()) {
    if ((session.projectionStale && !touched.has(session.id)) || options.reproject) {
      if (projectStoredSession(context, store, session.id)) report.projections += 1;
    }
  }
  if (options.reproject) {
    const legacy = reprojectLegacy(context);
    report.projections += legacy.rewritten;
    report.warnings.push(...legacy.warnings);
  }
  report.sessions = [...touched].sort();
  report.durationMs = context.now() - startedAtMs;
  store.recordRun({
    startedAtMs,
    finishedAtMs: context.now(),
    command: 'index',
    files: report.files,
    filesChanged: report.indexed,
    entries: report.entries,
    warnings: report.warnings.length,
    errors: report.failed,
  });
  return report;
}

/** Files per batch transaction, and the input bytes after which a batch closes early. */
const BATCH_FILES = 64;
const BATCH_BYTES = 32 * 1024 * 1024;

function groupFiles(files: string[]): string[][] {
  const groups: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const path of files) {
    const size = fileSizeOf(path);
    if (current.length > 0 && (current.length >= BATCH_FILES || bytes + size > BATCH_BYTES)) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(path);
    bytes += size;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** One transaction for the group; if a commit fails inside it, roll back and redo the group file by file. */
function indexGroup(context: IngestContext, store: Store, paths: string[], force: boolean): FileOutcome[] {
  try {
    return store.batch(() => paths.map((path) => indexFile(context, store, path, { force })));
  } catch (error) {
    if (!(error instanceof BatchAbortedError)) throw error;
    return paths.map((path) => indexFile(context, store, path, { force }));
  }
}

/**
 * Ledger lines go out only after the commit that recorded their pairs, and only for pairs no process wrote
 * before: a pair already in the ledger (written by `moon snapshot`, or before the index tracked pairs) is
 * marked without a second line.
 */
function flushLedger(context: IngestContext, store: Store): void {
  store.flushLedger((record) => {
    context.ledger.append(record);
  });
}

function fileSizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function tally(report: IndexReport, outcome: FileOutcome): void {
  report.warnings.push(...outcome.warnings);
  switch (outcome.status) {
    case 'indexed':
      report.indexed += 1;
      report.entries += outcome.entries;
      report.filtered += outcome.filtered;
      report.bytes += outcome.bytes;
      if (outcome.resumed) report.resumed += 1;
      break;
    case 'unchanged':
      report.unchanged += 1;
      break;
    case 'empty':
      report.empty += 1;
      break;
    case 'excluded':
      report.excluded += 1;
      report.excludedFiles.push({ path: outcome.path, reason: outcome.reason ?? 'excluded' });
      break;
    case 'error':
      report.failed += 1;
      report.errors.push({ path: outcome.path, reason: outcome.reason ?? 'failed' });
      break;
  }
}
