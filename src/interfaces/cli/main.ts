import { Command, CommanderError } from 'commander';
import { type MoonConfig, loadConfig } from '../../config.js';
import { MoonError, describeError, isMoonError } from '../../errors.js';
import { type Moon, createMoon } from '../../moon.js';
import { registerConfig } from './commands/config-command.js';
import { registerContext } from './commands/context-command.js';
import { registerContinuity } from './commands/continuity-command.js';
import { registerForget } from './commands/forget-command.js';
import { registerFixes } from './commands/fixes-command.js';
import { registerDecisions } from './commands/decisions-command.js';
import { registerMarkers } from './commands/markers-command.js';
import { registerDigest } from './commands/digest-command.js';
import { registerMcp } from './commands/mcp-command.js';
import { registerGc, registerMemory } from './commands/memory-command.js';
import { registerHook } from './commands/hook-command.js';
import { registerMigrate } from './commands/migrate-command.js';
import { registerModels } from './commands/models-command.js';
import { registerIndex } from './commands/index-command.js';
import { registerInstall } from './commands/install-command.js';
import { registerDoctor } from './commands/doctor-command.js';
import { registerRebuild, registerVerify } from './commands/maintain-commands.js';
import { registerRecall } from './commands/recall-command.js';
import { registerRlm } from './commands/rlm-command.js';
import { registerService } from './commands/service-command.js';
import { registerSessions } from './commands/sessions-command.js';
import { registerShow } from './commands/show-command.js';
import { registerSnapshot } from './commands/snapshot-command.js';
import { registerStatus } from './commands/status-command.js';
import { DISTILL_SINGLE_DASH, registerDistill } from './commands/distill-command.js';
import { registerWatch } from './commands/watch-command.js';
import { registerServe } from './commands/serve-command.js';
import { readVersion } from './version.js';
import { registerUsage } from './commands/usage-command.js';
import { corruptIndexError, createClock, isCorruptionError } from '../../index.js';
import type { CliContext } from './context.js';
import { toFlagError } from './flag-errors.js';
import { escapeControl } from './format.js';
import { type CliIO, createProcessIO } from './output.js';

/**
 * Parse, dispatch, and turn failures into exit codes: 0 ok, 2 bad usage or input, 1 runtime error.
 * Returns the code instead of exiting, so tests can run the CLI in-process.
 */
export async function runCli(argv: string[], io: CliIO = createProcessIO(), env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let exitCode = 0;
  let clockMade: (() => number) | null = null;
  // MOON_FAKE_NOW is read when first needed, so a bad value is reported like any configuration error.
  const clock = (): number => (clockMade ??= createClock(env))();
  let config: MoonConfig | null = null;
  let moon: Moon | null = null;
  const program = new Command('moon');
  const global = (): { home?: string; timezone?: string; redact?: boolean; allowOutOfBounds?: boolean } => program.opts();
  const context: CliContext = {
    io,
    config: () => {
      if (!config) {
        const flags = global();
        config = loadConfig({
          env,
          home: flags.home,
          overrides: {
            'distill.residential_timezone': flags.timezone,
            'privacy.redact': flags.redact === false ? false : undefined,
          },
        });
      }
      return config;
    },
    moon: () => {
      if (!moon) moon = createMoon(context.config(), clock, { onNotice: (message) => io.err(`moon: ${message}`), env });
      return moon;
    },
    setExitCode: (code) => {
      exitCode = Math.max(exitCode, code);
    },
    env,
  };
  registerProgram(program, context);
  program.hook('preAction', (_program, command) => {
    // Seed 001 DaemonLockPayload rule 3: a command that writes refuses another home's running watcher.
    // `moon rlm index` writes the file it is given, not the home.
    if (command.parent?.name() === 'rlm') return;
    const writesMemory = command.parent?.name() === 'memory' && MEMORY_WRITES.has(command.name());
    if (!MUTATING.has(command.name()) && !writesMemory) return;
    return context.moon().upkeep.checkBoundary(Boolean(global().allowOutOfBounds));
  });
  try {
    await program.parseAsync(spellSingleDash(argv), { from: 'user' });
  } catch (error) {
    exitCode = reportError(io, error, (moon as Moon | null)?.paths.db ?? null);
  } finally {
    await (moon as Moon | null)?.close();
  }
  return exitCode;
}

