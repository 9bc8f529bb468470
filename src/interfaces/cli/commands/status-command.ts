import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { formatBytes, printJson } from '../output.js';

export function registerStatus(program: Command, context: CliContext): void {
  program
    .command('status')
    .description('sessions, entries, sizes, per-source counts and the last run')
    .option('--json', 'print as JSON')
    .action((options: { json?: boolean }) => {
      const status = context.moon().status();
      if (options.json) return printJson(context.io, status);
      const lines = [
        `home: ${status.home}`,
        `index: ${status.db} (${formatBytes(status.dbBytes)})`,
        `sessions: ${status.sessions}  entries: ${status.entries}  files: ${status.files}  compaction anchors: ${status.anchors}`,
        ...Object.entries(status.bySource).map(([source, counts]) => `  ${source}: ${counts.sessions} sessions, ${counts.entries} entries`),
        `embeddings: ${status.embeddingModel ? `${status.embeddings}/${status.entries} entries (${status.embeddingModel.id})` : 'off'}`,
        `source roots (read when moon index gets no PATH): ${status.sourceRoots.length > 0 ? status.sourceRoots.join(', ') : '(none found)'}`,
        `time zone: ${status.timezone}`,
        status.lastRun
          ? `last run: ${status.lastRun.command} at ${new Date(status.lastRun.finishedAtMs).toISOString()} — ${status.lastRun.files} files, ${status.lastRun.filesChanged} changed, ${status.lastRun.entries} entries, ${status.lastRun.warnings} warnings, ${status.lastRun.errors} errors`
          : 'last run: never',
      ];
      context.io.out(lines.join('\n'));
    });
}
