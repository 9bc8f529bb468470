import { isAbsolute, join } from 'node:path';
import { MoonError } from '../errors.js';
import type { ServiceHost } from './host.js';
import { LAUNCHD_LABEL, SYSTEMD_UNIT_NAME, type ServiceSpec, renderLaunchdPlist, renderSystemdUnit } from './unit-files.js';

export type ServicePlatform = 'linux' | 'darwin';

export interface ServiceCommand {
  command: string;
  args: string[];
  /** A failure is expected and harmless (stopping a service that is not loaded). */
  mayFail: boolean;
}

/** What installing or removing the service does, before anything is done. */
export interface ServicePlan {
  platform: ServicePlatform;
  /** The unit or agent file. */
  file: string;
  /** Install: the file's new content. Uninstall: null. */
  content: string | null;
  /** Run before the file is written or removed. */
  before: ServiceCommand[];
  /** Run after. */
  after: ServiceCommand[];
}

export function choosePlatform(platform: NodeJS.Platform): ServicePlatform {
  if (platform === 'linux' || platform === 'darwin') return platform;
  throw new MoonError('bad_usage', `moon service knows systemd (Linux) and launchd (macOS), not ${platform}`, {
    hint: 'run `moon watch --daemon` under this system’s own service manager',
  });
}

/** `~/.config/systemd/user/moon-watch.service` (XDG_CONFIG_HOME when set), or `~/Library/LaunchAgents/dev.moon.watch.plist`. */
export function locateServiceFile(host: Pick<ServiceHost, 'platform' | 'homeDir' | 'env'>): string {
  if (choosePlatform(host.platform) === 'darwin') return join(host.homeDir, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
  const xdg = host.env.XDG_CONFIG_HOME;
  const config = xdg && isAbsolute(xdg) ? xdg : join(host.homeDir, '.config');
  return join(config, 'systemd', 'user', SYSTEMD_UNIT_NAME);
}

/**
 * Install: write the file, then have the manager load and start it. Replacing an installed file also restarts
 * (systemd) or reloads (launchd: out, then in again) the running watcher, so the new command line takes effect.
 */
export function planInstall(host: Pick<ServiceHost, 'platform' | 'homeDir' | 'env' | 'uid'>, spec: ServiceSpec, replacing: boolean): ServicePlan {
  const platform = choosePlatform(host.platform);
  const file = locateServiceFile(host);
  if (platform === 'linux') {
    return {
      platform,
      file,
      content: renderSystemdUnit(spec),
      before: [],
      after: [
        systemctl(['daemon-reload']),
        systemctl(['enable', '--now', SYSTEMD_UNIT_NAME]),
        ...(replacing ? [systemctl(['restart', SYSTEMD_UNIT_NAME])] : []),
      ],
    };
  }
  return {
    platform,
    file,
    content: renderLaunchdPlist(spec),
    before: replacing ? [launchctl(['bootout', `gui/${host.uid}/${LAUNCHD_LABEL}`], true)] : [],
    after: [launchctl(['bootstrap', `gui/${host.uid}`, file])],
  };
}

/** Uninstall: stop and disable (or boot out) the service, then remove the file. */
export function planUninstall(host: Pick<ServiceHost, 'platform' | 'homeDir' | 'env' | 'uid'>): ServicePlan {
  const platform = choosePlatform(host.platform);
  const file = locateServiceFile(host);
  if (platform === 'linux') {
    return {
      platform,
      file,
      content: null,
      before: [systemctl(['disable', '--now', SYSTEMD_UNIT_NAME], true)],
      after: [systemctl(['daemon-reload'])],
    };
  }
  return { platform, file, content: null, before: [launchctl(['bootout', `gui/${host.uid}/${LAUNCHD_LABEL}`], true)], after: [] };
}

export function describeCommand(command: ServiceCommand): string {
  return [command.command, ...command.args].map((word) => (/^[A-Za-z0-9/._+:@=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function systemctl(args: string[], mayFail = false): ServiceCommand {
  return { command: 'systemctl', args: ['--user', ...args], mayFail };
}

function launchctl(args: string[], mayFail = false): ServiceCommand {
  return { command: 'launchctl', args, mayFail };
}
