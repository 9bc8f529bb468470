import { closeSync, openSync, readSync, fstatSync } from 'node:fs';
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
  /** A trailing line without a newline that was left for the next run. */
  pendingBytes: number;
}

export interface JsonlOptions {
  fromOffset?: number;
  /** Line number of the line just before fromOffset. */
  fromLine?: number;
  /** Lines longer than this are skipped with a warning (they would otherwise hold memory hostage). */
  maxLineBytes?: number;
  /**
   * Treat an unterminated last line as complete when it parses as JSON. Used for files that will not grow
   * (snapshots of finished sessions); the indexer leaves it for the next run instead.
   */
  acceptUnterminated?: boolean;
}

const CHUNK = 1 << 20;

/**
 * Read complete JSONL lines from a byte offset. A partly written last line (no trailing newline) is left for
 * the next run, so a transcript that is being appended to is never read half-way through a record.
 */
export function readJsonl(path: string, options: JsonlOptions = {}): JsonlRead {
  const maxLineBytes = options.maxLineBytes ?? 64 * 1024 * 1024;
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const records: RawRecord[] = [];
    const warnings: JsonlWarning[] = [];
    let position = options.fromOffset ?? 0;
    let lineNo = options.fromLine ?? 0;
    let carry: Buffer[] = [];
    let carryBytes = 0;
    let lineStart = position;
    let oversized = false;
    const buffer = Buffer.allocUnsafe(CHUNK);

    const emit = (bytes: Buffer, start: number, end: number): void => {
      lineNo += 1;
      if (oversized) {
        warnings.push({ line: lineNo, message: `line longer than ${maxLineBytes} bytes skipped` });
        return;
      }
      const text = bytes.toString('utf8').trim();
      if (text === '') return;
      try {
        records.push({ line: lineNo, start, end, value: JSON.parse(text) });
      } catch (error) {
        warnings.push({ line: lineNo, message: `malformed JSON (${(error as Error).message})` });
      }
    };

    while (position < size) {
      const read = readSync(fd, buffer, 0, Math.min(CHUNK, size - position), position);
      if (read <= 0) break;
      let cursor = 0;
      while (cursor < read) {
        const newline = buffer.indexOf(0x0a, cursor);
        const stop = newline === -1 || newline >= read ? read : newline;
        const piece = buffer.subarray(cursor, stop);
        if (!oversized) {
          if (carryBytes + piece.length > maxLineBytes) {
            oversized = true;
            carry = [];
            carryBytes = 0;
          } else {
            carry.push(Buffer.from(piece));
            carryBytes += piece.length;
          }
        }
        if (stop === read) break;
        const end = position + newline + 1;
        emit(carry.length === 1 ? carry[0]! : Buffer.concat(carry), lineStart, end);
        carry = [];
        carryBytes = 0;
        oversized = false;
        lineStart = end;
        cursor = newline + 1;
      }
      position += read;
    }

    let endOffset = lineStart;
    let pendingBytes = size - lineStart;
    if (pendingBytes > 0 && options.acceptUnterminated && !oversized) {
      const text = Buffer.concat(carry).toString('utf8');
      try {
        JSON.parse(text);
        emit(Buffer.from(text), lineStart, size);
        endOffset = size;
        pendingBytes = 0;
      } catch {
        // left pending: it is either still being written or malformed; the caller decides which
      }
    }
    return { records, warnings, endOffset, endLine: lineNo, pendingBytes };
  } finally {
    closeSync(fd);
  }
}

/** Parse the first few complete lines of a file, for format detection. */
export function readHead(path: string, maxLines = 8, maxBytes = 4 * 1024 * 1024): unknown[] {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(Math.min(maxBytes, Math.max(0, fstatSync(fd).size)));
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, read).toString('utf8');
    const values: unknown[] = [];
    for (const line of text.split('\n')) {
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
  } finally {
    closeSync(fd);
  }
}
