import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { MoonError } from '../../src/errors.js';
import type { CommandOutcome, ServiceHost } from '../../src/service/host.js';
import { installService, uninstallService } from '../../src/service/run-service.js';
import { SERVICE_MARKER, quoteSystemd } from '../../src/service/unit-files.js';
import { makeTempDir } from '../helpers/cli.js';

let root: string;
let cleanup: () => void;
beforeEach(() => {
  const temp = makeTempDir('moon-service-');
  root = temp.path;
  cleanup = temp.cleanup;
});
afterEach(() => cleanup());

/** Stands in for the OS service manager: records each command, answers as told. */
function fakeHost(platform: NodeJS.Platform, answer: (command: string, args: readonly string[]) => Partial<CommandOutcome> = () => ({})) {
  const ran: string[] = [];
  const host: ServiceHost = {
    platform,
    homeDir: join(root, 'user'),
    uid: 501,
    env: {},
    nodePath: '/opt/node/bin/node',
    binPath: '/opt/moon/bin/moon.js',
    run(command, args) {
      ran.push([command, ...args].join(' '));
      return { status: 0, stdout: '', stderr: '', missing: false, ...answer(command, args) };
    },
  };
  return { host, ran };
}

const request = () => ({ moonHome: join(root, 'moon home'), logsDir: join(root, 'moon home', 'logs') });
const unitPath = () => join(root, 'user', '.config', 'systemd', 'user', 'moon-watch.service');
const plistPath = () => join(root, 'user', 'Library', 'LaunchAgents', 'dev.moon.watch.plist');

describe('Linux: a systemd user unit', () => {
  test('install writes the unit, reloads systemd and enables it now', () => {
    const { host, ran } = fakeHost('linux');
    const report = installService(host, request());
    const unit = readFileSync(unitPath(), 'utf8');
    expect(unit).toContain(SERVICE_MARKER);
    expect(unit).toContain('\nExecStart=/opt/node/bin/node /opt/moon/bin/moon.js watch --daemon\n');
    expect(unit).toContain(`\nEnvironment="MOON_HOME=${join(root, 'moon home')}"\n`);
    expect(unit).toContain('\nRestart=on-failure\n');
    expect(unit).toContain('\n[Install]\nWantedBy=default.target\n');
    expect(unit).not.toContain('MOON_LOGS_DIR');
    expect(ran).toEqual(['systemctl --user daemon-reload', 'systemctl --user enable --now moon-watch.service']);
    expect(report).toMatchObject({ action: 'install', platform: 'linux', file: unitPath(), fileChange: 'written', dryRun: false, notes: [] });
    expect(report.commands.map((command) => command.state)).toEqual(['ran', 'ran']);
  });

  test('installing again replaces the unit and restarts the watcher; XDG_CONFIG_HOME and a non-default logs folder are honoured', () => {
    const { host, ran } = fakeHost('linux');
    host.env = { XDG_CONFIG_HOME: join(root, 'xdg') };
    const file = join(root, 'xdg', 'systemd', 'user', 'moon-watch.service');
    installService(host, { ...request(), logsDir: '/var/log/moon' });
    const report = installService(host, { ...request(), logsDir: '/var/log/moon' });
    expect(report.fileChange).toBe('replaced');
    expect(readFileSync(file, 'utf8')).toContain('\nEnvironment=MOON_LOGS_DIR=/var/log/moon\n');
    expect(ran.slice(2)).toEqual(['systemctl --user daemon-reload', 'systemctl --user enable --now moon-watch.service', 'systemctl --user restart moon-watch.service']);
  });

  test('a unit file moon did not write is neither replaced nor removed', () => {
    const { host, ran } = fakeHost('linux');
    mkdirSync(join(unitPath(), '..'), { recursive: true });
    writeFileSync(unitPath(), '[Service]\nExecStart=/usr/bin/something-else\n');
    expect(() => installService(host, request())).toThrow(/was not written by moon; not replacing it/);
    expect(() => uninstallService(host, {})).toThrow(/was not written by moon; not removing it/);
    expect(() => uninstallService(host, { dryRun: true })).toThrow(MoonError);
    expect(readFileSync(unitPath(), 'utf8')).toBe('[Service]\nExecStart=/usr/bin/something-else\n');
    expect(ran).toEqual([]);
  });

  test('without systemctl the unit is written and the commands are skipped with a note', () => {
    const { host, ran } = fakeHost('linux', () => ({ status: null, missing: true }));
    const report = installService(host, request());
    expect(existsSync(unitPath())).toBe(true);
    expect(ran).toEqual(['systemctl --user daemon-reload']);
    expect(report.commands.map((command) => command.state)).toEqual(['skipped', 'skipped']);
    expect(report.notes).toEqual([
      'systemctl was not found, so the service was not started; where it runs: systemctl --user daemon-reload && systemctl --user enable --now moon-watch.service',
    ]);
  });

  test('a failing command is MoonError(io) with its exit status and message', () => {
    const { host } = fakeHost('linux', (_, args) => (args.includes('enable') ? { status: 1, stderr: 'Failed to connect to bus: No medium found\n' } : {}));
    expect(() => installService(host, request())).toThrow(/`systemctl --user enable --now moon-watch.service` failed \(exit 1\): Failed to connect to bus/);
  });

  test('uninstall stops and disables the service, removes exactly its file, reloads systemd', () => {
    const { host, ran } = fakeHost('linux', (_, args) => (args.includes('disable') ? { status: 5 } : {}));
    installService(host, request());
    ran.length = 0;
    const report = uninstallService(host, {});
    expect(existsSync(unitPath())).toBe(false);
    expect(existsSync(join(unitPath(), '..'))).toBe(true);
    expect(ran).toEqual(['systemctl --user disable --now moon-watch.service', 'systemctl --user daemon-reload']);
    expect(report.commands.map((command) => command.state)).toEqual(['failed (ignored)', 'ran']);
    expect(report.fileChange).toBe('removed');
    expect(uninstallService(host, {})).toMatchObject({ fileChange: 'not installed', commands: [] });
  });

  test('--dry-run shows the unit and the commands and touches nothing', () => {
    const { host, ran } = fakeHost('linux');
    const report = installService(host, { ...request(), dryRun: true });
    expect(report.dryRun).toBe(true);
    expect(report.content).toContain('ExecStart=/opt/node/bin/node /opt/moon/bin/moon.js watch --daemon');
    expect(report.commands).toEqual([
      { command: 'systemctl --user daemon-reload', state: 'planned' },
      { command: 'systemctl --user enable --now moon-watch.service', state: 'planned' },
    ]);
    expect(existsSync(join(root, 'user'))).toBe(false);
    installService(host, request());
    ran.length = 0;
    expect(uninstallService(host, { dryRun: true }).commands.map((command) => command.state)).toEqual(['planned', 'planned']);
    expect(existsSync(unitPath())).toBe(true);
    expect(ran).toEqual([]);
  });

  test('paths with spaces, quotes, % and $ are quoted for systemd', () => {
    expect(quoteSystemd('/opt/node/bin/node', true)).toBe('/opt/node/bin/node');
    expect(quoteSystemd('/Users/me/My Apps/moon.js', true)).toBe('"/Users/me/My Apps/moon.js"');
    expect(quoteSystemd('/srv/100%/$HOME/"x"\\y', true)).toBe('"/srv/100%%/$$HOME/\\"x\\"\\\\y"');
    expect(quoteSystemd('MOON_HOME=/srv/$x 5%', false)).toBe('"MOON_HOME=/srv/$x 5%%"');
    expect(() => quoteSystemd('/a\nb', true)).toThrow(MoonError);
  });
});

