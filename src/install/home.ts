import { join, resolve } from 'node:path';
import { MoonError } from '../errors.js';

/**
 * The moon home a command gets when it names none and MOON_HOME is unset: `~/.moon`, as `resolveHome` in
 * src/config.ts defines it, with `~` the home of the machine the agent runs on.
 */
export function defaultMoonHome(homeDir: string): string {
  return join(homeDir, '.moon');
}

/**
 * The home the installed commands name with `--home`: null for the default home (left out, so the common case stays
 * a short line), else the absolute path of `home`.
 */
export function chooseWiredHome(home: string, homeDir: string): string | null {
  const absolute = resolve(home);
  return absolute === resolve(defaultMoonHome(homeDir)) ? null : absolute;
}

/**
 * A project's files are committed and shared: they cannot name one machine's moon home. Refuse a project-scope
 * install of `agent` from any home but the default.
 */
export function checkScopeHome(agent: string, scope: 'user' | 'project', home: string, homeDir: string): void {
  const wired = chooseWiredHome(home, homeDir);
  if (scope !== 'project' || wired === null) return;
  throw new MoonError(
    'bad_usage',
    `--scope project writes files meant to be committed and shared: they cannot name this machine's moon home ${wired} (the default, ${defaultMoonHome('~')}, is the only home they leave unnamed)`,
    {
      hint: `wire this home at user scope (\`moon install ${agent} --home ${wired}\`), or install the project from the default home and start the agent with MOON_HOME=${wired} in its environment`,
    },
  );
}
