/**
 * Markers as the index keeps them: one row per `@/type: text` found in an entry, with where it was found and
 * the lines around it. A marker is derived from its entry's stored (cleaned, redacted) text, so it holds nothing
 * the entry does not.
 */

/** Which side of the conversation a marker was written on: a person's prompt, or the agent's side (replies, tool output). */
export type MarkerField = 'prompt' | 'response';

export interface StoredMarker {
  type: string;
  content: string;
  /** 1–10, the type's configured priority. */
  priority: number;
  /** priority / 10, in [0, 1]. */
  importance: number;
  sessionId: string;
  /** The entry's own id (recall's `message_ids`). */
  entryId: string;
  sourceField: MarkerField;
  /** 1-based line of the marker within the text it was found in. */
  line: number;
  context: { before: string; after: string };
  /** The entry's time (epoch ms), or null when the transcript gave none. */
  ts: number | null;
  project: string | null;
}

/** Which markers a list or count returns; every criterion narrows the others. */
export interface MarkerQuery {
  /** Any of these types (none: every type). */
  types?: readonly string[];
  /** Only these sessions (a project scope, or sessions named). None: every session. */
  sessionIds?: readonly string[];
  /** At or after (epoch ms). */
  sinceMs?: number;
  /** Before (epoch ms). */
  untilMs?: number;
  /** Words every marker's text must hold (case-insensitive substrings). */
  words?: readonly string[];
  /** Most markers returned, newest first. */
  limit: number;
}

/** What re-deriving markers did: nothing when they were derived with the current patterns. */
export interface MarkerSync {
  rederived: boolean;
  /** Markers stored after the sync. */
  markers: number;
}
