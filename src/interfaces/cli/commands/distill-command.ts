import type { Command } from 'commander';
import { MoonError } from '../../../errors.js';
import type { CliContext } from '../context.js';
import { escapeControl } from '../format.js';
import { printJson } from '../output.js';
import { collect } from './index-command.js';

interface DistillFlags {
  mode?: string;
  archive?: string;
  file: string[];
  json?: boolean;
}

/** Seed 001 writes these with one dash (`moon distill -mode norm -archive PATH`); both spellings work. */
export const DISTILL_SINGLE_DASH = ['-mode', '-archive', '-file'];

export function registerDistill(program: Command, context: CliContext): void {
  program
    .command('distill')
    .description('L1: a pending projection into its daily memory file (--mode norm); L2: daily memory into MEMORY.md (--mode syns)')
    .requiredOption('--mode <mode>', '"norm" (L1 normalisation, no LLM) or "syns" (L2 synthesis)')
    .option('--archive <path>', 'norm: the pending projection (archives/mlib/<session>.md)')
    .option('--file <path>', 'syns: a daily memory file to read (repeatable; default: today\'s)', collect, [])
    .option('--json', 'print the DistillationRecord as JSON')
    .action(async (options: DistillFlags) => {
      const clean = (text: string): string => escapeControl(text, { oneLine: true });
      const watcher = await context.moon().upkeep.watcher();
      if (options.mode === 'norm') {
        if (options.file.length > 0) throw new MoonError('bad_usage', '--file belongs to --mode syns; norm takes --archive');
        const result = watcher.distillNorm(options.archive);
        if (options.json) printJson(context.io, { outcome: 'written', record: result.record, day: result.day, moved_from: result.movedFrom, omitted_turns: result.omittedTurns });
        else context.io.out(`L1: ${clean(result.record.session_id)} → ${clean(result.record.summary_path)}${result.movedFrom ? ` (moved from ${clean(result.movedFrom)})` : ''}`);
        return;
      }
      if (options.mode === 'syns') {
        if (options.archive) throw new MoonError('bad_usage', '--archive belongs to --mode norm; syns takes --file');
        const result = await watcher.distillSyns(options.file);
        if (options.json) printJson(context.io, { outcome: result.outcome, reason: result.reason ?? null, record: result.record, inputs: result.inputs });
        else if (result.outcome === 'written') context.io.out(`L2: ${clean(result.record.summary_path)} written by ${result.record.provider} from ${result.inputs.map(clean).join(', ')}`);
        if (result.outcome !== 'written') {
          context.io.err(`moon: L2 synthesis ${result.outcome}: ${clean(result.reason ?? '')}; MEMORY.md kept as it was (audit: ${clean(result.record.audit_log_path)})`);
          context.setExitCode(1);
        }
        return;
      }
      throw new MoonError('bad_usage', `--mode must be "norm" or "syns", got "${options.mode ?? ''}"`);
    });
}
