import { existsSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { MoonError } from '../../src/errors.js';
import { makeTempDir } from '../helpers/cli.js';
import { BIN, NODE, fakeHost, fixture, install, put, read, snapshotTree, uninstall } from './helpers.js';

let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ path: root, cleanup } = makeTempDir('moon-install-claude-'));
});
afterEach(() => cleanup());

const hook = (event: string): string => `"${NODE}" "${BIN}" hook ${event}`;

describe('moon install claude-code', () => {
  test('hooks go into ~/.claude/settings.json and the server into ~/.claude.json; uninstall gives back the same bytes', () => {
    const host = fakeHost(root);
    const settings = join(host.homeDir, '.claude', 'settings.json');
    const state = join(host.homeDir, '.claude.json');
    const settingsText = fixture('claude-settings.jsonc').replace(/\n/g, '\r\n');
    put(settings, settingsText);
    put(state, fixture('claude-state.json'));
    const moonHome = join(root, 'moon');

    const report = install(host, 'claude-code', { moonHome });
    expect(report.files.map((file) => [file.file, file.change])).toEqual([
      [settings, 'edited'],
      [state, 'edited'],
    ]);
    const data = JSON.parse(readFileSync(state, 'utf8')) as { mcpServers: Record<string, unknown>; numStartups: number };
    expect(data.mcpServers.moon).toEqual({ type: 'stdio', command: NODE, args: [BIN, 'mcp'] });
    expect(Object.keys(data.mcpServers)).toEqual(['github', 'moon']);
    const written = read(settings)!;
    // The user's Stop hook is first and untouched; moon's is a group of its own after it, run in the background.
    expect(written).toContain(`"hooks": [{ "type": "command", "command": "osascript -e 'display notification \\"done\\"'" }]\r\n      },\r\n      {\r\n        "hooks": [\r\n          {\r\n            "type": "command",\r\n            "command": ${JSON.stringify(hook('stop'))},\r\n            "timeout": 30,\r\n            "async": true\r\n          }`);
    expect(written).toContain(`"SessionStart": [\r\n      {\r\n        "matcher": "startup|resume|clear|compact",\r\n        "hooks": [\r\n          {\r\n            "type": "command",\r\n            "command": ${JSON.stringify(hook('session-start'))}`);
    expect(written).toContain(JSON.stringify(hook('pre-compact')));
    expect(written).toContain(JSON.stringify(hook('session-end')));
    expect(written).toContain('// tell me when Claude is done');
    expect(written).toContain('"model": "opus", /* the big one */');

    uninstall(host, 'claude-code', { moonHome });
    expect(read(settings)).toBe(settingsText);
    expect(read(state)).toBe(fixture('claude-state.json'));
  });

  test('installing twice adds nothing; files moon created are removed again, with the folder it made', () => {
    const host = fakeHost(root);
    const moonHome = join(root, 'moon');
    install(host, 'claude-code', { moonHome });
    const settings = join(host.homeDir, '.claude', 'settings.json');
    const first = snapshotTree(host.homeDir);
    expect(statSync(settings).mode & 0o777).toBe(0o600);

    const again = install(host, 'claude-code', { moonHome });
    expect(again.files.map((file) => file.change)).toEqual(['unchanged', 'unchanged']);
    expect(snapshotTree(host.homeDir)).toEqual(first);

    uninstall(host, 'claude-code', { moonHome });
    expect(existsSync(settings)).toBe(false);
    expect(existsSync(join(host.homeDir, '.claude'))).toBe(false);
    expect(existsSync(join(host.homeDir, '.claude.json'))).toBe(false);
  });

  test('--dry-run shows the diff and the new file, and writes nothing', () => {
    const host = fakeHost(root);
    const settings = join(host.homeDir, '.claude', 'settings.json');
    put(settings, fixture('claude-settings.jsonc'));
    const before = snapshotTree(root);
    const report = install(host, 'claude-code', { moonHome: join(root, 'moon'), dryRun: true });
    expect(snapshotTree(root)).toEqual(before);
    expect(report.files[0]!.diff).toMatch(/^--- .*settings\.json\n\+\+\+ .*settings\.json\n@@ /);
    expect(report.files[0]!.diff).toContain(`+            "command": ${JSON.stringify(hook('stop'))},`);
    expect(report.files[1]!.change).toBe('created');
    expect(report.files[1]!.diff).toContain('"moon": {');
    expect(uninstall(host, 'claude-code', { moonHome: join(root, 'moon'), dryRun: true }).files.every((file) => file.change === 'not installed')).toBe(true);
  });

  test('after the user edits the file, uninstall removes only moon’s entries and keeps the edits', () => {
    const host = fakeHost(root);
    const moonHome = join(root, 'moon');
    const settings = join(host.homeDir, '.claude', 'settings.json');
    const state = join(host.homeDir, '.claude.json');
    const original = fixture('claude-settings.jsonc');
    put(settings, original);
    put(state, fixture('claude-state.json'));
    install(host, 'claude-code', { moonHome });
    // Claude Code rewrites ~/.claude.json all the time; the user adds a hook of their own to the SessionStart list.
    put(state, read(state)!.replace('"numStartups": 42', '"numStartups": 43'));
    const withMine = read(settings)!.replace(
      '"matcher": "startup|resume|clear|compact",',
      '"matcher": "startup",\n        "hooks": [{ "type": "command", "command": "echo hi" }]\n      },\n      {\n        "matcher": "startup|resume|clear|compact",',
    );
    put(settings, withMine);

    const report = uninstall(host, 'claude-code', { moonHome });
    expect(report.files.map((file) => file.change)).toEqual(['edited', 'edited']);
    expect(read(state)).toBe(fixture('claude-state.json').replace('"numStartups": 42', '"numStartups": 43'));
    const after = read(settings)!;
    expect(after).not.toContain('moon.js');
    expect(after).toContain('"SessionStart": [\n      {\n        "matcher": "startup",\n        "hooks": [{ "type": "command", "command": "echo hi" }]\n      }\n    ]\n  },');
    // Everything else is the original text.
    expect(after.replace(/,\n    "SessionStart": \[[\s\S]*?\n    \]/, '')).toBe(original);
  });

  test('--scope project writes .claude/settings.json and .mcp.json in the working directory', () => {
    const host = fakeHost(root);
    const moonHome = join(root, 'moon');
    const report = install(host, 'claude-code', { moonHome, scope: 'project' });
    expect(report.files.map((file) => file.file)).toEqual([join(host.cwd, '.claude', 'settings.json'), join(host.cwd, '.mcp.json')]);
    expect(statSync(join(host.cwd, '.mcp.json')).mode & 0o777).toBe(0o644);
    // Files meant to be shared: `moon` from PATH, not this machine's node and bin/moon.js.
    expect(JSON.parse(read(join(host.cwd, '.mcp.json'))!)).toEqual({ mcpServers: { moon: { type: 'stdio', command: 'moon', args: ['mcp'] } } });
    expect(read(join(host.cwd, '.claude', 'settings.json'))).toContain('"command": "moon hook stop"');
    expect(report.notes.join('\n')).toContain('approve the project’s MCP servers');
    // The user scope is another install: uninstalling it leaves the project alone.
    expect(uninstall(host, 'claude-code', { moonHome }).files.every((file) => file.change === 'not installed')).toBe(true);
    uninstall(host, 'claude-code', { moonHome, scope: 'project' });
    expect(existsSync(join(host.cwd, '.mcp.json'))).toBe(false);
  });

  test('hooks of a moon at another path are re-pointed here, and pointed back on uninstall', () => {
    const host = fakeHost(root);
    const settings = join(host.homeDir, '.claude', 'settings.json');
    const old = `"/usr/bin/node" "/old/lib/node_modules/moon-memory/bin/moon.js" hook stop`;
    const text = `{\n  "hooks": {\n    "Stop": [\n      { "hooks": [{ "type": "command", "command": ${JSON.stringify(old)} }] }\n    ]\n  }\n}\n`;
    put(settings, text);
    const report = install(host, 'claude-code', { moonHome: join(root, 'moon') });
    expect(report.files[0]!.done).toContain('pointed the Stop hook at this moon');
    const written = read(settings)!;
    expect(written.match(/hook stop/g)).toHaveLength(1);
    expect(written).toContain(JSON.stringify(hook('stop')));
    put(settings, `${written}\n`);
    uninstall(host, 'claude-code', { moonHome: join(root, 'moon') });
    expect(read(settings)).toBe(`${text}\n`);
  });

  test('a malformed settings file is refused with its line and column, and nothing is written', () => {
    const host = fakeHost(root);
    const settings = join(host.homeDir, '.claude', 'settings.json');
    put(settings, '{\n  "model": "opus"\n  "hooks": {}\n}\n');
    const before = snapshotTree(root);
    let error: unknown;
    try {
      install(host, 'claude-code', { moonHome: join(root, 'moon') });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(MoonError);
    expect((error as MoonError).message).toBe(`${settings}:3:3: not valid JSON (comma expected)`);
    expect((error as MoonError).exitCode).toBe(2);
    expect(snapshotTree(root)).toEqual(before);
  });

  test('hooks that are not an object are refused naming the key', () => {
    const host = fakeHost(root);
    put(join(host.homeDir, '.claude', 'settings.json'), '{ "hooks": [] }');
    expect(() => install(host, 'claude-code', { moonHome: join(root, 'moon') })).toThrow(/settings\.json: hooks should be an object of event names/);
    expect(existsSync(join(host.homeDir, '.claude.json'))).toBe(false);
  });

  test('CLAUDE_CONFIG_DIR moves both files; a symlinked settings file is edited where it lives', () => {
    const host = fakeHost(root, { env: { CLAUDE_CONFIG_DIR: join(root, 'alt') } });
    const real = join(root, 'dotfiles', 'settings.json');
    put(real, '{}\n');
    put(join(root, 'alt', '.keep'), '');
    symlinkSync(real, join(root, 'alt', 'settings.json'));
    const report = install(host, 'claude-code', { moonHome: join(root, 'moon') });
    expect(report.files.map((file) => file.file)).toEqual([real, join(root, 'alt', '.claude.json')]);
    expect(read(real)).toContain('hook session-start');
    uninstall(host, 'claude-code', { moonHome: join(root, 'moon') });
    expect(read(real)).toBe('{}\n');
  });
});

describe('install after the user edited the file, then uninstall', () => {
  test('a hook the user deleted comes back; uninstall then keeps the user’s edits and leaves no moon entry', () => {
    const host = fakeHost(root);
    const moonHome = join(root, 'moon');
    const settings = join(host.homeDir, '.claude', 'settings.json');
    const original = fixture('claude-settings.jsonc');
    put(settings, original);
    install(host, 'claude-code', { moonHome });
    // The user removes moon's Stop group by hand and switches the model.
    const stopGroup = `,\n      {\n        "hooks": [\n          {\n            "type": "command",\n            "command": ${JSON.stringify(hook('stop'))},\n            "timeout": 30,\n            "async": true\n          }\n        ]\n      }`;
    const edited = read(settings)!;
    expect(edited).toContain(stopGroup);
    put(settings, edited.replace(stopGroup, '').replace('"model": "opus"', '"model": "sonnet"'));

    const again = install(host, 'claude-code', { moonHome });
    expect(again.files[0]!.done).toEqual(['added the Stop hook']);
    expect(read(settings)).toContain(stopGroup);

    uninstall(host, 'claude-code', { moonHome });
    expect(read(settings)).toBe(original.replace('"model": "opus"', '"model": "sonnet"'));
  });

  test('a handler the user put into moon’s group stays; moon’s handler goes', () => {
    const host = fakeHost(root);
    const moonHome = join(root, 'moon');
    const settings = join(host.homeDir, '.claude', 'settings.json');
    put(settings, '{\n  "hooks": {\n    "Stop": []\n  }\n}\n');
    install(host, 'claude-code', { moonHome });
    const withMine = read(settings)!.replace(`"async": true\n          }`, `"async": true\n          },\n          { "type": "command", "command": "say stopped" }`);
    expect(withMine).toContain('say stopped');
    put(settings, withMine);
    uninstall(host, 'claude-code', { moonHome });
    const after = JSON.parse(read(settings)!) as unknown;
    expect(after).toEqual({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say stopped' }] }] } });
  });
});

describe('an install from before the Stop hook ran in the background', () => {
  test('is upgraded in place by the next install (async added, nothing else), once; uninstall still takes it out', () => {
    const host = fakeHost(root);
    const moonHome = join(root, 'moon');
    const settings = join(host.homeDir, '.claude', 'settings.json');
    install(host, 'claude-code', { moonHome });
    const current = read(settings)!;
    // What an older moon wrote: the same handler without "async".
    const older = current.replace(',\n            "async": true', '');
    expect(older).not.toContain('"async"');
    put(settings, older);
    const upgraded = install(host, 'claude-code', { moonHome });
    expect(upgraded.files[0]!.done).toEqual(['made the Stop hook run in the background']);
    const parsed = JSON.parse(read(settings)!) as { hooks: Record<string, { hooks: Record<string, unknown>[] }[]> };
    const stop = parsed.hooks.Stop!.flatMap((group) => group.hooks);
    expect(stop).toHaveLength(1);
    expect(stop[0]).toMatchObject({ type: 'command', command: hook('stop'), timeout: 30, async: true });
    // Hooks that hand the agent context, or must finish before it goes on, stay blocking.
    for (const event of ['SessionStart', 'PreCompact', 'SessionEnd']) {
      for (const handler of parsed.hooks[event]!.flatMap((group) => group.hooks)) expect(handler.async, event).toBeUndefined();
    }
    const again = install(host, 'claude-code', { moonHome });
    expect(again.files.every((file) => file.done.length === 0)).toBe(true);
    uninstall(host, 'claude-code', { moonHome });
    expect(read(settings) ?? '').not.toContain('moon.js');
  });
});
