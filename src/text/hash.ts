import { createHash } from 'node:crypto';

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** NUL bytes in the first block: with no recognisable record, the file is binary, not a transcript. */
export function looksBinary(buffer: Buffer): boolean {
  return buffer.subarray(0, 8192).includes(0);
}

/** The block judged by mostlyBinary: big enough to hold many lines of a transcript. */
const BINARY_SAMPLE_BYTES = 64 * 1024;

/**
 * Most lines of the first 64 KB hold NUL bytes: a binary file that happens to contain a transcript-like line,
 * rejected whole rather than indexed as one record and a flood of skipped lines. A transcript with one damaged
 * block has one or two such lines among many.
 */
export function mostlyBinary(buffer: Buffer): boolean {
  const sample = buffer.subarray(0, BINARY_SAMPLE_BYTES);
  if (!sample.includes(0)) return false;
  let lines = 0;
  let withNul = 0;
  let start = 0;
  while (start < sample.length) {
    let end = sample.indexOf(0x0a, start);
    if (end === -1) end = sample.length;
    lines += 1;
    const nul = sample.indexOf(0, start);
    if (nul !== -1 && nul < end) withNul += 1;
    start = end + 1;
  }
  return withNul * 2 > lines;
}
