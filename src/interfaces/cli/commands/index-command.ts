import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { escapeControl } from '../format.js';
import { createProgress, printJson } from '../output.js';

export function registerIndex(program: Command, context: CliContext): void {
  program
    .command('index')
    .description('snapshot, project and index transcripts (default: the configured source roots)')
    .argument('[paths...]', 'transcript files or folders')
    .option('--reproject', 'rewrite every projection as v2, v1 ones included')
    .option('--force', 're-read every file from the start')
    .option('--exclude-session <id>', 'never index this session (repeatable)', collect, [])
    .option('--no-embed', 'skip embedding new entries even when embed.provider is set')
    .option('--json', 'print the report as JSON')
    .action(async (paths: string[], options: { reproject?: boolean; force?: boolean; excludeSession: string[]; embed: boolean; json?: boolean }) => {
      const moon = context.moon();
      const progress = createProgress(context.io, 'indexing');
      const embedProgress = createProgress(context.io, 'embedding');
      const report = await moon.index({
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
      for (const warning of report.warnings) context.io.err(`warning: ${escapeControl(warning, { oneLine: true })}`);
      for (const error of report.errors) context.io.err(`error: ${escapeControl(error.reason, { oneLine: true })}`);
      if (options.json) {
        printJson(context.io, report);
      } else {
        context.io.out(
          [
            `files: ${report.files} (indexed ${report.indexed}, resumed ${report.resumed}, unchanged ${report.unchanged}, excluded ${report.excluded}, ${report.empty > 0 ? `empty ${report.empty} (nothing to index yet), ` : ''}failed ${report.failed})`,
            `entries: ${report.entries} written, ${report.filtered} filtered as noise`,
            `projections: ${report.projections} written to ${moon.paths.mlib}`,
            ...(report.embeddings ? [`embeddings: ${report.embeddings.embedded}/${report.embeddings.total} (${report.embeddings.model})`] : []),
            `warnings: ${report.warnings.length}; took ${report.durationMs} ms`,
          ].join('\n'),
        );
      }
      if (report.failed > 0) context.setExitCode(report.failed === report.files ? 2 : 1);
    });
}

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
