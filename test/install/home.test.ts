import { join } from 'node:path';
import fc from 'fast-check';
import JSON5 from 'json5';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { MoonError } from '../../src/errors.js';
import { type HookEvent, parseMoonHookCommand, readServerHome, renderHookCommand, renderMcpCommand } from '../../src/install/commands.js';
import { defaultMoonHome } from '../../src/install/home.js';
import type { AgentName } from '../../src/install/targets.js';
import { makeTempDir } from '../helpers/cli.js';
import { BIN, NODE, fakeHost, fixture, install, put, read, snapshotTree, uninstall } from './helpers.js';

let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ path: root, cleanup } = makeTempDir('moon-install-home-'));
});
afterEach(() => cleanup());

/** Every string in a parsed config file. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

function parseFile(path: string): Record<string, unknown> {
  const text = read(path);
  if (text === null) throw new Error(`${path} was not written`);
  return (path.endsWith('.toml') ? parseToml(text) : JSON5.parse(text)) as Record<string, unknown>;
}

function get(tree: Record<string, unknown>, path: string[]): unknown {
  return path.reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), tree);
}

interface AgentFiles {
  /** Files moon edits, with the content each starts from (null: no file). */
  start: [string, string | null][];
  hooks: string | null;
  hookCount: number;
  mcp: { file: string; path: string[] };
}

function filesOf(agent: AgentName, homeDir: string): AgentFiles {
  switch (agent) {
    case 'claude-code':
      return {
        start: [
          [join(homeDir, '.claude', 'settings.json'), fixture('claude-settings.jsonc')],
          [join(homeDir, '.claude.json'), fixture('claude-state.json')],
        ],
        hooks: join(homeDir, '.claude', 'settings.json'),
        hookCount: 4,
        mcp: { file: join(homeDir, '.claude.json'), path: ['mcpServers', 'moon'] },
      };
    case 'codex':
      return {
        start: [
          [join(homeDir, '.codex', 'config.toml'), fixture('codex-config.toml')],
          [join(homeDir, '.codex', 'hooks.json'), fixture('codex-hooks.json')],
        ],
        hooks: join(homeDir, '.codex', 'hooks.json'),
        hookCount: 3,
        mcp: { file: join(homeDir, '.codex', 'config.toml'), path: ['mcp_servers', 'moon'] },
      };
    case 'openclaw':
      return {
        start: [[join(homeDir, '.openclaw', 'openclaw.json'), fixture('openclaw.json5')]],
        hooks: null,
        hookCount: 0,
        mcp: { file: join(homeDir, '.openclaw', 'openclaw.json'), path: ['mcp', 'servers', 'moon'] },
      };
  }
}

/** The home each moon hook command and the MCP server entry name (null: none), as written in the agent's files. */
function wiredHomes(files: AgentFiles): { hooks: (string | null)[]; server: string | null } {
  const hooks = files.hooks === null ? [] : strings(parseFile(files.hooks)).flatMap((text) => parseMoonHookCommand(text) ?? []);
  expect(hooks.map((hook) => [hook.nodePath, hook.binPath])).toEqual(Array.from({ length: files.hookCount }, () => [NODE, BIN]));
  const server = get(parseFile(files.mcp.file), files.mcp.path) as { command: string; args: string[] };
  expect(server.command).toBe(NODE);
  expect(server.args[0]).toBe(BIN);
  expect(server.args.at(-1)).toBe('mcp');
  return { hooks: hooks.map((hook) => hook.home), server: readServerHome(server).home };
}

