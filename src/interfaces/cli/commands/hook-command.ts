import type { Command } from 'commander';
import { HOOK_EVENTS } from '../../../index.js';
import type { CliContext } from '../context.js';

/**
 * `moon hook <event>`: what Claude Code and Codex run (`node "<path>/bin/moon.js" hook <event>`). bin/moon.js sends
 * a hook's command line straight to src/interfaces/hook/entry.ts without loading the CLI; this command is the same hook
 * (`answerHook`) for a command line the entry leaves to the CLI. It FAILS OPEN: exit 0, one line on stderr,
 * nothing on stdout, whatever goes wrong.
 */
export function registerHook(program: Command, context: CliContext): void {
  program
    .command('hook')
    .description('answer an agent hook (Claude Code, Codex): reads its JSON on stdin; always exits 0')
    .argument('[event]', HOOK_EVENTS.join(' | '))
    .option('--capture <path>', 'capture (snapshot + index) this transcript now: what the detached process runs')
    .option('--count', 'with --capture: count the run as the event\'s (its hook handed the capture over at once)')
    // A hook's command line is written once, into an agent's settings: a missing event or an extra word must fail
    // open like anything else, not exit 2 (which Claude Code reads as "block").
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(async (given: string | undefined, options: { capture?: string; count?: boolean }) => {
      const { answerHook } = await import('../../hook/entry.js');
      await answerHook({ event: given ?? '', capture: options.capture, count: options.count, io: context.io, env: context.env, config: context.config });
    });
}
