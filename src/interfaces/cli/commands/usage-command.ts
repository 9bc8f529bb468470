import type { Command } from 'commander';
import { toWireKeys } from '../../../index.js';
import type { UsageLine, UsageReport } from '../../../index.js';
import type { CliContext } from '../context.js';
import { escapeControl, plural } from '../format.js';
import { printJson } from '../output.js';

export function registerUsage(program: Command, context: CliContext): void {
  program
    .command('usage')
    .description('context usage of sessions from their transcripts’ own usage fields (default: transcripts modified in the last 24 h)')
    .argument('[paths...]', 'transcript files or folders (default: the source roots)')
    .option('--json', 'print the sessions as JSON')
    .action(async (paths: string[], options: { json?: boolean }) => {
      const report = await context.moon().upkeep.usage({ paths });
      for (const warning of report.warnings) context.io.err(`warning: ${escapeControl(warning, { oneLine: true })}`);
      for (const error of report.errors) context.io.err(`error: ${escapeControl(error.reason, { oneLine: true })}`);
      if (options.json) printJson(context.io, toWireKeys(report.sessions));
      else context.io.out(formatUsage(report, paths.length > 0));
      if (report.errors.length > 0) context.setExitCode(report.sessions.length === 0 ? 2 : 1);
    });
}

/** `<session> | <source> | 152,318 / 200,000 tokens (76.2%) | compaction | <model> | <path>`, one line per session. */
export function formatUsage(report: UsageReport, named: boolean): string {
  if (report.sessions.length === 0) return named ? 'No transcripts.' : 'No transcripts modified in the last 24 hours.';
  const lines = report.sessions.map((line) => describeLine(line).map((field) => escapeControl(field, { oneLine: true })).join(' | '));
  return `${lines.join('\n')}\n\n${plural(report.sessions.length, 'session')}`;
}

function describeLine(line: UsageLine): string[] {
  const snapshot = line.snapshot;
  if (!snapshot) return [line.sessionId, line.source, 'no usage recorded', '-', '-', line.path];
  const tokens = `${formatCount(snapshot.used_tokens)} / ${formatCount(snapshot.max_tokens)} tokens (${(snapshot.usage_ratio * 100).toFixed(1)}%)`;
  return [snapshot.session_id, line.source, tokens, line.level ?? '-', snapshot.model ?? '-', line.path];
}

function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}
