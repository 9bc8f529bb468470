import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, statSync, utimesSync } from 'node:fs';
import { createConnection } from 'node:net';
import { readBuildId } from '../../runtime/build-paths.js';
import {
  HOOK_SERVER_PROTOCOL,
  type HookServerAnswer,
  type HookServerRequest,
  type ServedArgs,
  hookServerPaths,
  readHookServerInfo,
} from '../../hooks/server-files.js';

/**
 * A hook's side of the hook server (server.ts): ask it, or start one for the hooks that follow. Nothing here
 * fails a hook — a server that is not there, refuses, or does not answer in time is a hook answered in its own
 * process, as without a server.
 */

/** How long a hook waits for the server's answer before answering in its own process. */
export const ANSWER_TIMEOUT_MS = 10_000;

/** A hook starts a server at most once in this long (a server that cannot start is not started on every turn). */
const START_INTERVAL_MS = 60_000;

export interface AskRequest {
  home: string;
  event: string;
  args: ServedArgs;
  env: NodeJS.ProcessEnv;
  input: string;
}

/** The server's answer to one hook; null when no server answered (none runs, or it failed). */
export async function askHookServer(request: AskRequest): Promise<HookServerAnswer | null> {
  const env = stringsOf(request.env);
  return sendToHookServer(request.home, (token) => ({
    v: HOOK_SERVER_PROTOCOL,
    token,
    build: readBuildId(),
    kind: 'hook',
    event: request.event,
    args: request.args,
    env,
    input: request.input,
  }));
}

/** How long stop or session-end waits for the server to take its capture before starting it itself. */
const CAPTURE_TIMEOUT_MS = 1_000;

/** Hand a stop or session-end hook's capture to the home's server: true when it took it. */
export async function askHookServerToCapture(request: Omit<AskRequest, 'input'> & { path: string }): Promise<boolean> {
  const env = stringsOf(request.env);
  const answer = await sendToHookServer(
    request.home,
    (token) => ({ v: HOOK_SERVER_PROTOCOL, token, build: readBuildId(), kind: 'capture', event: request.event, args: request.args, env, path: request.path }),
    CAPTURE_TIMEOUT_MS,
  );
  return answer?.served === true;
}

/** The hook's environment as it travels: its set variables. */
function stringsOf(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/** One request to the home's server: its answer, or null when there is no server or it did not answer. */
export function sendToHookServer(home: string, build: (token: string) => HookServerRequest, timeoutMs = ANSWER_TIMEOUT_MS): Promise<HookServerAnswer | null> {
  const paths = hookServerPaths(home);
  const info = paths === null ? null : readHookServerInfo(paths.info);
  if (paths === null || info === null) return Promise.resolve(null);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (answer: HookServerAnswer | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const socket = createConnection(paths.socket);
    const timer = setTimeout(() => settle(null), timeoutMs);
    socket.on('error', () => settle(null));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => {
      try {
        settle(JSON.parse(Buffer.concat(chunks).toString('utf8')) as HookServerAnswer);
      } catch {
        settle(null);
      }
    });
    socket.on('connect', () => socket.write(`${JSON.stringify(build(info.token))}\n`));
  });
}

/**
 * Start the home's hook server in a process of its own (detached, no stdio, this hook does not wait), unless a
 * hook started one in the last minute. It takes the hook's environment, which its answers must share.
 */
export function startHookServer(home: string, env: NodeJS.ProcessEnv, bin: string): void {
  const paths = hookServerPaths(home);
  if (paths === null) return;
  try {
    const last = statSync(paths.started, { throwIfNoEntry: false });
    if (last !== undefined && Date.now() - last.mtimeMs < START_INTERVAL_MS) return;
    mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    closeSync(openSync(paths.started, 'a', 0o600));
    const now = new Date();
    utimesSync(paths.started, now, now);
  } catch {
    // The home cannot be written: no server.
    return;
  }
  const child = spawn(process.execPath, [bin, '--home', home, 'hook', '--serve'], { detached: true, stdio: 'ignore', env, windowsHide: true });
  child.on('error', () => undefined);
  child.unref();
}
