import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The moon home: `--home`, else $MOON_HOME, else `~/.moon`, made absolute. */
/** The home's folder for what runs in it now: the hook server's files, the foreground marks (0700). */
export function runDirOf(home: string): string {
  return join(home, 'run');
}

export function resolveHome(env: NodeJS.ProcessEnv = process.env, home?: string): string {
  return resolve(home ?? (env.MOON_HOME && env.MOON_HOME.trim() !== '' ? env.MOON_HOME : join(homedir(), '.moon')));
}
