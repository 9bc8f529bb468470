import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export interface TailScanOptions {
  /** Bytes read from the end first (default 256 KiB); each further read reaches `growth` times as far back. */
  initialBytes?: number;
  growth?: number;
  /** A line longer than this is passed over unread (default 64 MiB). */
  maxLineBytes?: number;
  /** Only lines holding one of these byte strings are parsed (e.g. `"usage"`): the rest cannot matter. */
  mustContain?: readonly string[];
}

export interface TailScan {
  /** Bytes read from the file. */
  bytesRead: number;
  /** True when the scan went back to the first line. */
  reachedStart: boolean;
}

/** What the visitor says after a record: stop now, or go on to the next older one. */
export type TailVisit = 'stop' | 'continue';

export const DEFAULT_TAIL_BYTES = 256 * 1024;
const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * Parsed JSONL records of a file, newest first, reading from the end: the last `initialBytes`, then further back
 * only while `readFurther()` says the records read so far were not enough. A big transcript whose usage sits in
 * its last turns costs one small read. Lines that do not parse (a half-written last line, junk) and lines holding
 * NUL bytes are skipped, so the record before them is visited instead.
 */
export function scanRecordsBackward(
  path: string,
  visit: (record: unknown) => TailVisit,
  readFurther: () => boolean,
  options: TailScanOptions = {},
): TailScan {
  const growth = Math.max(2, options.growth ?? 4);
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const needles = (options.mustContain ?? []).map((text) => Buffer.from(text, 'utf8'));
  const fd = openSync(path, 'r');
  let bytesRead = 0;
  try {
    let end = fstatSync(fd).size;
    let window = Math.max(1, options.initialBytes ?? DEFAULT_TAIL_BYTES);
    /** The start of the line that runs into the region already read: prepended to by the next read. */
    let carry: Buffer = Buffer.alloc(0);
    /** Inside a line longer than maxLineBytes: everything up to its start is dropped. */
    let overlong = false;
    while (end > 0) {
      const start = Math.max(0, end - window);
      const chunk = readRange(fd, start, end);
      bytesRead += chunk.length;
      let buffer: Buffer;
      if (overlong) {
        const newline = chunk.lastIndexOf(NEWLINE);
        if (newline === -1) {
          end = start;
          window *= growth;
          continue;
        }
        buffer = chunk.subarray(0, newline + 1);
        overlong = false;
      } else {
        buffer = carry.length > 0 ? Buffer.concat([chunk, carry]) : chunk;
      }
      carry = Buffer.alloc(0);
      let from = 0;
      if (start > 0) {
        // Bytes before the first newline belong to a line that began before this read.
        const newline = buffer.indexOf(NEWLINE);
        const head = newline === -1 ? buffer : buffer.subarray(0, newline);
        if (head.length > maxLineBytes) overlong = true;
        else carry = Buffer.from(head);
        if (newline === -1) {
          end = start;
          window *= growth;
          continue;
        }
        from = newline + 1;
      }
      if (visitLines(buffer, from, visit, needles, maxLineBytes) === 'stop') return { bytesRead, reachedStart: start === 0 };
      if (start === 0 || !readFurther()) return { bytesRead, reachedStart: start === 0 };
      end = start;
      window *= growth;
    }
    return { bytesRead, reachedStart: true };
  } finally {
    closeSync(fd);
  }
}

function readRange(fd: number, start: number, end: number): Buffer {
  const buffer = Buffer.allocUnsafe(end - start);
  let filled = 0;
  while (filled < buffer.length) {
    const read = readSync(fd, buffer, filled, buffer.length - filled, start + filled);
    if (read === 0) break;
    filled += read;
  }
  return buffer.subarray(0, filled);
}

/** The complete lines of buffer[from..], last first. */
function visitLines(
  buffer: Buffer,
  from: number,
  visit: (record: unknown) => TailVisit,
  needles: readonly Buffer[],
  maxLineBytes: number,
): TailVisit {
  let lineEnd = buffer.length;
  while (lineEnd > from) {
    const newline = buffer.lastIndexOf(NEWLINE, lineEnd - 1);
    const lineStart = newline < from ? from : newline + 1;
    const line = buffer.subarray(lineStart, lineEnd);
    lineEnd = newline < from ? from : newline;
    if (line.length === 0 || line.length > maxLineBytes) continue;
    if (needles.length > 0 && !needles.some((needle) => line.includes(needle))) continue;
    if (line.includes(0)) continue;
    const value = parseLine(line);
    if (value !== undefined && visit(value) === 'stop') return 'stop';
  }
  return 'continue';
}

function parseLine(line: Buffer): unknown {
  const text = line.toString('utf8').trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
