import { addCount } from '../model.js';
import type { ParsedChunk } from '../sources/source.js';

/** Give a parsed chunk another session id (two files claimed the same one). */
export function renameSession(chunk: ParsedChunk, sessionId: string): ParsedChunk {
  return {
    ...chunk,
    session: { ...chunk.session, id: sessionId },
    entries: chunk.entries.map((entry) => ({ ...entry, sessionId })),
    anchors: chunk.anchors.map((anchor) => ({ ...anchor, sessionId })),
    usage: chunk.usage.map((usage) => ({ ...usage, session_id: sessionId })),
  };
}

/** Sum count maps; filtered-noise reasons are kept apart under a `filtered:` prefix. */
export function mergeCounts(
  previous: Record<string, number>,
  skipped: Record<string, number>,
  filteredByReason: Record<string, number>,
): Record<string, number> {
  const merged: Record<string, number> = { ...previous };
  const add = (key: string, value: number): void => {
    addCount(merged, key, value);
  };
  for (const [key, value] of Object.entries(skipped)) add(key, value);
  for (const [key, value] of Object.entries(filteredByReason)) add(`filtered:${key}`, value);
  return Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b)));
}
