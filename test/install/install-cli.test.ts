import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { fixture, put, read, snapshotTree } from './helpers.js';

let root: string;
let cleanup: () => void;
beforeAll(() => {
  ({ path: root, cleanup } = makeTempDir('moon-install-cli-'));
});
afterAll(() => cleanup());

describe('moon install / uninstall (built CLI, temporary HOME)', () => {
  test('claude-code: --dry-run writes nothing; install, then uninstall gives back the same bytes', async () => {
    const home = join(root, 'a');
    const env = { HOME: home, MOON_HOME: join(root, 'a-moon') };
    const settings = join(home, '.claude', 'settings.json');
    put(settings, fixture('claude-settings.jsonc'));
    const before = snapshotTree(root);

    const dry = await spawnMoon(['install', 'claude-code', '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would edit ${settings}:`);
    expect(dry.stdout).toContain(`would create ${join(home, '.claude.json')}:`);
    expect(dry.stdout).toContain(`hook session-start`);
    expect(snapshotTree(root)).toEqual(before);

    const run = await spawnMoon(['install', 'claude-code'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`edited: ${settings}\n  added the SessionStart hook`);
    // MOON_HOME is not the default: every command names it.
    expect(read(settings)).toContain(`"\\"${process.execPath}\\" \\"${BIN}\\" --home \\"${env.MOON_HOME}\\" hook stop"`);
    expect(JSON.parse(read(join(home, '.claude.json'))!)).toEqual({ mcpServers: { moon: { type: 'stdio', command: process.execPath, args: [BIN, '--home', env.MOON_HOME, 'mcp'] } } });

    const undo = await spawnMoon(['uninstall', 'claude-code', '--json'], env);
    expect(undo.code, undo.stderr).toBe(0);
    const report = JSON.parse(undo.stdout) as { action: string; files: { change: string }[] };
    expect(report.action).toBe('uninstall');
    expect(report.files.map((file) => file.change)).toEqual(['restored', 'removed']);
    expect(read(settings)).toBe(fixture('claude-settings.jsonc'));
    expect(existsSync(join(home, '.claude.json'))).toBe(false);
  });

  test('codex: the trust note goes to stderr', async () => {
    const run = await spawnMoon(['install', 'codex'], { HOME: join(root, 'b'), MOON_HOME: join(root, 'b-moon') });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^note: Codex runs a new hook command only after you trust it/m);
    expect(read(join(root, 'b', '.codex', 'config.toml'))).toContain('[mcp_servers.moon]');
  });

  test('a malformed file exits 2 naming its line and column; an unknown agent exits 2', async () => {
    const home = join(root, 'c');
    put(join(home, '.openclaw', 'openclaw.json'), '{ mcp: { servers: { } }, oops }\n');
    const run = await spawnMoon(['install', 'openclaw'], { HOME: home, MOON_HOME: join(root, 'c-moon'), PATH: '/nonexistent' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`moon: ${join(home, '.openclaw', 'openclaw.json')}:1:31: not valid JSON5`);
    expect(run.stderr).toContain('nothing was written');
    const unknown = await spawnMoon(['install', 'cursor'], { HOME: home, MOON_HOME: join(root, 'c-moon') });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown agent "cursor": moon installs into claude-code, codex, openclaw');
  });
});
