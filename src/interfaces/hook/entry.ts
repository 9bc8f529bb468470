import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { MoonConfig } from '../../config.js';
import { describeError, isMoonError } from '../../errors.js';
import { escapeControl } from '../../text/escape-control.js';
import { HOOK_EVENTS, isHookEvent } from '../../hooks/events.js';
import { fromBuild } from '../../runtime/build-paths.js';
import { lowerChildPriority, lowerPriority } from '../../runtime/priority.js';
import { markForeground } from '../../runtime/foreground.js';
import { resolveHome } from '../../archive/moon-home.js';
import { SERVED_EVENTS, type ServedArgs } from '../../hooks/server-files.js';
import type { ReaderCache } from '../../app/hook-deps.js';

/**
 * `moon hook <event>` as the agent runs it (`node "<path>/bin/moon.js" [--home "<dir>"] hook <event>`): bin/moon.js
 * sends it here before anything else loads, so a hook pays for its event's own modules only — never commander,
 * the CLI's commands, the `src/index.ts` barrel or the composition root (`src/moon.ts`). `moon hook` through the
 * CLI ends in `answerHook` too. Reads the hook's JSON on stdin; prints on stdout only the one JSON line the agent
 * reads, or nothing. It FAILS OPEN: whatever goes wrong exits 0 with one line on stderr and nothing on stdout,
 * and the failure is counted in state/hooks.json (`moon status` shows the last one).
 */

/** How long a hook waits for its payload: agents write it at once, and a hook must never hang the agent. */
export const STDIN_TIMEOUT_MS = 3_000;

/** bin/moon.js, beside the build's root (dist/, or src/ under the test runner). */
const BIN = fileURLToPath(fromBuild('../bin/moon.js'));

export interface HookArgs {
  home?: string;
  timezone?: string;
  /** false: `--no-redact`. */
  redact?: boolean;
  /** '' when none was given (failed open like anything else). */
  event: string;
  /** `--capture PATH`: capture this transcript now (what the detached process runs). */
  capture?: string;
  /** `--count`, with `--capture`: count the run as the event's (its hook handed the capture over before counting). */
  count?: boolean;
  /** `--serve`: run the home's hook server (server.ts) instead of one hook. */
  serve?: boolean;
}

export interface HookIO {
  out(text: string): void;
  err(text: string): void;
  readStdin(): Promise<string>;
}

/**
 * The words of a hook's command line: moon's global options (`--home`, `--timezone`, `--no-redact`,
 * `--allow-out-of-bounds`, as `--x V` or `--x=V`), `hook`, the event and `--capture PATH`. Extra words and unknown
 * options after `hook` are ignored, as the CLI ignores them (a hook line written once into an agent's settings
 * must not start failing). Null when the words are not a hook run — another command, help, a version, an unknown
 * option before `hook`, an option without its value: the CLI answers those.
 */
export function parseHookArgv(argv: readonly string[]): HookArgs | null {
  const args: HookArgs = { event: '' };
  let sawHook = false;
  let sawEvent = false;
  for (let index = 0; index < argv.length; index += 1) {
    const word = argv[index]!;
    if (word === '-h' || word === '--help' || word === '-V' || word === '--version') return null;
    const valued = /^--(home|timezone|capture)(?:=(.*))?$/.exec(word);
    if (valued) {
      const value = valued[2] ?? argv[(index += 1)];
      if (value === undefined || value === '') return null;
      if (valued[1] === 'capture') {
        if (!sawHook) return null;
        args.capture = value;
      } else args[valued[1] as 'home' | 'timezone'] = value;
      continue;
    }
    if (word === '--no-redact') {
      args.redact = false;
      continue;
    }
    if (word === '--allow-out-of-bounds') continue;
    if (word === '--count' && sawHook) {
      args.count = true;
      continue;
    }
    if (word === '--serve' && sawHook) {
      args.serve = true;
      continue;
    }
    if (!sawHook) {
      if (word !== 'hook') return null;
      sawHook = true;
      continue;
    }
    if (word.startsWith('-')) continue;
    if (!sawEvent) {
      args.event = word;
      sawEvent = true;
    }
  }
  return sawHook ? args : null;
}

