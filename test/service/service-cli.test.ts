import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN, makeTempDir, spawnMoon } from '../helpers/cli.js';

let root: string;
let cleanup: () => void;
beforeAll(() => {
  const temp = makeTempDir('moon-service-cli-');
  root = temp.path;
  cleanup = temp.cleanup;
});
afterAll(() => cleanup());

const supported = process.platform === 'linux' || process.platform === 'darwin';

// Only --dry-run and an uninstall of nothing run here: a real install would reach this machine's service manager.
describe.runIf(supported)('moon service (built CLI, temporary HOME)', () => {
  test('install --dry-run prints the file for this platform and the commands, and writes nothing', async () => {
    const home = join(root, 'user');
    const moonHome = join(root, 'moon');
    const run = await spawnMoon(['service', 'install', '--dry-run'], { HOME: home, MOON_HOME: moonHome });
    expect(run.code, run.stderr).toBe(0);
    if (process.platform === 'linux') {
      expect(run.stdout).toContain(`would write ${join(home, '.config', 'systemd', 'user', 'moon-watch.service')}:`);
      expect(run.stdout).toContain(`ExecStart=${process.execPath} ${BIN} watch --daemon`);
      expect(run.stdout).toContain(`Environment=MOON_HOME=${moonHome}`);
      expect(run.stdout).toContain('would run:\n  systemctl --user daemon-reload\n  systemctl --user enable --now moon-watch.service');
    } else {
      expect(run.stdout).toContain(`would write ${join(home, 'Library', 'LaunchAgents', 'dev.moon.watch.plist')}:`);
      expect(run.stdout).toContain(`<string>${BIN}</string>`);
      expect(run.stdout).toContain('launchctl bootstrap gui/');
    }
    expect(existsSync(home)).toBe(false);
    expect(existsSync(moonHome)).toBe(false);
  });

  test('--json carries the same report; uninstall of nothing says so', async () => {
    const home = join(root, 'user2');
    const run = await spawnMoon(['service', 'install', '--dry-run', '--json'], { HOME: home, MOON_HOME: join(root, 'moon2') });
    const report = JSON.parse(run.stdout) as { action: string; dry_run: boolean; content: string; commands: { state: string }[] };
    expect(report).toMatchObject({ action: 'install', dry_run: true });
    expect(report.commands.every((command) => command.state === 'planned')).toBe(true);
    const uninstall = await spawnMoon(['service', 'uninstall'], { HOME: home, MOON_HOME: join(root, 'moon2') });
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(uninstall.stdout).toMatch(/^not installed: no /);
  });
});
