import type { Ledger } from '../archive/ledger.js';
import type { OptOut } from './opt-out.js';
import type { MoonPaths } from '../archive/paths.js';
import type { ParsedChunk } from '../sources/source.js';
import type { IngestPool } from './pool.js';
import type { RankedTerm } from '../normalize/keywords.js';
import type { DocumentOutcome } from './commit-document.js';

/** What a failure is remembered by: a file that keeps its size and mtime is the same file. */
export function fingerprintOf(stat: { size: number; mtimeMs: number }): string {
  return `${stat.size}:${stat.mtimeMs}`;
}

export interface NormalizedChunk {
  chunk: ParsedChunk;
  filtered: number;
  filteredByReason: Record<string, number>;
}

/** Everything a file needs to go from transcript to index; built once per run by the composition root. */
export interface IngestContext {
  paths: MoonPaths;
  ledger: Ledger;
  normalize: (chunk: ParsedChunk) => NormalizedChunk;
  timezone: string;
  maxLineBytes: number;
  /** Session-level filter (seed 002): the current session is never indexed. */
  excludeSessionIds: ReadonlySet<string>;
  /** Projects the user opted out of (`sources.exclude`, `.moonignore`). */
  optOut: OptOut;
  /** The redactor, for text the index keeps about files rather than transcripts (a failed file's path). */
  redact: (text: string) => string;
  now: () => number;
  /** Worker threads for the per-file work, when the run has them (src/ingest/pool.ts); else all on this one. */
  workers?: IngestPool | null;
  /** `prepareFile` builds the entries' index documents too (IngestSettings.prepareDocuments). */
  prepareDocuments?: boolean;
}

/**
 * `empty`: the file holds no record yet (just created); it is indexed once it has content.
 * `failed-before`: an earlier run failed on this file and it has not changed since; skipped, still listed.
 */
export type FileStatus = 'indexed' | 'unchanged' | 'excluded' | 'empty' | 'error' | 'failed-before';

export interface FileOutcome {
  path: string;
  status: FileStatus;
  sessionId: string | null;
  source: string | null;
  /** Entries written by this run (new or merged). */
  entries: number;
  filtered: number;
  /** `path:line: message` for skipped lines. */
  warnings: string[];
  /** Why the file was excluded or failed. */
  reason: string | null;
  /** True when the file was read from its last committed offset rather than from the start. */
  resumed: boolean;
  /** Bytes read and parsed by this run (from the resume offset). */
  bytes: number;
  /** `size:mtimeMs` of the file as stat saw it, for remembering a failure until the file changes. */
  fingerprint: string | null;
  /** The failure comes from the file's content (not from the machine): skip the file until it changes. */
  remember: boolean;
  /** When a `failed-before` file first failed. */
  failedAtMs: number | null;
  /** The session's keyword terms, ranked at the parse, when this file's commit wrote the session from the start. */
  ranked?: RankedTerm[];
  /** A whole-file document (several sessions): what its commit wrote, kept and removed. */
  document?: DocumentOutcome;
  /** Only a piece of the file was committed (index-file.ts PIECE_BYTES): it is read on from there. */
  more?: boolean;
}

export function makeOutcome(path: string, status: FileStatus, extra: Partial<FileOutcome> = {}): FileOutcome {
  return {
    path,
    status,
    sessionId: null,
    source: null,
    entries: 0,
    filtered: 0,
    warnings: [],
    reason: null,
    resumed: false,
    bytes: 0,
    fingerprint: null,
    remember: false,
    failedAtMs: null,
    ...extra,
  };
}
