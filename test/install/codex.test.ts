import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openDocument } from '../../src/install/run-install.js';
import { makeTempDir } from '../helpers/cli.js';
import { BIN, NODE, fakeHost, fixture, install, put, read, snapshotTree, uninstall } from './helpers.js';

let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ path: root, cleanup } = makeTempDir('moon-install-codex-'));
});
afterEach(() => cleanup());

describe('moon install codex', () => {
  test('[mcp_servers.moon] is appended to config.toml, hooks go into hooks.json; uninstall restores both byte for byte', () => {
    const host = fakeHost(root);
    const config = join(host.homeDir, '.codex', 'config.toml');
    const hooks = join(host.homeDir, '.codex', 'hooks.json');
    const configText = fixture('codex-config.toml').replace(/\n/g, '\r\n');
    put(config, configText);
    put(hooks, fixture('codex-hooks.json'));
    const moonHome = join(root, 'moon');

    const report = install(host, 'codex', { moonHome });
    expect(report.files.map((file) => [file.file, file.change])).toEqual([
      [config, 'edited'],
      [hooks, 'edited'],
    ]);
    expect(read(config)).toBe(`${configText}\r\n[mcp_servers.moon]\r\ncommand = "${NODE}"\r\nargs = ["${BIN}", "mcp"]\r\nstartup_timeout_sec = 30\r\n`);
    const doc = openDocument('json', hooks, read(hooks)!);
    expect(doc.get(['hooks', 'UserPromptSubmit'])).toEqual([{ hooks: [{ type: 'command', command: 'python3 ~/.codex/hooks/scan.py', timeout: 5 }] }]);
    expect(doc.get(['hooks', 'SessionStart'])).toEqual([
      { matcher: 'startup|resume|clear|compact', hooks: [{ type: 'command', command: `"${NODE}" "${BIN}" hook session-start`, timeout: 10 }] },
    ]);
    expect(doc.get(['hooks', 'Stop', 0, 'hooks', 0, 'command'])).toBe(`"${NODE}" "${BIN}" hook stop`);
    expect(doc.get(['hooks', 'PreCompact', 0, 'hooks', 0, 'command'])).toBe(`"${NODE}" "${BIN}" hook pre-compact`);
    expect(doc.get(['hooks', 'SessionEnd'])).toBeUndefined();
    // Tab-indented like the rest of the file.
    expect(read(hooks)).toContain('\t\t"SessionStart": [\n\t\t\t{\n\t\t\t\t"matcher"');
    expect(report.notes.join('\n')).toMatch(/Codex runs a new hook command only after you trust it/);

    expect(install(host, 'codex', { moonHome }).files.map((file) => file.change)).toEqual(['unchanged', 'unchanged']);
    const undo = uninstall(host, 'codex', { moonHome });
    expect(undo.files.map((file) => file.change)).toEqual(['restored', 'restored']);
    expect(read(config)).toBe(configText);
    expect(read(hooks)).toBe(fixture('codex-hooks.json'));
  });

  test('CODEX_HOME is honoured; files moon created go away again', () => {
    const host = fakeHost(root, { env: { CODEX_HOME: join(root, 'codex-home') } });
    install(host, 'codex', { moonHome: join(root, 'moon') });
    expect(read(join(root, 'codex-home', 'config.toml'))).toBe(`[mcp_servers.moon]\ncommand = "${NODE}"\nargs = ["${BIN}", "mcp"]\nstartup_timeout_sec = 30\n`);
    expect(existsSync(join(root, 'codex-home', 'hooks.json'))).toBe(true);
    uninstall(host, 'codex', { moonHome: join(root, 'moon') });
    expect(existsSync(join(root, 'codex-home'))).toBe(false);
  });

  test('after the user edits config.toml, uninstall cuts out moon’s table only', () => {
    const host = fakeHost(root);
    const moonHome = join(root, 'moon');
    const config = join(host.homeDir, '.codex', 'config.toml');
    put(config, fixture('codex-config.toml'));
    install(host, 'codex', { moonHome });
    const edited = read(config)!.replace('model = "gpt-5-codex"', 'model = "gpt-5.1-codex"') + '\n[tui]\nnotifications = true\n';
    put(config, edited);
    const report = uninstall(host, 'codex', { moonHome });
    expect(report.files[0]!.change).toBe('edited');
    expect(read(config)).toBe(`${fixture('codex-config.toml').replace('model = "gpt-5-codex"', 'model = "gpt-5.1-codex"')}\n[tui]\nnotifications = true\n`);
  });

  test('--dry-run prints the new table and hooks and changes nothing', () => {
    const host = fakeHost(root);
    put(join(host.homeDir, '.codex', 'config.toml'), fixture('codex-config.toml'));
    const before = snapshotTree(root);
    const report = install(host, 'codex', { moonHome: join(root, 'moon'), dryRun: true });
    expect(snapshotTree(root)).toEqual(before);
    expect(report.files[0]!.diff).toContain(`+[mcp_servers.moon]\n+command = "${NODE}"`);
    expect(report.files[1]!.change).toBe('created');
  });

  test('a malformed config.toml is refused with its line and column before hooks.json is touched', () => {
    const host = fakeHost(root);
    put(join(host.homeDir, '.codex', 'config.toml'), 'model = "o3"\napproval_policy = \n');
    expect(() => install(host, 'codex', { moonHome: join(root, 'moon') })).toThrow(/config\.toml:2:\d+: not valid TOML/);
    expect(existsSync(join(host.homeDir, '.codex', 'hooks.json'))).toBe(false);
  });

  test('--scope project writes .codex/config.toml and .codex/hooks.json in the working directory', () => {
    const host = fakeHost(root);
    const report = install(host, 'codex', { moonHome: join(root, 'moon'), scope: 'project' });
    expect(report.files.map((file) => file.file)).toEqual([join(host.cwd, '.codex', 'config.toml'), join(host.cwd, '.codex', 'hooks.json')]);
    expect(report.notes.join('\n')).toContain('only when you trust the project');
  });
});
