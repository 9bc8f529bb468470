import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CommandOutcome } from '../service/host.js';

/**
 * The machine an agent is wired on: the user's home, the working directory (project scope), the platform, the
 * environment (CODEX_HOME, OPENCLAW_CONFIG_PATH, …), this moon's command line, and a way to find and run other
 * programs (the `openclaw` CLI). Injected, so tests run against a temporary home with a runner that records.
 */
export interface InstallHost {
  platform: NodeJS.Platform;
  homeDir: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The node binary that runs moon (process.execPath). */
  nodePath: string;
  /** This package's bin/moon.js. */
  binPath: string;
  /** The absolute path of a program on PATH, or null. */
  which(program: string): string | null;
  run(command: string, args: readonly string[]): CommandOutcome;
}

export function createInstallHost(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): InstallHost {
  return {
    platform: process.platform,
    homeDir: env.HOME && env.HOME.trim() !== '' ? env.HOME : homedir(),
    cwd,
    env,
    nodePath: process.execPath,
    // src/install/ and dist/install/ both sit two folders below the package root.
    binPath: fileURLToPath(new URL('../../bin/moon.js', import.meta.url)),
    which: (program) => findOnPath(program, env, process.platform),
    run: runCommand,
  };
}

/** Where PATH finds `program` (with PATHEXT on Windows); null when it is not there. */
export function findOnPath(program: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string | null {
  const folders = (env.PATH ?? env.Path ?? '').split(platform === 'win32' ? ';' : delimiter).filter((folder) => isAbsolute(folder));
  const extensions = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').map((ext) => ext.toLowerCase())] : [''];
  for (const folder of folders) {
    for (const extension of extensions) {
      const candidate = join(folder, `${program}${extension}`);
      try {
        if (!statSync(candidate).isFile()) continue;
        if (platform !== 'win32') accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return null;
}

function runCommand(command: string, args: readonly string[]): CommandOutcome {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 60_000, shell: false });
  const missing = (result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? (result.error ? result.error.message : ''), missing };
}
