import type { Command } from 'commander';
import { AGENTS, type AgentInstallReport, parseAgent, parseScope } from '../../../index.js';
import type { CliContext } from '../context.js';
import { escapeControl } from '../format.js';
import { printJson } from '../output.js';

interface InstallFlags {
  dryRun?: boolean;
  scope: string;
  json?: boolean;
}

export function registerInstall(program: Command, context: CliContext): void {
  for (const action of ['install', 'uninstall'] as const) {
    program
      .command(`${action} <agent>`)
      .description(
        action === 'install'
          ? `wire moon into an agent (${AGENTS.join(', ')}): its hooks and the moon MCP server, added to the agent's own config files`
          : 'take out exactly what `moon install` added, restoring each file',
      )
      .option('--scope <scope>', 'user: the config files in your home; project: those of the current folder', 'user')
      .option('--dry-run', 'print the changes, touch nothing')
      .option('--json', 'print the report as JSON')
      .action(async (agentName: string, flags: InstallFlags) => {
        const agent = parseAgent(agentName);
        const scope = parseScope(flags.scope);
        const report = await context.moon().agents.install({ action, agent, scope, dryRun: flags.dryRun, env: context.env });
        if (flags.json) printJson(context.io, report);
        else context.io.out(formatInstall(report));
        for (const note of report.notes) context.io.err(`note: ${escapeControl(note, { oneLine: true })}`);
      });
  }
}

export function formatInstall(report: AgentInstallReport): string {
  const clean = (text: string): string => escapeControl(text, { oneLine: true });
  const lines: string[] = [];
  for (const file of report.files) {
    const path = clean(file.file);
    if (report.dryRun) {
      if (file.change === 'unchanged' || file.change === 'not installed') lines.push(`${file.change === 'unchanged' ? 'unchanged' : 'not installed'}: ${path}`);
      else if (file.diff === null) lines.push(`would change ${path} through the agent's CLI (below)`);
      else {
        lines.push(`${{ created: 'would create', edited: 'would edit', restored: 'would restore', removed: 'would remove' }[file.change]} ${path}:`);
        lines.push('', escapeControl(file.diff).trimEnd(), '');
      }
    } else {
      lines.push(`${file.change}: ${path}`);
    }
    for (const done of file.done) lines.push(`  ${clean(done)}`);
  }
  for (const command of report.commands) lines.push(`${report.dryRun ? 'would run' : command.state}: ${clean(command.command)}`);
  return lines.join('\n');
}