/**
 * bin/moon.js's hook route: the configuration from the flags and the environment, then `answerHook` — asking the
 * home's hook server first where one may answer (`options.askServer`, on unless this is the server answering).
 * `--serve` runs the server itself. Always 0.
 */
export async function runHookEntry(
  args: HookArgs,
  io: HookIO = processIO(),
  env: NodeJS.ProcessEnv = process.env,
  options: { askServer: boolean; config?: MoonConfig; readers?: ReaderCache } = { askServer: true },
): Promise<number> {
  const given = options.config;
  const config = async (): Promise<MoonConfig> => given ?? loadConfigOf(args, env);
  if (args.serve === true) {
    await runHookServer(config);
    return 0;
  }
  const flags = flagsOf(args);
  // The agent waits on this hook: background work in the home gives way until it is done (foreground.ts). So does
  // it for a hook's detached capture — the turn the agent just had, not yet in the index — which itself gives way to
  // the agent's hooks; without it, a capture waits for the writer until a full re-index ends. Not for a request the
  // server answers: its hook's own process has marked the home.
  const home = options.askServer || args.capture !== undefined ? resolveHome(env, args.home) : null;
  const unmark = home === null ? null : markForeground(home);
  try {
    const server = options.askServer && args.capture === undefined && home !== null ? { home, args: servedArgs(args) } : undefined;
    await answerHook({ event: args.event, capture: args.capture, count: args.count, io, env, config, flags, server, readers: options.readers });
  } finally {
    unmark?.();
  }
  return 0;
}

/** The configuration a hook runs with: moon.toml, the environment, and its flags (`--timezone`, `--no-redact`). */
async function loadConfigOf(args: Pick<HookArgs, 'home' | 'timezone' | 'redact'>, env: NodeJS.ProcessEnv): Promise<MoonConfig> {
  const overrides = { 'distill.residential_timezone': args.timezone, 'privacy.redact': args.redact === false ? false : undefined };
  return (await import('./config-cache.js')).loadHookConfig({ env, home: args.home, overrides });
}

/** The flags that go with a capture handed to a detached process, so it runs on the same home, zone and redaction. */
function flagsOf(args: ServedArgs): string[] {
  return [
    ...(args.home === undefined ? [] : ['--home', args.home]),
    ...(args.timezone === undefined ? [] : ['--timezone', args.timezone]),
    ...(args.redact === false ? ['--no-redact'] : []),
  ];
}

function servedArgs(args: HookArgs): ServedArgs {
  return { ...(args.home === undefined ? {} : { home: args.home }), ...(args.timezone === undefined ? {} : { timezone: args.timezone }), ...(args.redact === false ? { redact: false } : {}) };
}

/** `moon hook --serve`: the home's hook server, until it is idle or replaced (server.ts). */
async function runHookServer(config: () => Promise<MoonConfig>): Promise<void> {
  let loaded: MoonConfig;
  try {
    loaded = await config();
  } catch {
    return;
  }
  if (loaded.hooks.server === 'off') return;
  const [{ serveHooks }, { preloadHookModules, createReaderCache }] = await Promise.all([import('./server.js'), import('../../app/hook-deps.js')]);
  // The index is opened once for the hooks the server answers, not once per hook (app/reader-cache.ts).
  const readers = createReaderCache();
  await serveHooks({
    home: loaded.home,
    idleSeconds: loaded.hooks.server_idle_seconds,
    // The hook's configuration, read once: it says whether a server may answer, then the hook runs on it.
    answer: async (event, served, io, hookEnv) => {
      const hookConfig = await loadConfigOf(served, hookEnv);
      if (hookConfig.hooks.server === 'off') return false;
      await runHookEntry({ event, ...served }, { ...io }, hookEnv, { askServer: false, config: hookConfig, readers });
      return true;
    },
    capture: (event, served, hookEnv, path) => detachCapture(flagsOf(served), hookEnv, event, path, true),
    preload: async () => {
      await Promise.all([preloadHookModules(loaded), import('../../hooks/run-hook.js'), import('../../hooks/session-start.js'), import('../../hooks/user-prompt.js')]);
    },
  });
  await readers.closeAll();
}

