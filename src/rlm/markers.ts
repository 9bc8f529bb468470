import type { HistoryOutline } from './outline.js';
import type { IndexMarker } from './types.js';

/**
 * Every `@/` marker of a history's prompts and responses (found when the history was outlined), in history order
 * — branch by branch in display order, a prompt's before its response's — each with the segment holding it.
 */
export function collectHistoryMarkers(history: HistoryOutline, segmentOf: ReadonlyMap<string, string>): IndexMarker[] {
  const markers: IndexMarker[] = [];
  for (const branch of history.branches) {
    for (const prompt of branch.prompts) {
      if (prompt.markers === null) continue;
      const segmentId = segmentOf.get(prompt.id);
      if (segmentId === undefined) continue;
      for (const marker of prompt.markers) {
        markers.push({
          type: marker.type,
          content: marker.content,
          promptId: prompt.id,
          sourceField: marker.sourceField,
          importance: marker.importance,
          segmentId,
          lineNumber: marker.lineNumber,
          context: marker.context,
        });
      }
    }
  }
  return markers;
}

/** Markers counted by type. */
export function countMarkersByType(markers: readonly Pick<IndexMarker, 'type'>[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const marker of markers) counts[marker.type] = (counts[marker.type] ?? 0) + 1;
  return counts;
}