describe('macOS: a launchd agent', () => {
  test('install writes the plist and bootstraps it into the user’s GUI domain', () => {
    const { host, ran } = fakeHost('darwin');
    const report = installService(host, { moonHome: '/Users/me/.moon', logsDir: join(root, 'logs & more') });
    const plist = readFileSync(plistPath(), 'utf8');
    expect(plist).toContain(SERVICE_MARKER);
    expect(plist).toContain('<key>Label</key>\n    <string>dev.moon.watch</string>');
    expect(plist).toContain(
      '<key>ProgramArguments</key>\n    <array>\n      <string>/opt/node/bin/node</string>\n      <string>/opt/moon/bin/moon.js</string>\n      <string>watch</string>\n      <string>--daemon</string>\n    </array>',
    );
    expect(plist).toContain('<key>EnvironmentVariables</key>\n    <dict>\n      <key>MOON_HOME</key>\n      <string>/Users/me/.moon</string>');
    expect(plist).toContain('<key>MOON_LOGS_DIR</key>');
    expect(plist).toContain('<key>RunAtLoad</key>\n    <true/>');
    expect(plist).toContain('<key>KeepAlive</key>\n    <true/>');
    expect(plist).toContain(`<key>StandardErrorPath</key>\n    <string>${join(root, 'logs &amp; more')}/moon-watch.stderr.log</string>`);
    expect(existsSync(join(root, 'logs & more'))).toBe(true);
    expect(ran).toEqual([`launchctl bootstrap gui/501 ${plistPath()}`]);
    expect(report).toMatchObject({ platform: 'darwin', file: plistPath(), fileChange: 'written' });
  });

  test('installing again boots the old agent out first (a failure there is expected); uninstall boots out and removes', () => {
    const { host, ran } = fakeHost('darwin', (_, args) => (args[0] === 'bootout' ? { status: 3, stderr: 'No such process' } : {}));
    installService(host, request());
    installService(host, request());
    expect(ran.slice(1)).toEqual(['launchctl bootout gui/501/dev.moon.watch', `launchctl bootstrap gui/501 ${plistPath()}`]);
    ran.length = 0;
    const report = uninstallService(host, {});
    expect(ran).toEqual(['launchctl bootout gui/501/dev.moon.watch']);
    expect(report.commands.map((command) => command.state)).toEqual(['failed (ignored)']);
    expect(existsSync(plistPath())).toBe(false);
  });
});

test('other platforms are a clear MoonError', () => {
  const { host } = fakeHost('win32');
  expect(() => installService(host, request())).toThrow(/knows systemd \(Linux\) and launchd \(macOS\), not win32/);
  expect(() => uninstallService(host, {})).toThrow(MoonError);
});
