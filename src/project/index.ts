/** Public surface of project/: the v2 renderer, its input type, the v1/v2 parser and the time helpers. */
export type { SessionDoc } from './doc.js';
export {
  renderProjection,
  listToolNames,
  flattenText,
  truncateText,
  formatInlineCode,
  PROJECTION_VERSION,
  GENERAL_LIMIT,
  TOOL_RESULT_LIMIT,
  SUMMARY_LIMIT,
} from './render.js';
export { parseProjection, parseYamlValue, type ParsedProjection, type ProjectionSignal } from './parse.js';
export {
  computeTemporalMarkers,
  describeDayPart,
  describeElapsed,
  describeSessionPhase,
  MARKER_INTERVAL_MINUTES,
  type MarkerKind,
  type TemporalMarker,
} from './temporal-markers.js';
export {
  abbreviateZone,
  formatLocalIso,
  formatLocalTime,
  formatOffset,
  formatUtcIso,
  formatUtcTime,
  formatZoneLabel,
  resolveZone,
} from '../time/format.js';
