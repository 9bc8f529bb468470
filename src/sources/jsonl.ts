import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import type { RawRecord } from './source.js';

export interface JsonlWarning {
  line: number;
  message: string;
}

export interface JsonlRead {
  records: RawRecord[];
  warnings: JsonlWarning[];
  /** Byte offset just past the last complete line; the next run resumes here. */
  endOffset: number;
  /** Line number of the last complete line read (0 when none). */
  endLine: number;
  /** Bytes of a trailing line without a newline, left for the next run. */
  pendingBytes: number;
}

export interface JsonlOptions {
  fromOffset?: number;
  /** Line number of the line just before fromOffset. */
  fromLine?: number;
  /** Lines longer than this are skipped with a warning naming the line. */
  maxLineBytes?: number;
  /**
   * Take an unterminated last line when it parses as a whole JSON object (default true). Otherwise it is
   * left pending: it is still being written.
   */
  acceptUnterminated?: boolean;
}

/** Read complete JSONL lines of a file from a byte offset. */
export function readJsonl(path: string, options: JsonlOptions = {}): JsonlRead {
  return parseJsonlBuffer(readFileSync(path), options);
}

/**
 * Parse complete JSONL lines from a byte offset. A partly written last line (no trailing newline) is left for
 * the next run, so a transcript that is being appended to is never read half-way through a record.
 */
export function parseJsonlBuffer(buffer: Buffer, options: JsonlOptions = {}): JsonlRead {
  const maxLineBytes = options.maxLineBytes ?? 64 * 1024 * 1024;
  const records: RawRecord[] = [];
  const warnings: JsonlWarning[] = [];
  let lineNo = options.fromLine ?? 0;
  let start = Math.min(options.fromOffset ?? 0, buffer.length);

  const emit = (from: number, to: number, end: number): void => {
    lineNo += 1;
    if (to - from > maxLineBytes) {
      warnings.push({ line: lineNo, message: `line of ${to - from} bytes exceeds the ${maxLineBytes}-byte limit; skipped` });
      return;
    }
    // A NUL byte never belongs in JSON text: the line is damaged (a crash can leave a block of zeros), not the file.
    // Searched within the line only: a search to the buffer's end made a large file's parse quadratic.
    if (buffer.subarray(from, to).includes(0)) {
      warnings.push({ line: lineNo, message: 'line holds NUL bytes (binary data, e.g. left by a crash); skipped' });
      return;
    }
    const text = buffer.toString('utf8', from, to).trim();
    if (text === '') return;
    try {
      records.push({ line: lineNo, start: from, end, value: JSON.parse(text) });
    } catch (error) {
      warnings.push({ line: lineNo, message: `malformed JSON (${(error as Error).message})` });
    }
  };

  while (start < buffer.length) {
    const newline = buffer.indexOf(0x0a, start);
    if (newline === -1) break;
    emit(start, newline, newline + 1);
    start = newline + 1;
  }

  let pendingBytes = buffer.length - start;
  if (pendingBytes > 0 && pendingBytes <= maxLineBytes && options.acceptUnterminated !== false) {
    // A cut-off JSON object never parses, so an unterminated line that parses as an object is complete; the
    // writer's newline, when it comes, reads as an empty line next run.
    const value = tryParseObject(buffer.toString('utf8', start, buffer.length));
    if (value !== undefined) {
      lineNo += 1;
      records.push({ line: lineNo, start, end: buffer.length, value });
      start = buffer.length;
      pendingBytes = 0;
    }
  }
  return { records, warnings, endOffset: start, endLine: lineNo, pendingBytes };
}

/** Records parsed for format detection: enough to get past junk or oversized first lines, never the whole file. */
export const DETECT_RECORDS = 64;
/** Lines examined for detection at most, records or not: a file of garbage is judged without reading it all. */
const DETECT_LINES = 4096;
/**
 * Lines longer than this are passed over for detection only (they are still read by the parser): one huge
 * first record must not use up the detection budget and hide the ordinary records after it.
 */
const DETECT_LINE_BYTES = 1024 * 1024;

/** Parse the first records of a file, for format detection. */
export function readHead(path: string, maxLines = 8, maxBytes = 4 * 1024 * 1024): unknown[] {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(Math.min(maxBytes, fstatSync(fd).size));
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return parseHead(buffer.subarray(0, read), maxLines);
  } finally {
    closeSync(fd);
  }
}

/**
 * The first `maxRecords` lines that parse as JSON. Bounded by record and line counts, not by bytes: a single
 * multi-megabyte line is skipped here rather than ending the search. Malformed lines, lines holding NUL bytes
 * and oversized lines say nothing about the format and are passed over. If nothing else is found, the
 * oversized lines are tried after all, so a file of only large records is still recognised.
 */
export function parseHead(buffer: Buffer, maxRecords = DETECT_RECORDS): unknown[] {
  const values: unknown[] = [];
  const large: [number, number][] = [];
  let start = 0;
  for (let lines = 0; lines < DETECT_LINES && start < buffer.length && values.length < maxRecords; lines += 1) {
    let end = buffer.indexOf(0x0a, start);
    if (end === -1) end = buffer.length;
    if (end - start > DETECT_LINE_BYTES) large.push([start, end]);
    else pushParsed(values, buffer, start, end);
    start = end + 1;
  }
  for (const [from, to] of large.slice(0, 4)) {
    if (values.length > 0) break;
    pushParsed(values, buffer, from, to);
  }
  return values;
}

function pushParsed(values: unknown[], buffer: Buffer, from: number, to: number): void {
  if (buffer.subarray(from, to).includes(0)) return;
  const trimmed = buffer.toString('utf8', from, to).trim();
  if (!trimmed) return;
  try {
    values.push(JSON.parse(trimmed));
  } catch {
    // a malformed or cut-off line says nothing about the format
  }
}

function tryParseObject(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}
