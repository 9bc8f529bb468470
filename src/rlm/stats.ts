import { MARKER_TYPES } from '../markers/extract.js';
import type { IncrementalStats, ProcessingStatistics } from './types.js';

/**
 * Processing statistics (seed 004 §8): counters recorded while a run goes, then one ProcessingStatistics with
 * seed 004's field names, and the log summary in seed 004's layout (written to stderr by the CLI).
 */
export class ProcessingStats {
  private readonly startTime: number;
  private promptsProcessed = 0;
  private segmentsGenerated = 0;
  private readonly markers: Record<string, number> = {};
  private llmCount = 0;
  private llmTokens = 0;
  private llmCost = 0;
  private cacheHits = 0;
  private incremental: IncrementalStats | undefined;
  private readonly errors: ProcessingStatistics['errors'] = [];
  private final: ProcessingStatistics | null = null;

  constructor(private readonly now: () => number = Date.now) {
    this.startTime = now();
  }

  recordPromptProcessed(count = 1): void {
    this.promptsProcessed += count;
  }

  recordSegmentGenerated(count = 1): void {
    this.segmentsGenerated += count;
  }

  recordMarkerExtracted(type: string): void {
    this.markers[type] = (this.markers[type] ?? 0) + 1;
  }

  /** One request to a model: its tokens (prompt and answer) and, when the provider reports it, its cost in USD. */
  recordLLMCall(tokens: number, costUsd = 0): void {
    this.llmCount += 1;
    this.llmTokens += tokens;
    this.llmCost += costUsd;
  }

  recordCacheHit(): void {
    this.cacheHits += 1;
  }

  recordError(phase: string, error: unknown, promptId?: string): void {
    const message = error instanceof Error ? error.message : String(error);
    this.errors.push(promptId === undefined ? { phase, message } : { phase, message, promptId });
  }

  setIncrementalStats(stats: IncrementalStats): void {
    this.incremental = stats;
  }

  get startedAt(): number {
    return this.startTime;
  }

  get llmCallCount(): number {
    return this.llmCount;
  }

  finalize(): ProcessingStatistics {
    if (this.final) return this.final;
    const endTime = this.now();
    const markersExtracted = Object.values(this.markers).reduce((sum, count) => sum + count, 0);
    this.final = {
      startTime: this.startTime,
      endTime,
      duration: endTime - this.startTime,
      promptsProcessed: this.promptsProcessed,
      segmentsGenerated: this.segmentsGenerated,
      markersExtracted,
      markersByType: { ...this.markers },
      llmCalls: { count: this.llmCount, totalTokens: this.llmTokens, estimatedCost: roundCost(this.llmCost), cacheHits: this.cacheHits },
      ...(this.incremental ? { incrementalStats: { ...this.incremental } } : {}),
      errors: [...this.errors],
    };
    return this.final;
  }

  /** Seed 004's log summary, one string. */
  formatSummary(): string {
    return formatStatistics(this.finalize());
  }

  logSummary(logger: { error(text: string): void } | ((text: string) => void)): void {
    const text = this.formatSummary();
    if (typeof logger === 'function') logger(text);
    else logger.error(text);
  }
}

const RULE = '─'.repeat(41);
const NAMED_MARKER_TYPES = 3;
const LISTED_ERRORS = 5;

/** The summary of a finished run: seed 004's layout, with tokens, removed segments and errors spelled out. */
export function formatStatistics(stats: ProcessingStatistics): string {
  const number = (value: number): string => value.toLocaleString('en-US');
  const row = (label: string, value: string): string => `  ${`${label}:`.padEnd(20)}${value}`;
  const lines = ['[RLM Index Generator] Processing Complete', RULE];
  lines.push(row('Duration', `${(stats.duration / 1000).toFixed(1)}s`));
  lines.push(row('Prompts Processed', number(stats.promptsProcessed)));
  lines.push(row('Segments Generated', number(stats.segmentsGenerated)));
  lines.push(row('Markers Extracted', number(stats.markersExtracted)));
  for (const [type, count] of groupMarkerTypes(stats.markersByType)) lines.push(`    - ${type}: ${number(count)}`);
  lines.push('');
  lines.push(row('LLM Calls', number(stats.llmCalls.count)));
  if (stats.llmCalls.cacheHits > 0) lines.push(row('Cached Answers', number(stats.llmCalls.cacheHits)));
  lines.push(row('Tokens', number(stats.llmCalls.totalTokens)));
  lines.push(row('Estimated Cost', `$${stats.llmCalls.estimatedCost.toFixed(2)}`));
  const incremental = stats.incrementalStats;
  if (incremental) {
    lines.push('');
    lines.push('  Incremental Stats:');
    if (incremental.fullReindex) lines.push(`    - Full reindex: ${incremental.fullReindexReason ?? 'recommended'}`);
    lines.push(`    - Skipped:  ${number(incremental.segmentsSkipped)} segments (unchanged)`);
    lines.push(`    - Updated:  ${number(incremental.segmentsUpdated)} segments`);
    lines.push(`    - Added:    ${number(incremental.segmentsAdded)} segments`);
    if (incremental.segmentsRemoved > 0) lines.push(`    - Removed:  ${number(incremental.segmentsRemoved)} segments`);
  }
  lines.push('');
  lines.push(`  Errors: ${number(stats.errors.length)}`);
  for (const error of stats.errors.slice(0, LISTED_ERRORS)) {
    lines.push(`    - ${error.phase}${error.promptId ? ` (${error.promptId})` : ''}: ${error.message.replace(/\s+/gu, ' ')}`);
  }
  if (stats.errors.length > LISTED_ERRORS) lines.push(`    - … and ${number(stats.errors.length - LISTED_ERRORS)} more`);
  lines.push(RULE);
  return lines.join('\n');
}

/** The three most frequent types, in priority order (seed 004's list, then others by name), and `other` for the rest. */
export function groupMarkerTypes(counts: Readonly<Record<string, number>>): Array<[string, number]> {
  const present = Object.entries(counts).filter(([, count]) => count > 0);
  const byCount = [...present].sort((a, b) => b[1] - a[1] || rankType(a[0]) - rankType(b[0]));
  const named = new Set(byCount.slice(0, NAMED_MARKER_TYPES).map(([type]) => type));
  const out = present.filter(([type]) => named.has(type)).sort((a, b) => rankType(a[0]) - rankType(b[0]) || (a[0] < b[0] ? -1 : 1));
  const other = present.filter(([type]) => !named.has(type)).reduce((sum, [, count]) => sum + count, 0);
  if (other > 0) out.push(['other', other]);
  return out;
}

function rankType(type: string): number {
  const index = (MARKER_TYPES as readonly string[]).indexOf(type);
  return index < 0 ? MARKER_TYPES.length : index;
}

function roundCost(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
