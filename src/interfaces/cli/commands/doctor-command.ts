import type { Command } from 'commander';
import { resolveHome } from '../../../config.js';
import { isMoonError } from '../../../errors.js';
import { type DoctorReport, diagnose } from '../../../index.js';
import type { CliContext } from '../context.js';
import { escapeControl, plural } from '../format.js';
import { printJson } from '../output.js';

export function registerDoctor(program: Command, context: CliContext): void {
  program
    .command('doctor')
    .description('check this installation and say how to fix what is wrong (exit 1 when something is)')
    .option('--json', 'print the checks as JSON')
    .action(async (flags: { json?: boolean }, command: Command) => {
      let report: DoctorReport;
      try {
        report = await context.moon().agents.doctor({ env: context.env });
      } catch (error) {
        // A configuration that does not load is one of the problems to report, not a reason to stop checking.
        if (!isMoonError(error) || error.code !== 'bad_config') throw error;
        const home = resolveHome(context.env, (command.optsWithGlobals() as { home?: string }).home);
        report = await diagnose({ env: context.env, home, configError: { message: error.message, hint: error.hint } });
      }
      if (flags.json) printJson(context.io, report);
      else context.io.out(formatDoctor(report));
      if (!report.ok) context.setExitCode(1);
    });
}

const LABELS = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' } as const;

export function formatDoctor(report: DoctorReport): string {
  const clean = (text: string): string => escapeControl(text, { oneLine: true });
  const width = Math.max(...report.checks.map((check) => check.id.length));
  const lines = report.checks.flatMap((check) => [
    `${LABELS[check.status]}  ${check.id.padEnd(width)}  ${clean(check.detail)}`,
    ...(check.fix ? [`${' '.repeat(width + 8)}fix: ${clean(check.fix)}`] : []),
  ]);
  const summary = report.problems === 0 && report.warnings === 0 ? 'no problems found' : `${plural(report.problems, 'problem')}, ${plural(report.warnings, 'warning')}`;
  return [...lines, '', summary].join('\n');
}
