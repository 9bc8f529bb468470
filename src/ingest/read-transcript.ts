import { readFileSync } from 'node:fs';
import { MoonError } from '../errors.js';
import { type JsonlRead, parseHead, parseJsonlBuffer } from '../sources/jsonl.js';
import { DETECT_WINDOW, describeSourceLabels, detectSource, recordSourceByName } from '../sources/index.js';
import type { Source } from '../sources/source.js';
import type { IngestContext, NormalizedChunk } from './context.js';
import { looksBinary, mostlyBinary } from '../text/hash.js';

/** Line warnings reported per file; the rest are summed up in one line. */
export const MAX_LINE_WARNINGS = 20;

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
  if (!resume && mostlyBinary(buffer)) throw new MoonError('bad_input', `${path}: binary file, not a JSONL transcript`);
  // The first few records decide almost every file; more are parsed only when they fit no format.
  const source = resume ? recordSourceByName(resume.source) : (detectSource(parseHead(buffer, DETECT_WINDOW)) ?? detectSource(parseHead(buffer)));
  if (!source) {
    // NUL bytes alone do not make a file binary (a crash can zero one block of a transcript); a file with NULs
    // in which no record is recognisable does.
    if (looksBinary(buffer)) throw new MoonError('bad_input', `${path}: binary file, not a JSONL transcript`);
    throw notRecognised(path);
  }
  const read = parseJsonlBuffer(buffer, {
    fromOffset: resume?.offset ?? 0,
    fromLine: resume?.line ?? 0,
    maxLineBytes: context.maxLineBytes,
  });
  const sidecar = readSidecar(path);
  const chunk = source.parse(read.records, { path, carry: resume?.carry ?? null, sidecar: sidecar.value });
  const normalized = context.normalize(chunk);
  // A file that is mostly bad lines would otherwise report one warning per line: the first few name their
  // lines, the rest are counted.
  const warnings = read.warnings.slice(0, MAX_LINE_WARNINGS).map((warning) => `${path}:${warning.line}: ${warning.message}`);
  if (read.warnings.length > MAX_LINE_WARNINGS) {
    warnings.push(`${path}: ${read.warnings.length - MAX_LINE_WARNINGS} more lines skipped (first at line ${read.warnings[MAX_LINE_WARNINGS]!.line})`);
  }
  if (sidecar.warning) warnings.push(sidecar.warning);
  return { source, read, normalized, warnings };
}

/** A file no format of the registry recognises. */
export function notRecognised(path: string): MoonError {
  return new MoonError('bad_input', `${path}: not a ${describeSourceLabels()} transcript (format not recognised)`);
}

/** Claude Code writes a subagent's type and task beside its transcript: `subagents/agent-<id>.meta.json`. */
const SUBAGENT_TRANSCRIPT = /[\\/]subagents[\\/]agent-[^\\/]+\.jsonl$/;
/** A meta file is a few hundred bytes; anything far larger is not one. */
const SIDECAR_MAX_BYTES = 1 << 20;

interface SidecarRead {
  value: unknown;
  warning: string | null;
}

/**
 * The parsed companion file of a transcript, for the adapter to read facts from (adapters never touch the file
 * system). Missing is normal (older versions wrote none); unreadable or bad JSON is a warning, never a failure.
 */
function readSidecar(path: string): SidecarRead {
  if (!SUBAGENT_TRANSCRIPT.test(path)) return { value: undefined, warning: null };
  const metaPath = `${path.slice(0, -'.jsonl'.length)}.meta.json`;
  let text: string;
  try {
    const buffer = readFileSync(metaPath);
    if (buffer.length > SIDECAR_MAX_BYTES) return { value: undefined, warning: `${metaPath}: too large for a subagent meta file, ignored` };
    text = buffer.toString('utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { value: undefined, warning: null };
    return { value: undefined, warning: `${metaPath}: unreadable (${code ?? 'error'}), agent type and task left unknown` };
  }
  try {
    return { value: JSON.parse(text) as unknown, warning: null };
  } catch {
    return { value: undefined, warning: `${metaPath}: not valid JSON, agent type and task left unknown` };
  }
}