export interface AnswerHookRequest {
  event: string;
  capture?: string;
  /** With `capture`: count the run as `event`'s. */
  count?: boolean;
  io: HookIO;
  env: NodeJS.ProcessEnv;
  config: () => MoonConfig | Promise<MoonConfig>;
  /**
   * The global flags the hook was run with, when known: stop and session-end whose payload names an existing
   * transcript then hand it to a detached process at once, with these flags, before loading the configuration.
   */
  flags?: string[];
  /**
   * Where a hook server may answer (server.ts): the home it would serve and the hook's options. A hook it serves
   * is answered there; one it does not is answered here, and starts a server for the next (`hooks.server`).
   */
  server?: { home: string; args: ServedArgs };
  /** Readers kept across the hooks a server answers (app/reader-cache.ts). */
  readers?: ReaderCache;
}

/** One hook run, failing open. Shared by the hook entry and `moon hook` in the CLI. */
export async function answerHook(request: AnswerHookRequest): Promise<void> {
  const { event, io, env } = request;
  let counted: { home: string; zone: string; clock: () => number } | null = null;
  let close: (() => Promise<void>) | null = null;
  const fail = async (error: unknown): Promise<void> => {
    const message = oneLine(error);
    const name = escapeControl(event, { oneLine: true }).slice(0, 40);
    io.err(`moon hook${name === '' ? '' : ` ${name}`}: ${message}`);
    if (counted === null && event !== '') {
      // Failed before the configuration was needed (a hook handing its capture over): load it to count the failure.
      try {
        const config = await request.config();
        counted = { home: config.home, zone: config.distill.residential_timezone, clock: await clockOf(env) };
      } catch {
        // The configuration is what failed, or cannot be read: the failure is on stderr alone.
      }
    }
    if (counted !== null) await (await import('../../hooks/run-hook.js')).recordHookFailure(counted, event, message);
  };
  try {
    if (event === '') throw new Error(`no hook event: \`moon hook <event>\` takes one of ${HOOK_EVENTS.join(', ')}`);
    let input: string | null = null;
    if ((event === 'stop' || event === 'session-end') && request.capture === undefined && request.flags !== undefined) {
      input = await readPayload(io);
      const handed = await handOver(event, input, request.flags, env, env.MOON_HOOKS_SERVER === 'off' ? undefined : request.server);
      if (handed) return;
    }
    let unserved = false;
    if (request.server !== undefined && SERVED_EVENTS.has(event) && env.MOON_HOOKS_SERVER !== 'off') {
      input = await readPayload(io);
      const answer = await (await import('./server-client.js')).askHookServer({ ...request.server, event, env, input });
      if (answer?.served === true) {
        for (const text of answer.out) io.out(text);
        for (const text of answer.err) io.err(text);
        return;
      }
      unserved = true;
    }
    // A capture runs in the background: below the agent's priority before it loads anything.
    if (request.capture !== undefined) lowerPriority();
    const config = await request.config();
    const clock = await clockOf(env);
    counted = { home: config.home, zone: config.distill.residential_timezone, clock };
    const [{ composeHookDeps }, { runHook, countRun }] = await Promise.all([import('../../app/hook-deps.js'), import('../../hooks/run-hook.js')]);
    if (request.capture !== undefined) {
      // The detached capture has time: it waits for another writer as long as any command does (below the
      // agent's priority, set above).
      const plane = composeHookDeps(config, clock, { env, captureLockTimeoutMs: config.index.lock_timeout_ms });
      close = plane.close;
      const report = await plane.deps.capture(request.capture);
      const problem = report.fatal?.message ?? report.errors[0]?.reason ?? null;
      if (problem !== null) await fail(new Error(problem));
      else if (request.count === true && isHookEvent(event)) await countRun(counted, event, 0);
      // The session is over: the next one starting in its project reads its facts folded already. Best effort.
      if (event === 'session-end') await plane.warmFacts(report.sessions).catch(() => undefined);
      return;
    }
    const plane = composeHookDeps(config, clock, { env, readers: request.readers });
    close = plane.close;
    input ??= await readPayload(io);
    const outcome = await runHook(plane.deps, { event, input });
    if (outcome.detach !== null) detachCapture(captureFlags(config), env, outcome.event, outcome.detach, false);
    if (outcome.stdout !== null) io.out(outcome.stdout);
    if (outcome.warning !== null) io.err(`moon hook ${event}: ${escapeControl(outcome.warning, { oneLine: true })}`);
    // Answered here, not by a server: start one for the hooks that follow (it answers from the next one on).
    if (unserved && config.hooks.server === 'auto') (await import('./server-client.js')).startHookServer(config.home, env, BIN);
  } catch (error) {
    await fail(error);
  } finally {
    // Closing never fails a hook: what it had to say is already out.
    await close?.().catch(() => undefined);
  }
}

