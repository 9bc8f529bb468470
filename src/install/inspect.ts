import { existsSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describeError, isMoonError } from '../errors.js';
import { type HookEvent, type MoonCommandLine, type MoonHookCommand, parseMoonHookCommand, readServerHome, renderHookCommand, renderMcpCommand } from './commands.js';
import { deepEqual, describePath, isPlainObject } from './document.js';
import { findMoonHooks } from './entries.js';
import { readCurrent } from './files.js';
import { defaultMoonHome } from './home.js';
import type { InstallHost } from './host.js';
import { readLedger } from './ledger.js';
import { openDocument } from './run-install.js';
import { AGENTS, type AgentName, type InstallScope, describeTargets } from './targets.js';

/** One entry moon installs, as found in the agent's file. */
export interface EntryState {
  /** `SessionStart hook`, `mcpServers.moon`. */
  label: string;
  /** ok: there, running this moon; elsewhere: there, running another moon (`found`); missing: not there. */
  state: 'ok' | 'elsewhere' | 'missing';
  found?: string;
  /** ok: the moon home the entry names (absolute, symlinks resolved), null when it names none. */
  home?: string | null;
}

export interface FileState {
  file: string;
  role: 'hooks' | 'mcp';
  exists: boolean;
  /** The file cannot be read or parsed: the message (with line and column). */
  error?: string;
  entries: EntryState[];
}

/** What moon finds of itself in one agent's config, for `moon doctor`. */
export interface AgentRegistration {
  agent: AgentName;
  scope: InstallScope;
  /** `moon install` recorded an install of this agent and scope (in this moon home). */
  installed: boolean;
  /** The agent seems to be used on this machine: its config folder or file exists. */
  present: boolean;
  files: FileState[];
  /** Codex: hooks are turned off in config.toml ([features] hooks = false). */
  hooksDisabled?: boolean;
  /** The moon home doctor checks, and the one an entry naming none uses (~/.moon): absolute, symlinks resolved. */
  homes: { moon: string; default: string };
}

/**
 * Every agent at user scope, and at project scope for the working directory when moon was installed there, as
 * seen from the moon home `home` (its ledger is `ledger`).
 */
export function inspectRegistrations(host: InstallHost, ledger: string, home: string): AgentRegistration[] {
  const homes = { moon: realPath(resolve(home)), default: realPath(defaultMoonHome(host.homeDir)) };
  const namedHome = (named: string | null): string | null => (named === null ? null : realPath(resolve(host.cwd, named)));
  let records: ReturnType<typeof readLedger> = [];
  try {
    records = readLedger(ledger);
  } catch {
    records = [];
  }
  const out: AgentRegistration[] = [];
  for (const agent of AGENTS) {
    for (const scope of ['user', 'project'] as const) {
      if (scope === 'project' && agent === 'openclaw') continue;
      let targets: ReturnType<typeof describeTargets>;
      try {
        targets = describeTargets(agent, scope, host, home);
      } catch (error) {
        // This moon's own command line cannot be written (a path a shell would read): say so once per agent.
        if (scope === 'user') out.push({ agent, scope, installed: false, present: true, homes, files: [{ file: host.binPath, role: 'hooks', exists: true, error: describeError(error), entries: [] }] });
        continue;
      }
      const files = targets.map((target) => realPath(target.file));
      const installed = records.some((record) => record.agent === agent && record.scope === scope && files.includes(record.file));
      if (scope === 'project' && !installed) continue;
      const states = targets.map((target): FileState => {
        const state: FileState = { file: realPath(target.file), role: target.role, exists: false, entries: [] };
        let doc: ReturnType<typeof openDocument> | null = null;
        try {
          const current = readCurrent(target.file);
          state.exists = current.exists;
          if (current.exists) doc = openDocument(target.format, current.file, current.text);
        } catch (error) {
          state.exists = true;
          state.error = isMoonError(error) ? error.message : describeError(error);
        }
        for (const entry of target.entries) {
          if (entry.kind === 'key') {
            const value = doc?.get(entry.path);
            const label = describePath(entry.path);
            const server = isPlainObject(value) ? readServerHome(value) : null;
            const expected = renderMcpCommand({ ...target.line, home: null });
            if (value === undefined) state.entries.push({ label, state: 'missing' });
            else if (server && (value as Record<string, unknown>).command === expected.command && deepEqual(server.args, expected.args)) {
              state.entries.push({ label, state: 'ok', home: namedHome(server.home) });
            } else state.entries.push({ label, state: 'elsewhere', found: describeServer(value) });
          } else {
            const label = `${entry.event} hook`;
            const found = doc ? findMoonHooks(doc, entry.event).filter((hook) => parseMoonHookCommand(hook.command)?.event === entry.moonEvent) : [];
            const mine = found.map((hook) => readThisMoonsHook(hook.command, target.line)).find((hook) => hook !== null);
            if (mine) state.entries.push({ label, state: 'ok', home: namedHome(mine.home) });
            else if (found.length > 0) state.entries.push({ label, state: 'elsewhere', found: found[0]!.command });
            else state.entries.push({ label, state: 'missing' });
          }
        }
        return state;
      });
      const registration: AgentRegistration = { agent, scope, installed, present: isPresent(targets.map((target) => target.file)), files: states, homes };
      if (agent === 'codex') {
        const config = states.find((state) => state.role === 'mcp');
        try {
          const current = config ? readCurrent(config.file) : null;
          const features = current?.exists ? openDocument('toml', current.file, current.text).get(['features']) : undefined;
          if (isPlainObject(features) && (features.hooks === false || features.codex_hooks === false)) registration.hooksDisabled = true;
        } catch {
          // reported as the file's error
        }
      }
      out.push(registration);
    }
  }
  return out;
}

/** The hook command as read, when it is the one moon writes for this node and bin/moon.js (or `moon` on PATH), whatever home it names. */
function readThisMoonsHook(command: string, line: MoonCommandLine): MoonHookCommand | null {
  const parsed = parseMoonHookCommand(command);
  if (!parsed) return null;
  try {
    return command === renderHookCommand({ ...line, home: parsed.home }, parsed.event as HookEvent) ? parsed : null;
  } catch {
    return null;
  }
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function describeServer(value: unknown): string {
  if (!isPlainObject(value)) return JSON.stringify(value);
  const args = Array.isArray(value.args) ? value.args.map(String) : [];
  return [String(value.command ?? value.url ?? '?'), ...args].join(' ');
}

/** The agent's own folder is there (~/.claude, ~/.codex, ~/.openclaw: the first file's folder), or one of its files. */
function isPresent(files: string[]): boolean {
  return files.some((file) => existsSync(file)) || (files[0] !== undefined && existsSync(dirname(files[0])));
}
