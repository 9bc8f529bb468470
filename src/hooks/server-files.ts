import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runDirOf } from '../archive/moon-home.js';

/**
 * The hook server's files and its one-line protocol, shared by the server (interfaces/hook/server.ts), the hook that asks it
 * (server-client.ts) and `moon status`. Everything lives in `$MOON_HOME/run/` (owner-only): the socket `hook.sock` and
 * `hook-server.json` — the server's pid, build and the token a hook must send, readable by the owner alone.
 *
 * A request is one JSON line (HookServerRequest); the answer is one JSON line (HookServerAnswer) and the server
 * closes the connection.
 */
export const HOOK_SERVER_PROTOCOL = 1;

/** The hooks a server answers: the ones that hand the agent context, loading recall and the memory planes. */
export const SERVED_EVENTS: ReadonlySet<string> = new Set(['session-start', 'user-prompt-submit', 'pre-compact']);

/** The hooks whose capture a server hands to a detached process for them (their answer is empty). */
export const CAPTURE_EVENTS: ReadonlySet<string> = new Set(['stop', 'session-end']);

/** A socket's path must fit `sockaddr_un` (108 bytes on Linux, 104 on macOS, the final NUL included). */
const MAX_SOCKET_PATH_BYTES = 103;

export interface HookServerPaths {
  dir: string;
  socket: string;
  info: string;
  /** When a hook last started a server (its mtime): one start a minute at most. */
  started: string;
}

/** The server's files for a home; null where no socket can be made (a home whose path is too long for one). */
export function hookServerPaths(home: string): HookServerPaths | null {
  const dir = runDirOf(home);
  const socket = join(dir, 'hook.sock');
  if (process.platform === 'win32' || Buffer.byteLength(socket) > MAX_SOCKET_PATH_BYTES) return null;
  return { dir, socket, info: join(dir, 'hook-server.json'), started: join(dir, 'hook-server.started') };
}

export interface HookServerInfo {
  pid: number;
  build: string;
  token: string;
  started_ms: number;
}

export function readHookServerInfo(path: string): HookServerInfo | null {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<HookServerInfo>;
    if (typeof value.pid !== 'number' || typeof value.build !== 'string' || typeof value.token !== 'string' || typeof value.started_ms !== 'number') return null;
    return value as HookServerInfo;
  } catch {
    return null;
  }
}

/** The hook's command-line options that shape its answer (entry.ts HookArgs), as the server needs them. */
export interface ServedArgs {
  home?: string;
  timezone?: string;
  redact?: boolean;
}

export type HookServerRequest =
  | {
      v: number;
      token: string;
      build: string;
      kind: 'hook';
      event: string;
      args: ServedArgs;
      /** The hook process's environment: the configuration is read from it, as the hook would. */
      env: Record<string, string>;
      /** The payload the agent wrote on the hook's stdin. */
      input: string;
    }
  | {
      v: number;
      token: string;
      build: string;
      /**
       * stop or session-end whose transcript the hook found: the server hands it to a detached capture, as the
       * hook would, after answering — the hook spares itself starting a process on every turn.
       */
      kind: 'capture';
      event: string;
      args: ServedArgs;
      env: Record<string, string>;
      /** The transcript to capture. */
      path: string;
    }
  | { v: number; token: string; build: string; kind: 'status' };

export type HookServerAnswer =
  | { served: true; out: string[]; err: string[] }
  | { served: false; reason: string }
  | { served: false; reason: 'status'; status: HookServerStatus };

export interface HookServerStatus {
  pid: number;
  build: string;
  home: string;
  started_ms: number;
  /** Hooks answered since it started. */
  answered: number;
  idle_seconds: number;
}

/** The largest request a server reads: a prompt with a pasted file fits; anything larger is refused. */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

/**
 * What must be the same in the hook's process and the server's for the server's answer to be the hook's own:
 * the variables the process itself reads (the time zone, the home directory), beyond the environment passed.
 */
export const PROCESS_VARIABLES = ['TZ', 'HOME'] as const;

/** The home's hook server when one runs (its pid alive), for `moon status`; null otherwise. */
export function readRunningHookServer(home: string): { pid: number; started_ms: number } | null {
  const paths = hookServerPaths(home);
  const info = paths === null ? null : readHookServerInfo(paths.info);
  if (info === null) return null;
  try {
    process.kill(info.pid, 0);
  } catch (error) {
    // EPERM: alive, another user's (not this home's owner's server, but running).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  return { pid: info.pid, started_ms: info.started_ms };
}