/** MOON_FAKE_NOW (tests, demos) is parsed only when set: the parser's date library stays unloaded otherwise. */
async function clockOf(env: NodeJS.ProcessEnv): Promise<() => number> {
  return env.MOON_FAKE_NOW ? (await import('../../time/clock.js')).createClock(env) : Date.now;
}

async function readPayload(io: HookIO): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      // Nothing will come: stop reading so the process can exit.
      process.stdin.destroy();
      reject(new Error(`no hook payload on stdin within ${STDIN_TIMEOUT_MS / 1000} s`));
    }, STDIN_TIMEOUT_MS);
  });
  try {
    return await Promise.race([io.readStdin(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * stop and session-end whose payload names a transcript that exists: the capture goes to a detached process at
 * once, which also counts the run (or records its failure) — the hook itself loads no configuration, no index and
 * no ingest. False when the payload names no transcript (Codex may give only a session id): the transcript is
 * then looked for under the configured roots, the long way. A payload that is wrong is thrown, to fail open.
 */
async function handOver(
  event: 'stop' | 'session-end',
  input: string,
  flags: string[],
  env: NodeJS.ProcessEnv,
  server: AnswerHookRequest['server'],
): Promise<boolean> {
  const [{ parseHookPayload }, { locateTranscript }] = await Promise.all([import('../../hooks/payload.js'), import('../../hooks/locate.js')]);
  const payload = parseHookPayload(input, event);
  if (payload.transcriptPath === null) return false;
  const path = locateTranscript(payload.transcriptPath, payload.sessionId, []);
  // The home's hook server, when one runs, starts the capture for it: this hook then starts no process.
  if (server !== undefined && (await (await import('./server-client.js')).askHookServerToCapture({ ...server, event, env, path }))) return true;
  detachCapture(flags, env, event, path, true);
  return true;
}

/** The flags a detached capture is given when the configuration is loaded: its home, zone and redaction. */
function captureFlags(config: MoonConfig): string[] {
  return ['--home', config.home, '--timezone', config.distill.residential_timezone, ...(config.privacy.redact ? [] : ['--no-redact'])];
}

/**
 * `moon hook <event> --capture PATH [--count]` in a process of its own: detached (its own process group, so the
 * agent killing the hook does not kill it), no stdio (nothing holds the agent's pipes open), unref'd (this process
 * exits at once). It ends when its capture does; the home, time zone and redaction setting go with it.
 */
function detachCapture(flags: string[], env: NodeJS.ProcessEnv, event: string, path: string, count: boolean): void {
  const args = [BIN, ...flags, 'hook', event, '--capture', path, ...(count ? ['--count'] : [])];
  const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore', env, windowsHide: true });
  child.on('error', () => undefined);
  // Below the agent from its first instruction: its start and module loading would otherwise compete with the
  // hook that follows it (the next turn's, or the next session's start).
  lowerChildPriority(child.pid);
  child.unref();
}

function processIO(): HookIO {
  return {
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

function oneLine(error: unknown): string {
  const text = isMoonError(error) ? `${error.message}${error.hint ? ` (${error.hint})` : ''}` : describeError(error);
  return escapeControl(text, { oneLine: true }).slice(0, 1000);
}
