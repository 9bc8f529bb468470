import { DEFAULT_MARKER_CONFIG, extractMarkers, type MarkerConfig } from '../markers/extract.js';
import type { ParsedHistory } from '../sources/puffin-history.js';
import type { IndexMarker } from './types.js';

/** Every `@/` marker of a history's prompts and responses, in history order, each with the segment holding it. */
export function collectHistoryMarkers(history: ParsedHistory, segmentOf: ReadonlyMap<string, string>, config: MarkerConfig = DEFAULT_MARKER_CONFIG): IndexMarker[] {
  const markers: IndexMarker[] = [];
  for (const branch of history.branches) {
    for (const prompt of branch.prompts) {
      const segmentId = segmentOf.get(prompt.id);
      if (segmentId === undefined) continue;
      const fields: Array<['prompt' | 'response', string]> = [['prompt', prompt.content]];
      if (prompt.response) fields.push(['response', prompt.response.content]);
      for (const [sourceField, text] of fields) {
        for (const marker of extractMarkers(text, config)) {
          markers.push({
            type: marker.type,
            content: marker.content,
            promptId: prompt.id,
            sourceField,
            importance: marker.importance,
            segmentId,
            lineNumber: marker.lineNumber,
            context: marker.context,
          });
        }
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
