import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MoonError, errnoOf } from '../errors.js';
import type { SessionUsageSnapshot, SourceName } from '../model.js';
import { parseJsonlBuffer } from '../sources/jsonl.js';
import type { RawRecord } from '../sources/source.js';
import { createClaudeCodeCollector } from './claude-code-usage.js';
import { createCodexCollector } from './codex-usage.js';
import type { UsageCollector } from './collector.js';
import { createOpenClawCollector, findOpenClawSessionEntry, mergeOpenClawEntry } from './openclaw-usage.js';
import { DEFAULT_PROVIDERS, readSessionFacts } from './session-facts.js';
import { composeSnapshot } from './snapshot.js';
import { type TailScan, type TailScanOptions, scanRecordsBackward } from './tail.js';

/** Bytes of a transcript's start read for its session id, provider and first model. */
export const HEAD_BYTES = 64 * 1024;
/** A `sessions.json` larger than this is not read (the gateway's store is kilobytes). */
const SESSION_STORE_MAX_BYTES = 32 * 1024 * 1024;

export interface ReadUsageOptions extends Pick<TailScanOptions, 'initialBytes' | 'growth' | 'maxLineBytes'> {
  /** Told how much of the file the tail scan read (tests check a big file is not read whole). */
  onScan?: (scan: TailScan) => void;
}

/**
 * The session's context usage now, from the transcript's own usage fields (see each format's collector), or null
 * when it has none. Reads the first 64 KiB (session id, provider) and the tail: the last 256 KiB, further back
 * only while no usage has been found. OpenClaw transcripts also take the window (and, lacking a usage line, the
 * count) from the gateway's `sessions.json` beside them. An unreadable file is MoonError('unreadable').
 */
export function readSessionUsage(path: string, source: SourceName, nowMs: number, options: ReadUsageOptions = {}): SessionUsageSnapshot | null {
  return readTranscriptUsage(path, source, nowMs, options).snapshot;
}

/** readSessionUsage, with the id of the session even when the transcript records no usage. */
export function readTranscriptUsage(
  path: string,
  source: SourceName,
  nowMs: number,
  options: ReadUsageOptions = {},
): { sessionId: string; snapshot: SessionUsageSnapshot | null } {
  try {
    const facts = readSessionFacts(source, path, readHeadRecords(path));
    const collector = createCollector(source);
    // A format that records no usage (a Puffin history) has no snapshot to read.
    if (collector === null) return { sessionId: facts.sessionId, snapshot: null };
    const scan = scanRecordsBackward(path, (record) => collector.visit(record), () => collector.wantsMore(), {
      ...options,
      mustContain: collector.mustContain,
    });
    options.onScan?.(scan);
    let reading = collector.result();
    if (source === 'openclaw') reading = mergeOpenClawEntry(reading, findOpenClawSessionEntry(readSessionStore(path), facts.sessionId));
    const snapshot = reading
      ? composeSnapshot(facts.sessionId, { ...reading, model: reading.model ?? facts.model, provider: reading.provider ?? facts.provider }, nowMs, DEFAULT_PROVIDERS[source] ?? 'unknown')
      : null;
    return { sessionId: facts.sessionId, snapshot };
  } catch (error) {
    if (error instanceof MoonError) throw error;
    throw new MoonError('unreadable', `${path}: cannot read (${errnoOf(error) ?? (error as Error).message})`, { cause: error });
  }
}

/** The usage reader of each format whose transcripts state their context usage; null for the others. */
function createCollector(source: SourceName): UsageCollector | null {
  switch (source) {
    case 'claude-code':
      return createClaudeCodeCollector();
    case 'codex':
      return createCodexCollector();
    case 'openclaw':
      return createOpenClawCollector();
    default:
      return null;
  }
}

function readHeadRecords(path: string): RawRecord[] {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(HEAD_BYTES);
    const read = readSync(fd, buffer, 0, HEAD_BYTES, 0);
    return parseJsonlBuffer(buffer.subarray(0, read)).records;
  } finally {
    closeSync(fd);
  }
}

/** OpenClaw's `sessions.json` in the transcript's folder, parsed; undefined when there is none or it is unreadable. */
function readSessionStore(transcriptPath: string): unknown {
  const path = join(dirname(transcriptPath), 'sessions.json');
  try {
    if (!existsSync(path) || statSync(path).size > SESSION_STORE_MAX_BYTES) return undefined;
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    // The gateway rewrites the file as it runs: a torn or missing copy is the same as none.
    return undefined;
  }
}
