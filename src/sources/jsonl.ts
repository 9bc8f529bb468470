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

/** Parse the first few complete lines of a file, for format detection. */
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

export function parseHead(buffer: Buffer, maxLines = 8): unknown[] {
  const values: unknown[] = [];
  for (const line of buffer.subarray(0, 4 * 1024 * 1024).toString('utf8').split('\n')) {
    if (values.length >= maxLines) break;
    const trimmed = line.trim();
    if (!trimmed) continue;
    try {
      values.push(JSON.parse(trimmed));
    } catch {
      // a malformed or cut-off line says nothing about the format
    }
  }
  return values;
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
