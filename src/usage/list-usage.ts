import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { describeError, errnoOf, isMoonError } from '../errors.js';
import { discoverFiles } from '../ingest/discover.js';
import type { SessionUsageSnapshot, SourceName } from '../model.js';
import { DETECT_WINDOW, describeSourceLabels, detectSource, recordSourceByName, SOURCES } from '../sources/index.js';
import { parseHead, readHead } from '../sources/jsonl.js';
import { type UsageLevel, type UsageThresholds, classifyUsage } from './classify.js';
import { HEAD_BYTES, readTranscriptUsage } from './read-session-usage.js';

/** One transcript's usage as `moon usage` reports it. */
export interface UsageLine {
  path: string;
  source: SourceName;
  sessionId: string;
  /** Null when the transcript records no usage. */
  snapshot: SessionUsageSnapshot | null;
  level: UsageLevel | null;
}

export interface UsageReport {
  sessions: UsageLine[];
  /** Files that could not be read or are no transcript moon knows. */
  errors: { path: string; reason: string }[];
  warnings: string[];
}

export interface ListUsageInput {
  /** Files or folders (every `*.jsonl` below a folder). */
  roots: readonly string[];
  /** Folders never entered (moon's own home: its raw archive holds copies). */
  skip: readonly string[];
  /** Only files modified at or after this time (epoch ms); null: every file. */
  modifiedSinceMs: number | null;
  nowMs: number;
  thresholds: UsageThresholds;
}

/** The usage of every transcript under the roots, in path order, each classified against the thresholds. */
export function listSessionUsage(input: ListUsageInput): UsageReport {
  // Only the files of formats that record context usage (JSON lines); a Puffin history states none.
  const discovery = discoverFiles(input.roots, input.skip, isUsageFileName);
  const report: UsageReport = { sessions: [], errors: [], warnings: [...discovery.warnings] };
  for (const path of discovery.files) {
    try {
      if (input.modifiedSinceMs !== null && statSync(path).mtimeMs < input.modifiedSinceMs) continue;
      const source = detectFileSource(path);
      if (source === null) {
        report.errors.push({ path, reason: `${path}: not a ${describeSourceLabels()} transcript (format not recognised)` });
        continue;
      }
      const { sessionId, snapshot } = readTranscriptUsage(path, source, input.nowMs);
      report.sessions.push({ path, source, sessionId, snapshot, level: snapshot ? classifyUsage(snapshot, input.thresholds) : null });
    } catch (error) {
      const reason = isMoonError(error) ? error.message : `${path}: cannot read (${errnoOf(error) ?? describeError(error)})`;
      report.errors.push({ path, reason });
    }
  }
  return report;
}

function isUsageFileName(path: string): boolean {
  return SOURCES.some((source) => recordSourceByName(source.name)?.fileName.test(path) === true);
}

/** The format of a transcript, judged by its first records as indexing judges it; null when none fits. */
export function detectFileSource(path: string): SourceName | null {
  const fd = openSync(path, 'r');
  let head: Buffer;
  try {
    const buffer = Buffer.allocUnsafe(HEAD_BYTES);
    head = buffer.subarray(0, readSync(fd, buffer, 0, HEAD_BYTES, 0));
  } finally {
    closeSync(fd);
  }
  const source = detectSource(parseHead(head, DETECT_WINDOW)) ?? detectSource(parseHead(head));
  // A transcript whose first lines are huge is judged on a longer head, as indexing does.
  return (source ?? detectSource(readHead(path, DETECT_WINDOW)))?.name ?? null;
}
