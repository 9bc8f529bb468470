import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';

/** What a command of the service manager (systemctl, launchctl) did. */
export interface CommandOutcome {
  /** Exit status; null when it did not run to an exit (missing, or killed). */
  status: number | null;
  stdout: string;
  stderr: string;
  /** The program is not installed (not on PATH). */
  missing: boolean;
}

/**
 * The machine a service is installed on: its platform, the user's home and id, and a way to run the OS service
 * manager. Injected, so both platforms are tested anywhere with a temporary home and a runner that records.
 */
export interface ServiceHost {
  platform: NodeJS.Platform;
  homeDir: string;
  uid: number;
  /** For XDG_CONFIG_HOME, where systemd looks for user units. */
  env: NodeJS.ProcessEnv;
  nodePath: string;
  binPath: string;
  run(command: string, args: readonly string[]): CommandOutcome;
}

/** This machine: the running node binary, this package's bin/moon.js, and the real service manager. */
export function createServiceHost(env: NodeJS.ProcessEnv = process.env): ServiceHost {
  return {
    platform: process.platform,
    homeDir: env.HOME && env.HOME.trim() !== '' ? env.HOME : homedir(),
    uid: process.getuid?.() ?? 0,
    env,
    nodePath: process.execPath,
    // src/service/ and dist/service/ both sit two folders below the package root.
    binPath: fileURLToPath(new URL('../../bin/moon.js', import.meta.url)),
    run: runCommand,
  };
}

function runCommand(command: string, args: readonly string[]): CommandOutcome {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 60_000 });
  const missing = (result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? (result.error ? result.error.message : ''), missing };
}
