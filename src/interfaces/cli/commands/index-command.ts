import type { Command } from 'commander';
import { MoonError } from '../../../errors.js';
import { type FatalError, describeFatal, emptyReport, lowerPriority, toWireKeys } from '../../../index.js';
import type { IndexResult } from '../../../moon.js';
import type { CliContext } from '../context.js';
import { escapeControl } from '../format.js';
import { createProgress, printJson } from '../output.js';

interface IndexFlags {
  reproject?: boolean;
  force?: boolean;
  excludeSession: string[];
  embed: boolean;
  json?: boolean;
}

export function registerIndex(program: Command, context: CliContext): void {
  program
    .command('index')
    .description('snapshot, project and index transcripts (default: the configured source roots)')
    .argument('[paths...]', 'transcript files or folders')
    .option('--reproject', 'rewrite every projection as v2, v1 ones included')
    .option('--force', 're-read every file from the start (and retry files that failed before)')
    .option('--exclude-session <id>', 'never index this session (repeatable)', collect, [])
    .option('--no-embed', 'skip embedding new entries even when embed.provider is set')
    .option('--json', 'print the report as JSON')
    .action(async (paths: string[], options: IndexFlags) => {
      lowerPriority();
      let report: IndexResult;
      try {
        report = await runIndexCommand(context, paths, options);
      } catch (error) {
        // The JSON report is printed on every exit: a caller parsing stdout always gets one, with the error in it.
        if (options.json) printJson(context.io, toWireKeys({ ...emptyReport(), embeddings: null, fatal: describeFatal(error) }));
        throw error;
      }
      const clean = (text: string): string => escapeControl(text, { oneLine: true });
      for (const warning of report.warnings) context.io.err(`warning: ${clean(warning)}`);
      for (const error of report.errors) context.io.err(`error: ${clean(error.reason)}`);
      if (options.json) printJson(context.io, toWireKeys(report));
      else context.io.out(formatIndexReport(report, context.moon().paths.mlib));
      if (report.fatal) throw fatalError(report.fatal);
      if (report.failed > 0) context.setExitCode(report.failed === report.files ? 2 : 1);
      if (report.projectionsFailed > 0) context.setExitCode(1);
    });
}

async function runIndexCommand(context: CliContext, paths: string[], options: IndexFlags): Promise<IndexResult> {
  const moon = context.moon();
  const progress = createProgress(context.io, 'indexing');
  const embedProgress = createProgress(context.io, 'embedding');
  const report = await moon.history.index({
    roots: paths,
    force: options.force,
    reproject: options.reproject,
    excludeSessions: options.excludeSession,
    noEmbed: !options.embed,
    onProgress: (done, total) => progress(done, total),
    onEmbedProgress: ({ embedded, total }) => embedProgress(embedded, total),
  });
  progress.finish();
  if (report.embeddings) embedProgress.finish();
  return report;
}

export function formatIndexReport(report: IndexResult, mlib: string): string {
  const clean = (text: string): string => escapeControl(text, { oneLine: true });
  const failedBefore = report.failedBefore > 0 ? `, failed before and unchanged ${report.failedBefore}` : '';
  return [
    `files: ${report.files} (indexed ${report.indexed}, resumed ${report.resumed}, unchanged ${report.unchanged}, excluded ${report.excluded}, ${report.empty > 0 ? `empty ${report.empty} (nothing to index yet), ` : ''}failed ${report.failed}${failedBefore})`,
    `entries: ${report.entries} written, ${report.filtered} filtered as noise`,
    `projections: ${report.projections} written to ${clean(mlib)}${report.projectionsFailed > 0 ? `, ${report.projectionsFailed} failed` : ''}`,
    ...(report.embeddings ? [`embeddings: ${report.embeddings.embedded}/${report.embeddings.total} (${clean(report.embeddings.model)})`] : []),
    ...report.knownFailures.map((failure) => `skipped (failed before, unchanged since): ${clean(failure.path)}`),
    `warnings: ${report.warnings.length}; took ${report.durationMs} ms${report.gaveWayMs > 0 ? ` (${report.gaveWayMs} ms of it giving way to the agent)` : ''}`,
    ...(report.fatal ? [`stopped: ${clean(report.fatal.message)}`] : []),
  ].join('\n');
}

/** The run's fatal error, thrown again so main prints it on stderr and exits with its code. */
function fatalError(fatal: FatalError): MoonError {
  const code = fatal.code as ConstructorParameters<typeof MoonError>[0];
  return new MoonError(code, fatal.message, { hint: fatal.hint ?? undefined });
}

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
