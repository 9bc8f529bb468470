import type { Command } from 'commander';
import { toWireKeys } from '../../../index.js';
import { MoonError } from '../../../errors.js';
import type { CliContext } from '../context.js';
import { escapeControl, plural } from '../format.js';
import { printJson } from '../output.js';

export function registerVerify(program: Command, context: CliContext): void {
  program
    .command('verify')
    .description('check the index (SQLite quick_check) and that the raw archive, ledger and index agree')
    .option('--json', 'print the report as JSON')
    .action(async (options: { json?: boolean }) => {
      const report = await context.moon().upkeep.verify();
      const clean = (text: string): string => escapeControl(text, { oneLine: true });
      if (options.json) printJson(context.io, toWireKeys(report));
      else if (report.ok) {
        context.io.out(`ok: ${clean(report.db)} — ${plural(report.checked.sessions, 'session')}, ${plural(report.checked.ledgerPairs, 'ledger record')}, integrity ok`);
      } else {
        context.io.out(report.problems.map((problem) => `${clean(problem.path)}: ${clean(problem.problem)}\n  → ${clean(problem.repair)}`).join('\n'));
      }
      if (!report.ok) {
        const rebuild = report.problems.some((problem) => problem.repair.includes('moon rebuild'));
        // Printed on stderr too, so a script that only checks the exit code still has a message to show.
        throw new MoonError(report.checked.integrity === 'ok' ? 'store' : 'corrupt', `verify found ${plural(report.problems.length, 'problem')} in ${escapeControl(context.moon().paths.home, { oneLine: true })}`, {
          hint: rebuild ? 'run `moon rebuild` to rebuild the index from the raw archive' : undefined,
        });
      }
    });
}

export function registerRebuild(program: Command, context: CliContext): void {
  program
    .command('rebuild')
    .description('rebuild the index from the raw archive (built aside, then swapped in)')
    .option('--json', 'print the report as JSON')
    .action(async (options: { json?: boolean }) => {
      const report = await context.moon().upkeep.rebuild();
      const clean = (text: string): string => escapeControl(text, { oneLine: true });
      for (const warning of report.index.warnings) context.io.err(`warning: ${clean(warning)}`);
      for (const error of report.index.errors) context.io.err(`error: ${clean(error.reason)}`);
      if (options.json) return printJson(context.io, toWireKeys(report));
      context.io.out(
        [
          `rebuilt ${clean(report.db)} from ${plural(report.files, 'raw archive file')}: ${plural(report.sessions, 'session')}, ${plural(report.entries, 'entry', 'entries')} in ${report.durationMs} ms`,
          ...(report.index.failed > 0 ? [`${plural(report.index.failed, 'file')} could not be read (listed above)`] : []),
          'vectors are not rebuilt: the next `moon index` embeds what is missing when embed.provider is set',
        ].join('\n'),
      );
      if (report.index.failed > 0) context.setExitCode(1);
    });
}
