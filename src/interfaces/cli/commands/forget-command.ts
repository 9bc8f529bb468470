import type { Command } from 'commander';
import { toWireKeys } from '../../../index.js';
import type { CliContext } from '../context.js';
import { escapeControl, plural } from '../format.js';
import { printJson } from '../output.js';

interface ForgetFlags {
  project?: string;
  before?: string;
  dryRun?: boolean;
  json?: boolean;
}

export function registerForget(program: Command, context: CliContext): void {
  program
    .command('forget')
    .description('take sessions back: remove them from the index and the archive, and keep them out of later runs')
    .argument('[session...]', 'session ids to forget, or unique prefixes of 8 characters or more')
    .option('--project <name>', 'every session of a project (a name, or with a / part of the cwd)')
    .option('--before <when>', 'every session that ended before this time: ISO date or date-time, or words like "last month"')
    .option('--dry-run', 'list what would be forgotten, change nothing')
    .option('--json', 'print the report as JSON')
    .action(async (sessions: string[], flags: ForgetFlags) => {
      const report = await context.moon().upkeep.forget({ sessions, project: flags.project, before: flags.before, dryRun: flags.dryRun });
      const clean = (text: string): string => escapeControl(text, { oneLine: true });
      // A named id no indexed session has is tombstoned all the same, but the run did not do what was asked of it.
      if (report.unknown.length > 0) {
        context.setExitCode(2);
        context.io.err(
          `moon: no indexed session has the id ${report.unknown.map(clean).join(', ')}: ${report.dryRun ? 'it would be tombstoned' : 'tombstoned'} so no later index adds it, nothing else done for it`,
        );
      }
      if (flags.json) return printJson(context.io, toWireKeys(report));
      const verb = report.dryRun ? 'would forget' : 'forgot';
      const lines = report.forgotten.map((session) => `${verb} ${clean(session.id)}${session.project ? ` (${clean(session.project)})` : ''}`);
      if (report.unknown.length > 0) {
        lines.push(`not in this index, ${report.dryRun ? 'would be tombstoned' : 'tombstoned'}: ${report.unknown.map(clean).join(', ')}`);
      }
      lines.push(
        report.dryRun
          ? `${plural(report.forgotten.length, 'session')} would be forgotten; run again without --dry-run to do it`
          : `${plural(report.forgotten.length, 'session')} forgotten, ${plural(report.removedFiles.length, 'file')} removed; tombstones keep them out of later runs`,
      );
      for (const skipped of report.skippedFiles) lines.push(`not removed: ${clean(skipped.path)} (${clean(skipped.reason)})`);
      context.io.out(lines.join('\n'));
    });
}
