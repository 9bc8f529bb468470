import { DEFAULT_MARKER_CONFIG, type MarkerConfig, type MarkerPattern } from './extract.js';

/** The `markers` section of moon.toml, as config.ts has checked it. */
export interface MarkerSettings {
  /** Keep seed 004's nine types beside the custom ones. */
  defaults: boolean;
  patterns: readonly MarkerPattern[];
  context_lines: number;
}

/**
 * The extractor's config from the settings: the default types (unless turned off), then the custom ones — a
 * custom type named like a default replaces it, so one type never yields two markers for one line.
 */
export function resolveMarkerConfig(settings: MarkerSettings): MarkerConfig {
  const custom = new Set(settings.patterns.map((entry) => entry.type));
  const defaults = settings.defaults ? DEFAULT_MARKER_CONFIG.patterns.filter((entry) => !custom.has(entry.type)) : [];
  return {
    patterns: [...defaults, ...settings.patterns.map(({ type, pattern, priority }) => ({ type, pattern, priority }))],
    contextLines: settings.context_lines,
  };
}

/** The marker types a config knows, in its order: what `--marker` accepts. */
export function listMarkerTypes(config: MarkerConfig): string[] {
  return [...new Set(config.patterns.map((entry) => entry.type))];
}
