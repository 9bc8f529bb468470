import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, type Socket, createConnection, createServer } from 'node:net';
import { resolveHome } from '../../archive/moon-home.js';
import { readBuildId, readBuildIdOnDisk } from '../../runtime/build-paths.js';
import {
  HOOK_SERVER_PROTOCOL,
  type HookServerAnswer,
  type HookServerInfo,
  type HookServerPaths,
  type HookServerRequest,
  type HookServerStatus,
  MAX_REQUEST_BYTES,
  PROCESS_VARIABLES,
  CAPTURE_EVENTS,
  SERVED_EVENTS,
  type ServedArgs,
  hookServerPaths,
  readHookServerInfo,
} from '../../hooks/server-files.js';

/**
 * The hook server (`moon [--home D] hook --serve`): a process of the user's own that answers the hooks handing the
 * agent context — session-start, user-prompt-submit, pre-compact — with moon already loaded. A hook started as a
 * new process pays node's start, then ~100 ms of loading moon and the index's first reads on every run; asked
 * through the server it pays node's start and one round trip. Started by the first such hook that finds none
 * (`hooks.server = "auto"`), it exits after `hooks.server_idle_seconds` without a hook, when its home is gone,
 * when another server took its place, or when its build is replaced on disk.
 *
 * Who may ask: the socket and the token file are in `$MOON_HOME/run/` (mode 0700), the socket 0600 and
 * `hook-server.json` 0600; a request must carry the token from that file. An answer is the hook's own: the server
 * runs the same code on the request's payload, with the hook's environment and options, for the home it serves
 * only — and refuses (the hook then answers in its own process) when the hook's build, home or process settings
 * (TZ, HOME) differ from its own. Requests are answered one at a time.
 */

export interface ServeHooksOptions {
  home: string;
  idleSeconds: number;
  /**
   * Answer one hook as its own process would (entry.ts runHookEntry, never asking a server): false, answering
   * nothing, when the configuration the hook's environment gives turns the server off (`hooks.server`).
   */
  answer(event: string, args: ServedArgs, io: { out(text: string): void; err(text: string): void; readStdin(): Promise<string> }, env: NodeJS.ProcessEnv): Promise<boolean>;
  /** Load what the served hooks need before the first one comes. */
  preload(): Promise<void>;
  /** Hand a stop or session-end hook's transcript to a detached capture, as the hook would (entry.ts). */
  capture(event: string, args: ServedArgs, env: NodeJS.ProcessEnv, path: string): void;
}

/** How often the server checks that its home, its files and its build are still there. */
const CHECK_INTERVAL_MS = 5_000;

