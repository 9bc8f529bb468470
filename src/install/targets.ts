import { isAbsolute, join, resolve } from 'node:path';
import { MoonError } from '../errors.js';
import { type HookEvent, type MoonCommandLine, renderHookCommand, renderMcpCommand } from './commands.js';
import { chooseWiredHome } from './home.js';
import type { InstallHost } from './host.js';

export const AGENTS = ['claude-code', 'codex', 'openclaw'] as const;
export type AgentName = (typeof AGENTS)[number];
export type InstallScope = 'user' | 'project';

/** A key moon sets (the MCP server's entry). */
export interface KeyEntry {
  kind: 'key';
  path: string[];
  value: Record<string, unknown>;
}

/** A hook moon adds: one `{type: "command", command, timeout}` in a group of `hooks.<event>`. */
export interface HookEntry {
  kind: 'hook';
  /** The agent's event name (SessionStart, Stop, …). */
  event: string;
  moonEvent: HookEvent;
  matcher?: string;
  command: string;
  /** Seconds the agent gives the command before cancelling it. */
  timeout: number;
  /**
   * Claude Code's `"async": true`: the agent starts the command and goes on without waiting for it (it neither
   * reads its output nor enforces the timeout). For hooks that only capture; never for one that hands context.
   */
  async?: true;
}

export type Entry = KeyEntry | HookEntry;

/** One config file of one agent and what moon puts in it. */
export interface Target {
  agent: AgentName;
  scope: InstallScope;
  file: string;
  format: 'json' | 'json5' | 'toml';
  role: 'hooks' | 'mcp';
  entries: Entry[];
  /** The command line the entries run (its home: the one they name, null for the default). */
  line: MoonCommandLine;
  /** Mode of a file moon creates: private in the home, shareable in a project. */
  newFileMode: number;
}

/** Claude Code's hooks: context at the start (and after /clear and compaction), capture at stop, compaction and end. */
const CLAUDE_HOOKS: { event: string; moonEvent: HookEvent; matcher?: string; timeout: number; async?: true }[] = [
  { event: 'SessionStart', moonEvent: 'session-start', matcher: 'startup|resume|clear|compact', timeout: 10 },
  // After every turn: in the background, so a turn never waits on moon (the capture itself is detached too).
  // PreCompact stays blocking: its capture must land before the agent compacts.
  { event: 'Stop', moonEvent: 'stop', timeout: 30, async: true },
  { event: 'PreCompact', moonEvent: 'pre-compact', timeout: 60 },
  { event: 'SessionEnd', moonEvent: 'session-end', timeout: 5 },
];

/** Codex has no SessionEnd; its SessionStart sources are startup, resume and clear (compact where supported). */
const CODEX_HOOKS: { event: string; moonEvent: HookEvent; matcher?: string; timeout: number }[] = [
  { event: 'SessionStart', moonEvent: 'session-start', matcher: 'startup|resume|clear|compact', timeout: 10 },
  { event: 'Stop', moonEvent: 'stop', timeout: 30 },
  { event: 'PreCompact', moonEvent: 'pre-compact', timeout: 60 },
];

/** Seconds Codex waits for `moon mcp` to answer the handshake (its default is 10). */
export const CODEX_STARTUP_TIMEOUT_SEC = 30;

export function parseAgent(name: string): AgentName {
  if ((AGENTS as readonly string[]).includes(name)) return name as AgentName;
  throw new MoonError('bad_usage', `unknown agent "${name}": moon installs into ${AGENTS.join(', ')}`);
}

export function parseScope(name: string): InstallScope {
  if (name === 'user' || name === 'project') return name;
  throw new MoonError('bad_usage', `--scope must be user or project, got "${name}"`);
}

/**
 * The command line that wires this moon and moon home in. User scope: this node and this bin/moon.js, absolute, and
 * `--home` when the home is not the default. Project scope: files meant to be shared, so nothing of this machine —
 * `moon` on PATH, no home (run-install.ts refuses a project install from another home).
 */
export function describeCommandLine(scope: InstallScope, host: Pick<InstallHost, 'nodePath' | 'binPath' | 'homeDir'>, home: string): MoonCommandLine {
  if (scope === 'project') return { nodePath: null, binPath: null, home: null };
  return { nodePath: host.nodePath, binPath: host.binPath, home: chooseWiredHome(home, host.homeDir) };
}

