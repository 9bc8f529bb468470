import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describeError, isMoonError } from '../../../errors.js';
import { type Moon, createMoon } from '../../../moon.js';
import { HOOK_EVENTS, createClock } from '../../../index.js';
import type { CliContext } from '../context.js';
import { escapeControl } from '../format.js';

/** How long a hook waits for its payload: agents write it at once, and a hook must never hang the agent. */
export const STDIN_TIMEOUT_MS = 3_000;

/** bin/moon.js, four levels above dist/interfaces/cli/commands/ (and src/…/commands/). */
const BIN = fileURLToPath(new URL('../../../../bin/moon.js', import.meta.url));

/**
 * `moon hook <event>`: what Claude Code and Codex run (`node "<path>/bin/moon.js" hook <event>`). Reads the hook's
 * JSON on stdin; prints on stdout only the one JSON line the agent reads, or nothing. It FAILS OPEN: whatever goes
 * wrong (garbage stdin, a bad config, no index, a locked index) exits 0 with one line on stderr and nothing on
 * stdout, so moon never blocks or breaks the agent. session-end (and a capture that finds the index busy) hands
 * the capture to a detached `moon hook <event> --capture PATH` and returns at once.
 */
export function registerHook(program: Command, context: CliContext): void {
  program
    .command('hook')
    .description('answer an agent hook (Claude Code, Codex): reads its JSON on stdin; always exits 0')
    .argument('[event]', HOOK_EVENTS.join(' | '))
    .option('--capture <path>', 'capture (snapshot + index) this transcript now: what the detached process runs')
    // A hook's command line is written once, into an agent's settings: a missing event or an extra word must fail
    // open like anything else, not exit 2 (which Claude Code reads as "block").
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(async (given: string | undefined, options: { capture?: string }) => {
      const event = given ?? '';
      let moon: Moon | null = null;
      const fail = async (error: unknown): Promise<void> => {
        const message = oneLine(error);
        const name = escapeControl(event, { oneLine: true }).slice(0, 40);
        context.io.err(`moon hook${name === '' ? '' : ` ${name}`}: ${message}`);
        await moon?.agents.recordHookFailure(event, message);
      };
      try {
        if (event === '') throw new Error(`no hook event: \`moon hook <event>\` takes one of ${HOOK_EVENTS.join(', ')}`);
        // A Moon of the hook's own, silent: a notice ("waiting for another moon process…") would be a second line.
        moon = createMoon(context.config(), createClock(context.env), { env: context.env, onNotice: () => undefined });
        if (options.capture !== undefined) {
          const result = await moon.history.captureTranscript(options.capture);
          const problem = result.fatal?.message ?? result.errors[0]?.reason ?? null;
          if (problem !== null) await fail(new Error(problem));
          return;
        }
        const input = await readPayload(context);
        const outcome = await moon.agents.hook({ event, input });
        if (outcome.detach !== null) detachCapture(context, moon, outcome.event, outcome.detach);
        if (outcome.stdout !== null) context.io.out(outcome.stdout);
        if (outcome.warning !== null) context.io.err(`moon hook ${event}: ${escapeControl(outcome.warning, { oneLine: true })}`);
      } catch (error) {
        await fail(error);
      } finally {
        // Closing never fails a hook: what it had to say is already out.
        await moon?.close().catch(() => undefined);
      }
    });
}

async function readPayload(context: CliContext): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      // Nothing will come: stop reading so the process can exit.
      process.stdin.destroy();
      reject(new Error(`no hook payload on stdin within ${STDIN_TIMEOUT_MS / 1000} s`));
    }, STDIN_TIMEOUT_MS);
  });
  try {
    return await Promise.race([context.io.readStdin(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `moon hook <event> --capture PATH` in a process of its own: detached (its own process group, so the agent
 * killing the hook does not kill it), no stdio (nothing holds the agent's pipes open), unref'd (this process
 * exits at once). It ends when its capture does; the home, time zone and redaction setting go with it.
 */
function detachCapture(context: CliContext, moon: Moon, event: string, path: string): void {
  const config = moon.config;
  const args = [
    BIN,
    '--home',
    config.home,
    '--timezone',
    config.distill.residential_timezone,
    ...(config.privacy.redact ? [] : ['--no-redact']),
    'hook',
    event,
    '--capture',
    path,
  ];
  const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore', env: context.env, windowsHide: true });
  child.on('error', () => undefined);
  child.unref();
}

function oneLine(error: unknown): string {
  const text = isMoonError(error) ? `${error.message}${error.hint ? ` (${error.hint})` : ''}` : describeError(error);
  return escapeControl(text, { oneLine: true }).slice(0, 1000);
}
