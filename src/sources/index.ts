import type { SourceName } from '../model.js';
import { claudeCodeSource } from './claude-code.js';
import { codexSource } from './codex.js';
import { openclawSource } from './openclaw.js';
import { puffinSource } from './puffin.js';
import { type DocumentSource, type Source, type SourceAdapter, isDocumentSource } from './source.js';

/**
 * The registry: every format moon reads, and the only list of them. Adding a format is one adapter file (a
 * `Source` for appended JSON lines, a `DocumentSource` for a whole JSON document) and one line here; names,
 * discovery, detection, validation of `--source` and messages all follow from this list. Their detect()
 * functions are mutually exclusive by construction.
 */
export const SOURCES: readonly SourceAdapter[] = [claudeCodeSource, codexSource, openclawSource, puffinSource];

/** Every source name, in registry order: what `--source` and a session's `source` may be. */
export const SOURCE_NAMES: readonly SourceName[] = SOURCES.map((source) => source.name);

const RECORD_SOURCES: readonly Source[] = SOURCES.filter((source): source is Source => !isDocumentSource(source));
const DOCUMENT_SOURCES: readonly DocumentSource[] = SOURCES.filter(isDocumentSource);

/** Records each detector sees at once: the head a well-formed transcript starts with. */
export const DETECT_WINDOW = 8;

/**
 * The format of a JSON-lines file, judged by its first parsed records (never by its path), or null when none fits.
 * The first records decide; when they fit no format (junk or foreign records before the transcript proper), the
 * window slides along the records read, so the first recognisable one decides instead.
 */
export function detectSource(head: readonly unknown[]): Source | null {
  for (let start = 0; start === 0 || start < head.length; start += 1) {
    const window = head.slice(start, start + DETECT_WINDOW);
    const found = RECORD_SOURCES.find((source) => source.detect(window));
    if (found) return found;
  }
  return null;
}

/** The whole-file format of a parsed JSON document, judged by its content, or null. */
export function detectDocumentSource(document: unknown): DocumentSource | null {
  return DOCUMENT_SOURCES.find((source) => source.detect(document)) ?? null;
}

/** The whole-file formats, for reading a document too large to parse whole (each streams it its own way). */
export function listDocumentSources(): readonly DocumentSource[] {
  return DOCUMENT_SOURCES;
}

export function sourceByName(name: string): SourceAdapter | null {
  return SOURCES.find((source) => source.name === name) ?? null;
}

/** The JSON-lines format of this name (a resumed read, a usage reading), or null. */
export function recordSourceByName(name: string): Source | null {
  return RECORD_SOURCES.find((source) => source.name === name) ?? null;
}

/** Whether discovery lists a file of this name: some format is kept in files named so. */
export function isSourceFileName(path: string): boolean {
  return SOURCES.some((source) => source.fileName.test(path));
}

/** "Claude Code, Codex, OpenClaw or Puffin": the formats, for messages. */
export function describeSourceLabels(): string {
  const labels = SOURCES.map((source) => source.label);
  return labels.length < 2 ? (labels[0] ?? '') : `${labels.slice(0, -1).join(', ')} or ${labels[labels.length - 1]}`;
}

export { claudeCodeSource, codexSource, openclawSource, puffinSource };