/** The config files of `agent` at `scope`, each with the entries that wire this moon (and the moon home `home`) in. */
export function describeTargets(agent: AgentName, scope: InstallScope, host: InstallHost, home: string): Target[] {
  const line = describeCommandLine(scope, host, home);
  const mcp = renderMcpCommand(line);
  const hooks = (specs: typeof CLAUDE_HOOKS): HookEntry[] =>
    specs.map((spec) => ({ kind: 'hook', ...spec, command: renderHookCommand(line, spec.moonEvent) }));
  const mode = scope === 'user' ? 0o600 : 0o644;
  const files = locateAgentFiles(agent, scope, host);
  switch (agent) {
    case 'claude-code':
      return [
        { agent, scope, file: files.hooks!, format: 'json', role: 'hooks', entries: hooks(CLAUDE_HOOKS), line, newFileMode: mode },
        {
          agent,
          scope,
          file: files.mcp,
          format: 'json',
          role: 'mcp',
          entries: [{ kind: 'key', path: ['mcpServers', 'moon'], value: { type: 'stdio', command: mcp.command, args: mcp.args } }],
          line,
          newFileMode: mode,
        },
      ];
    case 'codex':
      return [
        {
          agent,
          scope,
          file: files.mcp,
          format: 'toml',
          role: 'mcp',
          entries: [{ kind: 'key', path: ['mcp_servers', 'moon'], value: { command: mcp.command, args: mcp.args, startup_timeout_sec: CODEX_STARTUP_TIMEOUT_SEC } }],
          line,
          newFileMode: mode,
        },
        { agent, scope, file: files.hooks!, format: 'json', role: 'hooks', entries: hooks(CODEX_HOOKS), line, newFileMode: mode },
      ];
    case 'openclaw':
      return [
        {
          agent,
          scope,
          file: files.mcp,
          format: 'json5',
          role: 'mcp',
          entries: [{ kind: 'key', path: ['mcp', 'servers', 'moon'], value: { command: mcp.command, args: mcp.args } }],
          line,
          newFileMode: mode,
        },
      ];
  }
}

/**
 * Where each agent reads its settings. Claude Code: ~/.claude/settings.json and ~/.claude.json
 * ($CLAUDE_CONFIG_DIR moves both), or .claude/settings.json and .mcp.json in the project. Codex: config.toml and
 * hooks.json in $CODEX_HOME (~/.codex), or in the project's .codex/. OpenClaw: $OPENCLAW_CONFIG_PATH, else
 * openclaw.json in $OPENCLAW_STATE_DIR, else ~/.openclaw ($OPENCLAW_HOME replacing the home); user scope only.
 */
export function locateAgentFiles(agent: AgentName, scope: InstallScope, host: Pick<InstallHost, 'homeDir' | 'cwd' | 'env'>): { hooks: string | null; mcp: string } {
  const env = (name: string): string | null => {
    const value = host.env[name]?.trim();
    return value && value !== 'undefined' && value !== 'null' ? value : null;
  };
  const expand = (path: string, home: string): string => resolve(host.cwd, path === '~' ? home : path.startsWith('~/') || path.startsWith('~\\') ? join(home, path.slice(2)) : path);
  if (scope === 'project') {
    if (!isAbsolute(host.cwd)) throw new MoonError('bad_usage', `the working directory must be an absolute path, got ${host.cwd}`);
    if (agent === 'claude-code') return { hooks: join(host.cwd, '.claude', 'settings.json'), mcp: join(host.cwd, '.mcp.json') };
    if (agent === 'codex') return { hooks: join(host.cwd, '.codex', 'hooks.json'), mcp: join(host.cwd, '.codex', 'config.toml') };
    throw new MoonError('bad_usage', 'OpenClaw reads its MCP servers from one file per user: install it with --scope user');
  }
  if (agent === 'claude-code') {
    const dir = env('CLAUDE_CONFIG_DIR');
    return dir
      ? { hooks: join(expand(dir, host.homeDir), 'settings.json'), mcp: join(expand(dir, host.homeDir), '.claude.json') }
      : { hooks: join(host.homeDir, '.claude', 'settings.json'), mcp: join(host.homeDir, '.claude.json') };
  }
  if (agent === 'codex') {
    const dir = env('CODEX_HOME') ? expand(env('CODEX_HOME')!, host.homeDir) : join(host.homeDir, '.codex');
    return { hooks: join(dir, 'hooks.json'), mcp: join(dir, 'config.toml') };
  }
  const home = env('OPENCLAW_HOME') ? expand(env('OPENCLAW_HOME')!, host.homeDir) : host.homeDir;
  const config = env('OPENCLAW_CONFIG_PATH');
  if (config) return { hooks: null, mcp: expand(config, home) };
  const state = env('OPENCLAW_STATE_DIR') ? expand(env('OPENCLAW_STATE_DIR')!, home) : join(home, '.openclaw');
  return { hooks: null, mcp: join(state, 'openclaw.json') };
}

/** Agent names as people write them. */
export function agentTitle(agent: AgentName): string {
  return agent === 'claude-code' ? 'Claude Code' : agent === 'codex' ? 'Codex' : 'OpenClaw';
}