/**
 * The command tree on `program`: every command, subcommand and option, registered but not run (runCli parses;
 * the docs test enumerates it). Registration reads nothing from the context: each action uses it when it runs.
 */
export function registerProgram(program: Command, context: CliContext): Command {
  program
    .description('moon — memory for AI coding agents')
    .version(readVersion(), '-V, --version', 'print the version')
    .option('--home <dir>', 'moon home (default $MOON_HOME or ~/.moon)')
    .option('--timezone <zone>', 'residential time zone (IANA), overrides distill.residential_timezone')
    .option('--no-redact', 'do not redact secrets (privacy.redact = false)')
    .option('--allow-out-of-bounds', 'let a command that writes work on a home other than the running watcher\'s')
    .exitOverride()
    .configureOutput({ writeOut: (text) => context.io.out(text), writeErr: (text) => context.io.err(text) })
    .showHelpAfterError(false);
  registerIndex(program, context);
  registerSnapshot(program, context);
  registerRecall(program, context);
  registerSessions(program, context);
  registerShow(program, context);
  registerStatus(program, context);
  registerConfig(program, context);
  registerVerify(program, context);
  registerRebuild(program, context);
  registerForget(program, context);
  registerFixes(program, context);
  registerDecisions(program, context);
  registerMarkers(program, context);
  registerMigrate(program, context);
  registerUsage(program, context);
  registerContinuity(program, context);
  registerService(program, context);
  registerInstall(program, context);
  registerDoctor(program, context);
  registerDistill(program, context);
  registerDigest(program, context);
  registerWatch(program, context);
  registerServe(program, context);
  registerMcp(program, context);
  registerHook(program, context);
  registerMemory(program, context);
  registerGc(program, context);
  registerContext(program, context);
  registerRlm(program, context);
  registerModels(program, context);
  return program;
}

/** Commands that write to the home: refused while another home's watcher holds this logs dir's daemon lock. */
const MUTATING = new Set(['index', 'snapshot', 'forget', 'rebuild', 'migrate', 'distill', 'watch', 'gc']);

/** `moon memory` subcommands that write to the home's index. */
const MEMORY_WRITES = new Set(['add', 'approve', 'deprecate', 'edit', 'import', 'propose']);

/** `moon distill -mode norm -archive PATH`, as seed 001 writes it, read as `--mode` and `--archive`. */
function spellSingleDash(argv: string[]): string[] {
  if (!argv.includes('distill')) return argv;
  return argv.map((arg) => {
    const [flag, ...value] = arg.split('=');
    return DISTILL_SINGLE_DASH.includes(flag!) ? [`-${flag}`, ...value].join('=') : arg;
  });
}

function reportError(io: CliIO, error: unknown, db: string | null): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
    return 2;
  }
  // A SQLite error that escaped the store's own mapping still names the index and the way back.
  if (!isMoonError(error) && isCorruptionError(error) && db) error = corruptIndexError(db, error);
  error = toFlagError(error);
  // Messages carry paths and ids from the outside world: escaped, so they cannot forge output or move the cursor.
  const clean = (text: string): string => escapeControl(text, { oneLine: true });
  if (isMoonError(error)) {
    io.err(`moon: ${clean(error.message)}${error.hint ? ` (${clean(error.hint)})` : ''}`);
    return error.exitCode;
  }
  io.err(`moon: ${clean(describeError(error))}`);
  if (process.env.MOON_DEBUG) io.err(String((error as Error).stack ?? ''));
  return new MoonError('internal', '').exitCode;
}
