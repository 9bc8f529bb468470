import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CommandOutcome } from '../../src/service/host.js';
import { defaultMoonHome } from '../../src/install/home.js';
import type { InstallHost } from '../../src/install/host.js';
import { type AgentInstallReport, installAgent, uninstallAgent } from '../../src/install/run-install.js';
import type { AgentName, InstallScope } from '../../src/install/targets.js';

export const NODE = '/usr/local/bin/node';
export const BIN = '/opt/moon/bin/moon.js';

/** A machine with a temporary home: no `openclaw` on PATH unless given, every command run recorded. */
export function fakeHost(root: string, overrides: Partial<InstallHost> = {}): InstallHost & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    platform: 'linux',
    homeDir: join(root, 'home'),
    cwd: join(root, 'project'),
    env: {},
    nodePath: NODE,
    binPath: BIN,
    which: () => null,
    run: (command, args): CommandOutcome => {
      calls.push([command, ...args]);
      return { status: 0, stdout: '', stderr: '', missing: false };
    },
    ...overrides,
    calls,
  };
}

export function fixture(name: string): string {
  return readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');
}

export function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

export function read(path: string): string | null {
  return existsSync(path) ? readFileSync(path, 'utf8') : null;
}

/**
 * `moon install` with its ledger in `moonHome`. The home the commands are to use is `home`, by default the host's
 * default home (~/.moon), so the commands name none.
 */
export function install(host: InstallHost, agent: AgentName, options: { scope?: InstallScope; dryRun?: boolean; moonHome: string; home?: string }): AgentInstallReport {
  return installAgent(host, {
    agent,
    scope: options.scope ?? 'user',
    dryRun: options.dryRun ?? false,
    home: options.home ?? defaultMoonHome(host.homeDir),
    ledger: join(options.moonHome, 'state', 'installs.json'),
    nowMs: Date.UTC(2026, 0, 2),
  });
}

export function uninstall(host: InstallHost, agent: AgentName, options: { scope?: InstallScope; dryRun?: boolean; moonHome: string; home?: string }): AgentInstallReport {
  return uninstallAgent(host, {
    agent,
    scope: options.scope ?? 'user',
    dryRun: options.dryRun ?? false,
    home: options.home ?? defaultMoonHome(host.homeDir),
    ledger: join(options.moonHome, 'state', 'installs.json'),
  });
}

/** Every file under `dir` with its bytes, for "nothing changed" checks. */
export function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string): void => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    else out[path] = readFileSync(path, 'latin1');
  };
  walk(dir);
  return out;
}