describe('the installed commands carry the moon home', () => {
  test('a hook command names the home it was rendered with, and reads back as moon’s, for any home a shell leaves alone', () => {
    const safe = fc.stringMatching(/^[A-Za-z0-9 ._()\-/\\:~é]{1,40}$/).filter((text) => text.trim() !== '');
    const events = fc.constantFrom<HookEvent>('session-start', 'stop', 'pre-compact', 'session-end');
    fc.assert(
      fc.property(safe, fc.option(safe, { nil: null }), events, fc.boolean(), (dir, home, event, portable) => {
        const line = portable ? { nodePath: null, binPath: null, home } : { nodePath: NODE, binPath: `${dir}/bin/moon.js`, home };
        const parsed = parseMoonHookCommand(renderHookCommand(line, event));
        expect(parsed).toEqual({ nodePath: line.nodePath, binPath: line.binPath, home, event });
        const server = renderMcpCommand(line);
        expect(readServerHome(server)).toEqual({ args: portable ? ['mcp'] : [line.binPath, 'mcp'], home });
      }),
    );
    // `--home=DIR` and a hand-written env entry are read too; --home wins over env, as on the command line.
    expect(parseMoonHookCommand('moon --home=/srv/moon hook stop')).toEqual({ nodePath: null, binPath: null, home: '/srv/moon', event: 'stop' });
    expect(parseMoonHookCommand('moon --home /a --home /b hook stop')).toBeNull();
    expect(readServerHome({ args: ['mcp'], env: { MOON_HOME: '/srv/moon' } }).home).toBe('/srv/moon');
    expect(readServerHome({ args: ['--home', '/a', 'mcp'], env: { MOON_HOME: '/b' } }).home).toBe('/a');
  });

  for (const agent of ['claude-code', 'codex', 'openclaw'] as const) {
    test(`${agent}: every hook and the server name a home that is not the default, none the default; a switch of homes re-points them and each uninstall gives back the bytes`, () => {
      const host = fakeHost(root);
      const files = filesOf(agent, host.homeDir);
      for (const [file, text] of files.start) if (text !== null) put(file, text);
      const before = snapshotTree(host.homeDir);
      const homeA = join(root, 'moon-a');
      const homeB = join(root, 'moon-b');

      install(host, agent, { moonHome: homeA, home: homeA });
      const afterA = snapshotTree(host.homeDir);
      expect(wiredHomes(files)).toEqual({ hooks: Array.from({ length: files.hookCount }, () => homeA), server: homeA });

      // Another home: the same entries, pointed at it (not added twice).
      const report = install(host, agent, { moonHome: homeB, home: homeB });
      expect(report.files.every((file) => file.change === 'edited')).toBe(true);
      expect(report.notes.join('\n')).toContain(`use the moon home ${homeB}`);
      expect(wiredHomes(files)).toEqual({ hooks: Array.from({ length: files.hookCount }, () => homeB), server: homeB });

      uninstall(host, agent, { moonHome: homeB, home: homeB });
      expect(snapshotTree(host.homeDir)).toEqual(afterA);
      uninstall(host, agent, { moonHome: homeA, home: homeA });
      expect(snapshotTree(host.homeDir)).toEqual(before);

      // The default home is left out of every command.
      install(host, agent, { moonHome: join(root, 'moon-default'), home: defaultMoonHome(host.homeDir) });
      expect(wiredHomes(files)).toEqual({ hooks: Array.from({ length: files.hookCount }, () => null), server: null });
      for (const file of files.start.map(([path]) => path)) expect(read(file)).not.toContain('--home');
    });
  }

  test('a home whose path a shell would read is refused for hook commands, naming the home; nothing is written', () => {
    const host = fakeHost(root);
    const before = snapshotTree(root);
    const home = join(root, '$HOME-moon');
    let error: unknown;
    try {
      install(host, 'claude-code', { moonHome: join(root, 'ledger'), home });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(MoonError);
    expect((error as MoonError).message).toBe(`cannot write a hook command for the moon home ${JSON.stringify(home)}: it holds a character a shell would interpret`);
    expect(snapshotTree(root)).toEqual(before);
  });
});

describe('--scope project writes portable commands only', () => {
  for (const agent of ['claude-code', 'codex'] as const) {
    test(`${agent}: no absolute path of this machine in the written files, \`moon\` from PATH, and the note says what teammates need`, () => {
      const host = fakeHost(root);
      const report = install(host, agent, { moonHome: join(root, 'moon'), scope: 'project' });
      const written = report.files.map((file) => file.file);
      expect(written.length).toBe(2);
      for (const file of written) {
        const values = strings(parseFile(file));
        expect(values.length).toBeGreaterThan(0);
        expect(values.filter((value) => /^([/\\]|[A-Za-z]:[/\\])/.test(value) || /["\s][/\\]/.test(value)), file).toEqual([]);
        expect(read(file)).not.toContain(NODE);
        expect(read(file)).not.toContain(BIN);
        expect(read(file)).not.toContain('--home');
      }
      const hooks = strings(parseFile(written.find((file) => file.endsWith('.json') && !file.endsWith('.mcp.json'))!)).flatMap((text) => parseMoonHookCommand(text) ?? []);
      expect(hooks.length).toBe(agent === 'claude-code' ? 4 : 3);
      expect(hooks.every((hook) => hook.nodePath === null && hook.binPath === null && hook.home === null)).toBe(true);
      expect(report.notes.join('\n')).toMatch(/each teammate needs `moon` on PATH/);
      // fakeHost finds nothing on PATH: this machine lacks `moon` there too.
      expect(report.notes.join('\n')).toContain('`moon` is not on PATH on this machine either');
    });
  }

  test('a home other than the default is refused: a bad_usage error that says why and what to do, nothing written', () => {
    const host = fakeHost(root);
    const before = snapshotTree(root);
    const home = join(root, 'moon-a');
    let error: unknown;
    try {
      install(host, 'claude-code', { moonHome: home, home, scope: 'project' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(MoonError);
    expect((error as MoonError).code).toBe('bad_usage');
    expect((error as MoonError).message).toContain(`cannot name this machine's moon home ${home}`);
    expect((error as MoonError).hint).toContain(`moon install claude-code --home ${home}`);
    expect((error as MoonError).hint).toContain(`MOON_HOME=${home}`);
    expect(snapshotTree(root)).toEqual(before);
  });
});
