import type { Command } from 'commander';
import { toWireKeys } from '../../../index.js';
import type { CliContext } from '../context.js';
import { escapeControl } from '../format.js';
import { printJson } from '../output.js';
import { collect } from './index-command.js';

export function registerSnapshot(program: Command, context: CliContext): void {
  program
    .command('snapshot')
    .description('copy raw transcripts to the archive, append the ledger and write v2 projections (no indexing)')
    .argument('[paths...]', 'transcript files or folders')
    .option('--exclude-session <id>', 'skip this session (repeatable)', collect, [])
    .option('--json', 'print the report as JSON')
    .action(async (paths: string[], options: { excludeSession: string[]; json?: boolean }) => {
      const report = await context.moon().history.snapshot({ roots: paths, excludeSessions: options.excludeSession });
      for (const warning of report.warnings) context.io.err(`warning: ${escapeControl(warning, { oneLine: true })}`);
      for (const error of report.errors) context.io.err(`error: ${escapeControl(error.reason, { oneLine: true })}`);
      if (options.json) printJson(context.io, toWireKeys(report));
      else {
        const clean = (text: string): string => escapeControl(text, { oneLine: true });
        for (const item of report.archived) context.io.out(`${clean(item.sessionId)}\t${clean(item.archivePath)}\t${clean(item.projectionPath)}`);
        context.io.out(`archived ${report.archived.length} of ${report.files} files (${report.excluded.length} excluded, ${report.errors.length} failed)`);
      }
      if (report.errors.length > 0) context.setExitCode(report.errors.length === report.files ? 2 : 1);
    });
}
