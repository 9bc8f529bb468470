import type { Command } from 'commander';
import { toWireKeys } from '../../../index.js';
import type { CliContext } from '../context.js';
import { escapeControl, plural } from '../format.js';
import { printJson } from '../output.js';

export function registerMigrate(program: Command, context: CliContext): void {
  program
    .command('migrate')
    .description('copy this home\'s index into a PostgreSQL database, without reading transcripts again (resumable)')
    .requiredOption('--to <url>', 'the target database, postgres://user:pass@host:5432/db')
    .option('--json', 'print the report as JSON')
    .action(async (flags: { to: string; json?: boolean }) => {
      const report = await context.moon().upkeep.migrate({ to: flags.to });
      if (flags.json) return printJson(context.io, toWireKeys(report));
      const clean = (text: string): string => escapeControl(text, { oneLine: true });
      context.io.out(
        [
          `copied ${clean(report.from)} → ${clean(report.to)}`,
          `sessions: ${report.sessions} (${report.copied} copied now, ${report.skipped} already there)  entries: ${report.entries}  vectors: ${report.vectors}`,
          `file states: ${report.files}  tombstones: ${report.tombstones}  remembered failures: ${report.failures}  runs: ${report.runs}  doc sections: ${report.docs}`,
          `took ${report.durationMs} ms`,
          `to use it: set store.url in moon.toml (or MOON_DATABASE_URL) to the database; ${plural(report.sessions, 'session')} will be found there`,
        ].join('\n'),
      );
    });
}
