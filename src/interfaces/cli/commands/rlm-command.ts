import type { Command } from 'commander';
import type { HistoryQueryResult, RlmPhase } from '../../../index.js';
import { MoonError } from '../../../errors.js';
import type { CliContext } from '../context.js';
import { escapeControl, plural } from '../format.js';
import { createProgress, printJson } from '../output.js';
import { parseCount, parsePositive } from './numbers.js';

interface IndexFlags {
  history?: string;
  out?: string;
  incremental?: boolean;
  maxSegmentTokens?: string;
  segmentOverlap?: string;
  json?: boolean;
}

interface QueryFlags {
  index?: string;
  marker?: string;
  topic?: string;
  limit?: string;
  history?: string;
  json?: boolean;
}

const PHASE_LABELS: Record<RlmPhase, string> = {
  read: 'reading the history',
  hash: 'hashing prompts',
  tokens: 'counting tokens',
  segment: 'segmenting',
  summarize: 'summarising segments',
  write: 'writing the index',
};

/** `moon rlm index` and `moon rlm query`: the RLM history index of a Puffin history (seed 004). */
export function registerRlm(program: Command, context: CliContext): void {
  const rlm = program.command('rlm').description('the RLM history index of a Puffin history: build it, search it');
  rlm
    .command('index')
    .description('build (or --incremental: update) the history index of a Puffin .puffin/history.json')
    .requiredOption('--history <path>', 'the Puffin history file (.puffin/history.json)')
    .requiredOption('--out <path>', 'the index file to write (an existing one must be a valid index)')
    .option('--incremental', 'regenerate only the segments whose prompts changed (a full reindex when more than half did)')
    .option('--max-segment-tokens <n>', 'tokens per segment at most (default 50000)')
    .option('--segment-overlap <n>', 'tokens of earlier turns given as context when a conversation is split (default 2000)')
    .option('--json', 'print the run’s ProcessingStatistics as JSON')
    .action(async (flags: IndexFlags) => {
      let drawn: { phase: RlmPhase; bar: ReturnType<typeof createProgress> } | null = null;
      const onProgress = context.io.isTTY
        ? (phase: RlmPhase, done: number, total: number): void => {
            if (drawn?.phase !== phase) {
              drawn?.bar.finish();
              drawn = { phase, bar: createProgress(context.io, PHASE_LABELS[phase]) };
            }
            drawn.bar(done, total);
          }
        : undefined;
      let report;
      try {
        report = await context.moon().memory.rlmIndex({
          historyPath: flags.history!,
          outputPath: flags.out!,
          incremental: flags.incremental ?? false,
          maxTokensPerSegment: flags.maxSegmentTokens === undefined ? undefined : parsePositive('--max-segment-tokens', flags.maxSegmentTokens),
          segmentOverlap: flags.segmentOverlap === undefined ? undefined : parseCount('--segment-overlap', flags.segmentOverlap),
          onProgress,
        });
      } finally {
        (drawn as { bar: ReturnType<typeof createProgress> } | null)?.bar.finish();
      }
      context.io.err(report.summary);
      if (flags.json) return printJson(context.io, report.stats);
      const stats = report.stats;
      context.io.out(
        `${escapeControl(report.outputPath, { oneLine: true })}: ${plural(stats.segmentsGenerated, 'segment')}, ${plural(stats.markersExtracted, 'marker')}, ${plural(stats.promptsProcessed, 'prompt')}`,
      );
    });

  rlm
    .command('query')
    .description('search a history index: ranked segments from the index, then excerpts of the matching prompts from the history')
    .argument('[query...]', 'words to look for (optional with --marker or --topic)')
    .requiredOption('--index <path>', 'the history index (written by moon rlm index)')
    .option('--marker <type>', 'only segments holding @/ markers of this type (decision, bug, todo, …)')
    .option('--topic <topic>', 'only segments tagged with this topic')
    .option('--limit <n>', 'segments at most (default 5, at most 50)')
    .option('--history <path>', 'the history to drill into (default: the one the index was built from)')
    .option('--json', 'print {query, segments, prompts, notes, …} as JSON')
    .action(async (words: string[], flags: QueryFlags) => {
      const query = words.join(' ').trim();
      if (query === '' && !flags.marker && !flags.topic) throw new MoonError('bad_usage', 'give a query, --marker TYPE or --topic TOPIC', { hint: 'moon rlm query "wal mode" --index PATH' });
      const moon = context.moon();
      const result = await moon.memory.rlmQuery({
        query,
        indexPath: flags.index!,
        marker: flags.marker,
        topic: flags.topic,
        limit: flags.limit === undefined ? undefined : parsePositive('--limit', flags.limit),
        historyPath: flags.history,
      });
      const safe = await moon.agents.makeSafe(result);
      if (flags.json) return printJson(context.io, safe);
      for (const note of safe.notes) context.io.err(`moon: ${escapeControl(note, { oneLine: true })}`);
      context.io.out(renderQuery(safe));
    });
}

function renderQuery(result: HistoryQueryResult): string {
  const clean = (text: string): string => escapeControl(text, { oneLine: true });
  const what = [result.query ? `"${clean(result.query)}"` : '', result.filters.marker ? `@/${clean(result.filters.marker)}` : '', result.filters.topic ? `topic ${clean(result.filters.topic)}` : '']
    .filter(Boolean)
    .join(', ');
  const lines = [`${result.segments.length} of ${plural(result.totals.segments, 'segment')} for ${what}`];
  result.segments.forEach((segment, position) => {
    lines.push('');
    lines.push(
      `${position + 1}. ${clean(segment.id)}  [${clean(segment.branchId)} · ${segment.startTime.slice(0, 10)} → ${segment.endTime.slice(0, 10)} · ${plural(segment.promptCount, 'prompt')} · importance ${segment.importanceScore.toFixed(2)} · score ${segment.score.toFixed(2)}]`,
    );
    lines.push(`   ${clean(segment.summary)}`);
    const tags = [segment.topics.length > 0 ? `topics: ${segment.topics.map(clean).join(', ')}` : '', segment.keyEntities.length > 0 ? `entities: ${segment.keyEntities.slice(0, 6).map(clean).join(', ')}` : '']
      .filter(Boolean)
      .join(' · ');
    if (tags) lines.push(`   ${tags}`);
    for (const marker of segment.markers) lines.push(`   @/${clean(marker.type)}: ${clean(marker.content)}  (${clean(marker.promptId)}, ${marker.sourceField})`);
    for (const prompt of result.prompts.filter((item) => item.segmentId === segment.id)) {
      lines.push(`   ▸ ${clean(prompt.id)} (${prompt.time.slice(0, 16).replace('T', ' ')})${prompt.title ? ` ${clean(prompt.title)}` : ''}`);
      for (const excerpt of prompt.excerpts) lines.push(`     ${excerpt.field}: ${clean(excerpt.text)}`);
    }
  });
  return lines.join('\n');
}
