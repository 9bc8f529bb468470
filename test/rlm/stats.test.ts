import { describe, expect, it } from 'vitest';
import { formatStatistics, groupMarkerTypes, ProcessingStats } from '../../src/rlm/stats.js';

describe('ProcessingStats', () => {
  it("records a run into seed 004's ProcessingStatistics", () => {
    let now = 1_000;
    const stats = new ProcessingStats(() => now);
    stats.recordPromptProcessed(1234);
    stats.recordSegmentGenerated(48);
    for (const [type, count] of [['decision', 23], ['bug', 45], ['todo', 67], ['ref', 12], ['perf', 9]] as const) {
      for (let i = 0; i < count; i++) stats.recordMarkerExtracted(type);
    }
    for (let i = 0; i < 52; i++) stats.recordLLMCall(1000, 0.42 / 52);
    stats.setIncrementalStats({ segmentsSkipped: 35, segmentsUpdated: 8, segmentsAdded: 5, segmentsRemoved: 0, promptsAdded: 3, promptsModified: 9, promptsRemoved: 0, fullReindex: false, fullReindexReason: null });
    now = 46_200;
    const result = stats.finalize();
    expect(result).toMatchObject({
      startTime: 1_000,
      endTime: 46_200,
      duration: 45_200,
      promptsProcessed: 1234,
      segmentsGenerated: 48,
      markersExtracted: 156,
      llmCalls: { count: 52, totalTokens: 52_000, estimatedCost: 0.42, cacheHits: 0 },
      incrementalStats: { segmentsSkipped: 35, segmentsUpdated: 8, segmentsAdded: 5 },
      errors: [],
    });
    expect(stats.formatSummary()).toBe(
      [
        '[RLM Index Generator] Processing Complete',
        '─────────────────────────────────────────',
        '  Duration:           45.2s',
        '  Prompts Processed:  1,234',
        '  Segments Generated: 48',
        '  Markers Extracted:  156',
        '    - decision: 23',
        '    - bug: 45',
        '    - todo: 67',
        '    - other: 21',
        '',
        '  LLM Calls:          52',
        '  Tokens:             52,000',
        '  Estimated Cost:     $0.42',
        '',
        '  Incremental Stats:',
        '    - Skipped:  35 segments (unchanged)',
        '    - Updated:  8 segments',
        '    - Added:    5 segments',
        '',
        '  Errors: 0',
        '─────────────────────────────────────────',
      ].join('\n'),
    );
  });

  it('lists errors, a full reindex and removed segments; logs to a logger or a function', () => {
    const stats = new ProcessingStats(() => 0);
    for (let i = 0; i < 7; i++) stats.recordError('parse', new Error(`bad entry ${i}`), i === 0 ? 'p1' : undefined);
    stats.setIncrementalStats({ segmentsSkipped: 0, segmentsUpdated: 9, segmentsAdded: 1, segmentsRemoved: 2, promptsAdded: 0, promptsModified: 0, promptsRemoved: 0, fullReindex: true, fullReindexReason: '90% of segments affected (more than 50%)' });
    const text = stats.formatSummary();
    expect(text).toContain('    - Full reindex: 90% of segments affected (more than 50%)');
    expect(text).toContain('    - Removed:  2 segments');
    expect(text).toContain('  Errors: 7\n    - parse (p1): bad entry 0');
    expect(text).toContain('    - … and 2 more');
    const seen: string[] = [];
    stats.logSummary((line) => seen.push(line));
    stats.logSummary({ error: (line: string) => seen.push(line) });
    expect(seen).toEqual([text, text]);
    expect(stats.finalize().errors[0]).toEqual({ phase: 'parse', message: 'bad entry 0', promptId: 'p1' });
  });

  it('names the three most frequent marker types in priority order and folds the rest into other', () => {
    expect(groupMarkerTypes({ ref: 9, decision: 1, security: 5, custom: 7 })).toEqual([
      ['security', 5],
      ['ref', 9],
      ['custom', 7],
      ['other', 1],
    ]);
    expect(groupMarkerTypes({})).toEqual([]);
    expect(formatStatistics(new ProcessingStats(() => 0).finalize())).toContain('  Markers Extracted:  0\n\n');
  });
});
