import { MoonError } from '../errors.js';
import { type JsonlRead, parseHead, parseJsonlBuffer } from '../sources/jsonl.js';
import { detectSource, sourceByName } from '../sources/index.js';
import type { Source } from '../sources/source.js';
import type { IngestContext, NormalizedChunk } from './context.js';
import { looksBinary } from './hash.js';

export interface TranscriptRead {
  source: Source;
  read: JsonlRead;
  normalized: NormalizedChunk;
  /** `path:line: message` for every line that was skipped. */
  warnings: string[];
}

export interface ResumePoint {
  offset: number;
  line: number;
  carry: unknown;
  source: string;
}

/**
 * Detect, parse and normalize a transcript held in memory, from the start or from a resume point.
 * Throws MoonError('bad_input') for content that is not a transcript we know; the caller reports it per file.
 */
export function readTranscript(
  context: IngestContext,
  path: string,
  buffer: Buffer,
  resume: ResumePoint | null,
): TranscriptRead {
  if (looksBinary(buffer)) throw new MoonError('bad_input', `${path}: binary file, not a JSONL transcript`);
  const source = resume ? sourceByName(resume.source) : detectSource(parseHead(buffer));
  if (!source) {
    throw new MoonError('bad_input', `${path}: not a Claude Code, Codex or OpenClaw transcript (format not recognised)`);
  }
  const read = parseJsonlBuffer(buffer, {
    fromOffset: resume?.offset ?? 0,
    fromLine: resume?.line ?? 0,
    maxLineBytes: context.maxLineBytes,
  });
  const chunk = source.parse(read.records, { path, carry: resume?.carry ?? null });
  const normalized = context.normalize(chunk);
  const warnings = read.warnings.map((warning) => `${path}:${warning.line}: ${warning.message}`);
  return { source, read, normalized, warnings };
}