/** Serve until idle or replaced. Resolves when the server has closed; never throws. */
export async function serveHooks(options: ServeHooksOptions): Promise<void> {
  const paths = hookServerPaths(options.home);
  if (paths === null) return;
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  chmodSync(paths.dir, 0o700);
  const build = readBuildId();
  const token = randomBytes(32).toString('hex');
  const server = createServer({ allowHalfOpen: true });
  if (!(await listenOnce(server, paths))) return;
  chmodSync(paths.socket, 0o600);
  const info: HookServerInfo = { pid: process.pid, build, token, started_ms: Date.now() };
  writePrivate(paths.info, `${JSON.stringify(info)}\n`);
  await options.preload().catch(() => undefined);

  let answered = 0;
  let lastMs = Date.now();
  let queue: Promise<void> = Promise.resolve();
  let closing = false;
  const closed = new Promise<void>((resolve) => server.on('close', resolve));
  const shutdown = (): void => {
    if (closing) return;
    closing = true;
    clearInterval(checker);
    server.close();
    // The files are removed only while they are this server's: a server that took its place keeps its own.
    if (readHookServerInfo(paths.info)?.pid === process.pid) {
      rmSync(paths.info, { force: true });
      rmSync(paths.socket, { force: true });
    }
  };
  const checker = setInterval(() => {
    const mine = readHookServerInfo(paths.info)?.pid === process.pid;
    if (!mine || !existsSync(paths.socket) || Date.now() - lastMs >= options.idleSeconds * 1000 || isBuildReplaced(build)) shutdown();
  }, Math.min(CHECK_INTERVAL_MS, options.idleSeconds * 1000));
  checker.unref();
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);

  const handle = async (socket: Socket, line: string): Promise<void> => {
    const reply = (answer: HookServerAnswer): void => {
      socket.end(JSON.stringify(answer));
    };
    let request: HookServerRequest;
    try {
      request = JSON.parse(line) as HookServerRequest;
    } catch {
      return reply({ served: false, reason: 'request' });
    }
    if (!isToken(request.token, token)) return reply({ served: false, reason: 'token' });
    if (request.v !== HOOK_SERVER_PROTOCOL) return reply({ served: false, reason: 'protocol' });
    if (request.build !== build) return reply({ served: false, reason: 'build' });
    lastMs = Date.now();
    if (request.kind === 'status') {
      const status: HookServerStatus = { pid: process.pid, build, home: options.home, started_ms: info.started_ms, answered, idle_seconds: options.idleSeconds };
      return reply({ served: false, reason: 'status', status });
    }
    const served = request.kind === 'hook' ? SERVED_EVENTS.has(request.event) && typeof request.input === 'string' : request.kind === 'capture' && CAPTURE_EVENTS.has(request.event) && typeof request.path === 'string';
    if (!served) return reply({ served: false, reason: 'event' });
    const env = request.env ?? {};
    if (resolveHome(env, request.args?.home) !== options.home) return reply({ served: false, reason: 'home' });
    if (PROCESS_VARIABLES.some((name) => (env[name] ?? '') !== (process.env[name] ?? ''))) return reply({ served: false, reason: 'process' });
    if (request.kind === 'capture') {
      // The hook's answer is empty: it is sent first, and the capture is started once the hook has gone (starting a
      // process holds this event loop for ~10 ms, which would hold back the end of the answer). The capture counts
      // the run, or records its failure, as one the hook started would.
      socket.once('close', () => {
        try {
          options.capture(request.event, request.args ?? {}, env, request.path);
        } catch {
          // Not started (no processes left): the next turn's capture reads this one's too.
        }
      });
      answered += 1;
      reply({ served: true, out: [], err: [] });
      return;
    }
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (text: string) => out.push(text), err: (text: string) => err.push(text), readStdin: async () => request.input };
    // A hook whose configuration turns the server off is answered in its own process (the server stays for the
    // others, and exits when idle).
    if (!(await options.answer(request.event, request.args ?? {}, io, env).catch(() => false))) return reply({ served: false, reason: 'off' });
    answered += 1;
    lastMs = Date.now();
    reply({ served: true, out, err });
  };

  server.on('connection', (socket) => {
    const chunks: Buffer[] = [];
    let size = 0;
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        socket.destroy();
        return;
      }
      chunks.push(chunk);
      // The request ends at its newline (JSON escapes any inside it): looked for in the new chunk alone.
      const end = chunk.indexOf(0x0a);
      if (end < 0) return;
      socket.removeAllListeners('data');
      const line = Buffer.concat(chunks).subarray(0, size - chunk.length + end).toString('utf8');
      // One request at a time: a hook's answer runs on the process's own state (its environment is the hook's).
      queue = queue.then(() =>
        handle(socket, line).catch(() => {
          socket.end(JSON.stringify({ served: false, reason: 'failed' }));
        }),
      );
    });
  });
  await closed;
}

/**
 * Listen on the home's socket. A socket file left by a server that is gone is replaced; one a live server answers
 * on is left to it (false: this server is not needed).
 */
function listenOnce(server: Server, paths: HookServerPaths): Promise<boolean> {
  const listen = (): Promise<NodeJS.ErrnoException | null> =>
    new Promise((resolve) => {
      server.once('error', (error: NodeJS.ErrnoException) => resolve(error));
      server.listen(paths.socket, () => resolve(null));
    });
  return (async () => {
    const first = await listen();
    if (first === null) return true;
    if (first.code !== 'EADDRINUSE' || (await isAnswering(paths.socket))) return false;
    rmSync(paths.socket, { force: true });
    return (await listen()) === null;
  })();
}

function isAnswering(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(socket);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

function isToken(given: unknown, token: string): boolean {
  if (typeof given !== 'string' || given.length !== token.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(token));
}

/** The build this server runs was replaced (`npm run build`, an upgrade): its modules on disk are not its own. */
function isBuildReplaced(build: string): boolean {
  return readBuildIdOnDisk() !== build;
}

function writePrivate(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, path);
}
