/**
 * `@/` semantic markers (seed 004 §2): a line such as `@/decision: use WAL mode` written by a person or an agent
 * in any transcript. One rule here finds them everywhere — Puffin histories, Claude Code, Codex, OpenClaw — with
 * the lines around each for context and the type's priority for ranking.
 */
export const MARKER_TYPES = ['decision', 'breaking', 'security', 'bug', 'api', 'pattern', 'perf', 'todo', 'ref'] as const;
export type DefaultMarkerType = (typeof MARKER_TYPES)[number];

export interface MarkerPattern {
  /** Lower-case word: what `--marker TYPE` filters on. */
  type: string;
  /** A regular expression source whose first capture group is the marker's text. */
  pattern: string;
  /** 1–10: how much a marker of this type matters (seed 004's defaults: decision and breaking 10 … ref 3). */
  priority: number;
}

export interface MarkerConfig {
  patterns: readonly MarkerPattern[];
  /** Lines of context kept before and after a marker (seed 004: 2–3). */
  contextLines: number;
}

const DEFAULT_PRIORITY: Record<DefaultMarkerType, number> = {
  decision: 10,
  breaking: 10,
  security: 9,
  bug: 8,
  api: 7,
  pattern: 6,
  perf: 5,
  todo: 4,
  ref: 3,
};

export const MAX_MARKER_PRIORITY = 10;

/** The pattern of a `@/type: text` marker; the text runs to the end of its line. */
export function markerPatternFor(type: string): string {
  return `@\\/${type}:[ \\t]*(\\S[^\\n]*)`;
}

export const DEFAULT_MARKER_CONFIG: MarkerConfig = {
  patterns: MARKER_TYPES.map((type) => ({ type, pattern: markerPatternFor(type), priority: DEFAULT_PRIORITY[type] })),
  contextLines: 2,
};

export interface ExtractedMarker {
  type: string;
  content: string;
  /** 1-based line of the marker in its text. */
  lineNumber: number;
  priority: number;
  /** Importance in [0, 1]: priority / 10. */
  importance: number;
  context: { before: string; after: string };
}

interface CompiledPattern {
  type: string;
  regex: RegExp;
  priority: number;
}

interface CompiledConfig {
  patterns: CompiledPattern[];
  /** Every pattern names `@/` literally: a text without it holds no marker (the cheap test). */
  needsMarkerTag: boolean;
}

const compiled = new WeakMap<MarkerConfig, CompiledConfig>();

function compile(config: MarkerConfig): CompiledConfig {
  let found = compiled.get(config);
  if (!found) {
    found = {
      patterns: config.patterns.map((entry) => ({ type: entry.type, regex: new RegExp(entry.pattern, 'gi'), priority: entry.priority })),
      needsMarkerTag: requiredMarkerText(config) !== null,
    };
    compiled.set(config, found);
  }
  return found;
}

/**
 * Text every marker of these patterns holds — `@/` when every pattern names it, as the defaults do — so a text
 * without it needs no search; null when a pattern could match anywhere.
 */
export function requiredMarkerText(config: MarkerConfig): string | null {
  return config.patterns.every((entry) => entry.pattern.includes('@\\/') || entry.pattern.includes('@/')) ? '@/' : null;
}

/**
 * The regular expression's capture groups, or an error message when it does not compile (with the flags the
 * extractor uses): what a configured pattern is checked against when the config is loaded.
 */
export function checkMarkerPattern(pattern: string): { groups: number } | { error: string } {
  try {
    new RegExp(pattern, 'gi');
    return { groups: new RegExp(`(?:${pattern})|`, 'i').exec('')!.length - 1 };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/**
 * Markers in a text, in order of position. When every pattern names `@/` (the defaults do), the cheap test for
 * it keeps marker-free texts — nearly all — fast.
 */
export function extractMarkers(text: string, config: MarkerConfig = DEFAULT_MARKER_CONFIG): ExtractedMarker[] {
  const { patterns, needsMarkerTag } = compile(config);
  if (patterns.length === 0 || (needsMarkerTag && !text.includes('@/'))) return [];
  const found: Array<ExtractedMarker & { index: number }> = [];
  let lines: string[] | null = null;
  let lineStarts: number[] | null = null;
  for (const { type, regex, priority } of patterns) {
    regex.lastIndex = 0;
    for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
      if (match[0].length === 0) {
        regex.lastIndex += 1;
        continue;
      }
      const content = (match[1] ?? match[0]).trim();
      if (content.length === 0) continue;
      lines ??= text.split('\n');
      lineStarts ??= startsOf(lines);
      const line = lineOf(lineStarts, match.index);
      const before = lines.slice(Math.max(0, line - config.contextLines), line).join('\n');
      const after = lines.slice(line + 1, line + 1 + config.contextLines).join('\n');
      found.push({
        type,
        content,
        lineNumber: line + 1,
        priority,
        importance: Math.min(1, Math.max(0, priority / MAX_MARKER_PRIORITY)),
        context: { before, after },
        index: match.index,
      });
    }
  }
  found.sort((a, b) => a.index - b.index);
  return found.map(({ index: _index, ...marker }) => marker);
}

function startsOf(lines: readonly string[]): number[] {
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  return starts;
}

function lineOf(starts: readonly number[], index: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= index) low = mid;
    else high = mid - 1;
  }
  return low;
}
