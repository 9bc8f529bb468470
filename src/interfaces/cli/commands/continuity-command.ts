import type { Command } from 'commander';
import { MoonError } from '../../../index.js';
import type { CliContext } from '../context.js';
import { escapeControl } from '../format.js';
import { printJson } from '../output.js';

export function registerContinuity(program: Command, context: CliContext): void {
  program
    .command('continuity')
    .description('write the ContinuityMap that carries a session’s archive, daily memory and decisions into the next one')
    .requiredOption('--from <session>', 'the session to continue from (id, or a prefix only one indexed session has)')
    .option('--to <session>', 'the session that continues it (default: the current session, else the next one of the same project)')
    .option('--json', 'print the map instead of its path')
    .action(async (flags: { from?: string; to?: string; json?: boolean }) => {
      if (flags.from === undefined) throw new MoonError('bad_usage', '--from SESSION is required');
      const result = await context.moon().upkeep.continuity({ from: flags.from, to: flags.to });
      if (flags.json) {
        context.io.err(`wrote ${escapeControl(result.path, { oneLine: true })}`);
        printJson(context.io, result.map);
      } else {
        context.io.out(escapeControl(result.path, { oneLine: true }));
      }
    });
}
