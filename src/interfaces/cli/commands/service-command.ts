import type { Command } from 'commander';
import { toWireKeys } from '../../../index.js';
import type { ServiceReport } from '../../../index.js';
import type { CliContext } from '../context.js';
import { escapeControl } from '../format.js';
import { printJson } from '../output.js';

interface ServiceFlags {
  dryRun?: boolean;
  json?: boolean;
}

export function registerService(program: Command, context: CliContext): void {
  const service = program.command('service').description('run `moon watch --daemon` as a service: a systemd user unit (Linux) or a launchd agent (macOS)');
  for (const action of ['install', 'uninstall'] as const) {
    service
      .command(action)
      .description(
        action === 'install'
          ? 'write the unit (or agent) file and have the service manager start it at login'
          : 'stop the service and remove the file `moon service install` wrote',
      )
      .option('--dry-run', 'print the file and the commands, touch nothing')
      .option('--json', 'print the report as JSON')
      .action(async (flags: ServiceFlags) => {
        const report = await context.moon().upkeep.service({ action, dryRun: flags.dryRun, env: context.env });
        for (const note of report.notes) context.io.err(`warning: ${escapeControl(note, { oneLine: true })}`);
        if (flags.json) printJson(context.io, toWireKeys(report));
        else context.io.out(formatService(report));
      });
  }
}

function formatService(report: ServiceReport): string {
  const clean = (text: string): string => escapeControl(text, { oneLine: true });
  const file = clean(report.file);
  if (report.fileChange === 'not installed') return `not installed: no ${file}`;
  const lines: string[] = [];
  if (report.dryRun) {
    lines.push(report.action === 'install' ? `would write ${file}:` : `would remove ${file}`);
    if (report.content !== null) lines.push('', escapeControl(report.content).trimEnd(), '');
    lines.push('would run:', ...report.commands.map((command) => `  ${clean(command.command)}`));
    return lines.join('\n');
  }
  lines.push(`${report.fileChange} ${file}`);
  for (const command of report.commands) lines.push(`${command.state}: ${clean(command.command)}`);
  return lines.join('\n');
}
