import { existsSync } from 'node:fs';
import { join } from 'node:path';
import JSON5 from 'json5';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { CommandOutcome } from '../../src/service/host.js';
import { makeTempDir } from '../helpers/cli.js';
import { BIN, NODE, fakeHost, fixture, install, put, read, snapshotTree, uninstall } from './helpers.js';

let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ path: root, cleanup } = makeTempDir('moon-install-openclaw-'));
});
afterEach(() => cleanup());

const SERVER = { command: NODE, args: [BIN, 'mcp'] };

/** A stand-in for the `openclaw` CLI: `mcp set` and `mcp unset` rewrite the file as OpenClaw does (plain JSON). */
function openClawCli(file: string) {
  return (command: string, args: readonly string[]): CommandOutcome => {
    const data = (existsSync(file) ? JSON5.parse(read(file)!) : {}) as { mcp?: { servers?: Record<string, unknown> } };
    if (args[0] === 'mcp' && args[1] === 'set') {
      data.mcp = { ...data.mcp, servers: { ...data.mcp?.servers, [args[2]!]: JSON.parse(args[3]!) } };
    } else if (args[0] === 'mcp' && args[1] === 'unset') {
      delete data.mcp?.servers?.[args[2]!];
    } else return { status: 1, stdout: '', stderr: 'unknown command', missing: false };
    put(file, `${JSON.stringify(data, null, 2)}\n`);
    return { status: 0, stdout: '', stderr: '', missing: false };
  };
}

describe('moon install openclaw', () => {
  test('mcp.servers.moon goes into openclaw.json beside the other servers, comments kept; uninstall gives back the bytes', () => {
    const host = fakeHost(root);
    const file = join(host.homeDir, '.openclaw', 'openclaw.json');
    put(file, fixture('openclaw.json5'));
    const moonHome = join(root, 'moon');
    const report = install(host, 'openclaw', { moonHome });
    expect(report.files).toEqual([{ file, role: 'mcp', change: 'edited', done: ['added mcp.servers.moon'], diff: null }]);
    const written = read(file)!;
    expect(written).toContain(`      context7: { command: 'npx', args: ['-y', '@upstash/context7-mcp'], },\n      moon: {\n        command: "${NODE}",\n        args: ["${BIN}", "mcp"]\n      },\n    },\n`);
    expect((JSON5.parse(written) as { mcp: { servers: Record<string, unknown> } }).mcp.servers.moon).toEqual(SERVER);
    expect(install(host, 'openclaw', { moonHome }).files[0]!.change).toBe('unchanged');
    uninstall(host, 'openclaw', { moonHome });
    expect(read(file)).toBe(fixture('openclaw.json5'));
  });

  test('a file the user edited since loses moon’s server only', () => {
    const host = fakeHost(root);
    const file = join(host.homeDir, '.openclaw', 'openclaw.json');
    put(file, fixture('openclaw.json5'));
    install(host, 'openclaw', { moonHome: join(root, 'moon') });
    put(file, read(file)!.replace('enabled: true', 'enabled: false'));
    uninstall(host, 'openclaw', { moonHome: join(root, 'moon') });
    expect(read(file)).toBe(fixture('openclaw.json5').replace('enabled: true', 'enabled: false'));
  });

  test('with the openclaw CLI on PATH and no config yet, the CLI registers the server; uninstall removes the file it made', () => {
    const file = join(root, 'state', 'openclaw.json');
    const host = fakeHost(root, { env: { OPENCLAW_STATE_DIR: join(root, 'state') }, which: (name) => (name === 'openclaw' ? '/usr/bin/openclaw' : null) });
    host.run = (command, args) => {
      host.calls.push([command, ...args]);
      return openClawCli(file)(command, args);
    };
    const dry = install(host, 'openclaw', { moonHome: join(root, 'moon'), dryRun: true });
    expect(dry.commands).toEqual([{ command: `openclaw mcp set moon '${JSON.stringify(SERVER)}'`, state: 'planned' }]);
    expect(host.calls).toEqual([]);
    const report = install(host, 'openclaw', { moonHome: join(root, 'moon') });
    expect(host.calls).toEqual([['/usr/bin/openclaw', 'mcp', 'set', 'moon', JSON.stringify(SERVER)]]);
    expect(report.commands[0]!.state).toBe('ran');
    expect(JSON.parse(read(file)!)).toEqual({ mcp: { servers: { moon: SERVER } } });
    uninstall(host, 'openclaw', { moonHome: join(root, 'moon') });
    expect(existsSync(file)).toBe(false);
    expect(host.calls).toHaveLength(1);
  });

  test('a config in the CLI’s own layout goes through the CLI; edited since, uninstall runs `openclaw mcp unset moon`', () => {
    const file = join(root, 'home', '.openclaw', 'openclaw.json');
    const original = `${JSON.stringify({ gateway: { port: 18789 }, mcp: { servers: { docs: { url: 'https://mcp.example.com' } } } }, null, 2)}\n`;
    put(file, original);
    const host = fakeHost(root, { which: () => '/usr/bin/openclaw' });
    host.run = (command, args) => {
      host.calls.push([command, ...args]);
      return openClawCli(file)(command, args);
    };
    install(host, 'openclaw', { moonHome: join(root, 'moon') });
    put(file, read(file)!.replace('18789', '18790'));
    uninstall(host, 'openclaw', { moonHome: join(root, 'moon') });
    expect(host.calls.map((call) => call.slice(1, 3).join(' '))).toEqual(['mcp set', 'mcp unset']);
    expect(read(file)).toBe(original.replace('18789', '18790'));
  });

  test('a config with comments is edited in place even with the CLI there (the CLI would drop them)', () => {
    const file = join(root, 'home', '.openclaw', 'openclaw.json');
    put(file, fixture('openclaw.json5'));
    const host = fakeHost(root, { which: () => '/usr/bin/openclaw' });
    install(host, 'openclaw', { moonHome: join(root, 'moon') });
    expect(host.calls).toEqual([]);
    expect(read(file)).toContain('// docs lookups');
  });

  test('when `openclaw mcp set` fails, moon edits the file itself and says so', () => {
    const file = join(root, 'home', '.openclaw', 'openclaw.json');
    const host = fakeHost(root, { which: () => '/usr/bin/openclaw', run: () => ({ status: 1, stdout: '', stderr: 'error: unknown command "set"', missing: false }) });
    const report = install(host, 'openclaw', { moonHome: join(root, 'moon') });
    expect(report.notes[0]).toContain('`openclaw mcp set` failed (error: unknown command "set"); moon edited');
    expect(JSON5.parse(read(file)!)).toEqual({ mcp: { servers: { moon: SERVER } } });
  });

  test('a malformed openclaw.json is refused with its line and column; --scope project is refused', () => {
    const host = fakeHost(root);
    const file = join(host.homeDir, '.openclaw', 'openclaw.json');
    put(file, '{\n  mcp: { servers: {} },\n  gateway: { port: 18789 \n}\n');
    const before = snapshotTree(root);
    expect(() => install(host, 'openclaw', { moonHome: join(root, 'moon') })).toThrow(/openclaw\.json:5:1: not valid JSON5/);
    expect(snapshotTree(root)).toEqual(before);
    expect(() => install(host, 'openclaw', { moonHome: join(root, 'moon'), scope: 'project' })).toThrow(/--scope user/);
  });
});
