import type { Entry } from '../model.js';
import { type EntryMarker, extractEntryMarkers } from '../markers/entry-markers.js';
import type { MarkerConfig } from '../markers/extract.js';
import { MAX_MARKER_PRIORITY } from '../markers/extract.js';
import type { MarkerField, StoredMarker } from '../markers/types.js';

/** A marker as both engines store it: one row per marker, keyed by its entry's row and its place in the entry. */
export interface MarkerRow {
  entry_rowid: number | string;
  ordinal: number | string;
  session_id: string;
  entry_id: string;
  seq: number | string;
  ts: number | string | null;
  project: string | null;
  type: string;
  content: string;
  priority: number | string;
  source_field: string;
  line: number | string;
  context_before: string;
  context_after: string;
}

/** The rows of one entry's markers (none for most entries: the `@/` test is all they cost). */
export function buildMarkerRows(rowid: number, entry: Entry, project: string | null, config: MarkerConfig): MarkerRow[] {
  return extractEntryMarkers(entry, config).map((marker: EntryMarker) => ({
    entry_rowid: rowid,
    ordinal: marker.ordinal,
    session_id: entry.sessionId,
    entry_id: entry.id,
    seq: entry.seq,
    ts: entry.ts,
    project,
    type: marker.type,
    content: marker.content,
    priority: marker.priority,
    source_field: marker.field,
    line: marker.lineNumber,
    context_before: marker.context.before,
    context_after: marker.context.after,
  }));
}

export function toStoredMarker(row: MarkerRow): StoredMarker {
  const priority = Number(row.priority);
  return {
    type: row.type,
    content: row.content,
    priority,
    importance: Math.min(1, Math.max(0, priority / MAX_MARKER_PRIORITY)),
    sessionId: row.session_id,
    entryId: row.entry_id,
    sourceField: row.source_field as MarkerField,
    line: Number(row.line),
    context: { before: row.context_before, after: row.context_after },
    ts: row.ts === null ? null : Number(row.ts),
    project: row.project === '' ? null : row.project,
  };
}

/** The columns in insert order (both engines). */
export const MARKER_COLUMNS = [
  'entry_rowid',
  'ordinal',
  'session_id',
  'entry_id',
  'seq',
  'ts',
  'project',
  'type',
  'content',
  'priority',
  'source_field',
  'line',
  'context_before',
  'context_after',
] as const;

/** Order of every list: newest first (entries without a time last), then session, entry and place in it. */
export const MARKER_ORDER = '(ts IS NULL), ts DESC, session_id, seq DESC, ordinal';

/** The meta key holding the fingerprint (markers/entry-markers.ts) the stored markers were derived with. */
export const MARKER_META_KEY = 'marker_rules';
