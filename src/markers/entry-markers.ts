import { createHash } from 'node:crypto';
import type { Entry } from '../model.js';
import { MARKERS_PER_ENTRY, MARKER_CONTENT_CHARS, MARKER_CONTEXT_CHARS, selectIndexedText, sliceHead, sliceTail } from '../text/limits.js';
import { type ExtractedMarker, type MarkerConfig, extractMarkers } from './extract.js';
import type { MarkerField } from './types.js';

/**
 * Which texts of an entry markers are read from, and the caps on what is kept. A person's message is the
 * prompt; the agent's reply and a tool's output are the response. A tool's input (the command, the file it
 * writes), the model's reasoning, a harness recap and system text are not read: a marker is something written
 * down in the conversation, and a file being written with `@/todo` in it is not one — its output when read back is.
 */
export interface EntryMarker extends ExtractedMarker {
  field: MarkerField;
  /** Position among the entry's markers (0-based): the row's key beside the entry. */
  ordinal: number;
}

/** Bump when the rules above change: every stored marker is derived again (MarkerPort.sync). */
const MARKER_RULES_VERSION = 1;

export function selectMarkerTexts(entry: Pick<Entry, 'role' | 'kind' | 'text' | 'result'>): { field: MarkerField; text: string }[] {
  switch (entry.role) {
    case 'user':
      return [{ field: 'prompt', text: entry.text }];
    case 'assistant':
      return entry.kind === null ? [{ field: 'response', text: entry.text }] : [];
    case 'tool':
      return entry.result ? [{ field: 'response', text: entry.result }] : [];
    default:
      return [];
  }
}

/**
 * An entry's markers, in order. Each text is read as far as the index holds it (text/limits.ts
 * selectIndexedText), so a marker is found exactly where the entry's words are; text and context are capped.
 */
export function extractEntryMarkers(entry: Pick<Entry, 'role' | 'kind' | 'text' | 'result'>, config: MarkerConfig): EntryMarker[] {
  const markers: EntryMarker[] = [];
  for (const { field, text } of selectMarkerTexts(entry)) {
    for (const marker of extractMarkers(selectIndexedText(text), config)) {
      if (markers.length >= MARKERS_PER_ENTRY) return markers;
      markers.push({
        ...marker,
        content: sliceHead(marker.content, MARKER_CONTENT_CHARS),
        context: { before: sliceTail(marker.context.before, MARKER_CONTEXT_CHARS), after: sliceHead(marker.context.after, MARKER_CONTEXT_CHARS) },
        field,
        ordinal: markers.length,
      });
    }
  }
  return markers;
}

/** What stored markers were derived with: the rules above and the patterns. Another value means derive them again. */
export function fingerprintMarkerConfig(config: MarkerConfig): string {
  const described = JSON.stringify({ rules: MARKER_RULES_VERSION, contextLines: config.contextLines, patterns: config.patterns.map(({ type, pattern, priority }) => [type, pattern, priority]) });
  return `markers-v${MARKER_RULES_VERSION}:${createHash('sha256').update(described).digest('hex').slice(0, 32)}`;
}
