import { MoonError } from '../errors.js';

/** What the service runs: `<node> <bin/moon.js> watch --daemon` with MOON_HOME set. */
export interface ServiceSpec {
  /** The absolute path of the node binary. */
  nodePath: string;
  /** The absolute path of this package's bin/moon.js. */
  binPath: string;
  moonHome: string;
  /** Where launchd writes the watcher's stderr and stdout. */
  logsDir: string;
  /** Environment the watcher needs beyond MOON_HOME (MOON_LOGS_DIR when it is not the default). */
  extraEnv: Record<string, string>;
}

export const SYSTEMD_UNIT_NAME = 'moon-watch.service';
export const LAUNCHD_LABEL = 'dev.moon.watch';

/** Written into every file moon installs; uninstall removes only a file that holds it. */
export const SERVICE_MARKER = 'moon-service: written by `moon service install`';

export function isWrittenByMoon(text: string): boolean {
  return text.includes(SERVICE_MARKER);
}

export function listProgramArguments(spec: ServiceSpec): string[] {
  return [spec.nodePath, spec.binPath, 'watch', '--daemon'];
}

/** The systemd user unit: restarted when it fails, started with the user's session manager. */
export function renderSystemdUnit(spec: ServiceSpec): string {
  const environment = Object.entries({ MOON_HOME: spec.moonHome, ...spec.extraEnv }).map(
    ([name, value]) => `Environment=${quoteSystemd(`${name}=${value}`, false)}`,
  );
  return [
    `# ${SERVICE_MARKER}; \`moon service uninstall\` removes it.`,
    '[Unit]',
    'Description=moon watcher: snapshots and indexes AI coding agent transcripts',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${listProgramArguments(spec).map((arg) => quoteSystemd(arg, true)).join(' ')}`,
    ...environment,
    'Restart=on-failure',
    'RestartSec=10',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

/** The launchd agent: started at login, kept alive, its output in moon's logs folder. */
export function renderLaunchdPlist(spec: ServiceSpec): string {
  const environment = Object.entries({ MOON_HOME: spec.moonHome, ...spec.extraEnv }).flatMap(([name, value]) => [
    `      <key>${escapeXml(name)}</key>`,
    `      <string>${escapeXml(value)}</string>`,
  ]);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    `<!-- ${SERVICE_MARKER}; \`moon service uninstall\` removes it. -->`,
    '<plist version="1.0">',
    '  <dict>',
    '    <key>Label</key>',
    `    <string>${LAUNCHD_LABEL}</string>`,
    '    <key>ProgramArguments</key>',
    '    <array>',
    ...listProgramArguments(spec).map((arg) => `      <string>${escapeXml(arg)}</string>`),
    '    </array>',
    '    <key>EnvironmentVariables</key>',
    '    <dict>',
    ...environment,
    '    </dict>',
    '    <key>RunAtLoad</key>',
    '    <true/>',
    '    <key>KeepAlive</key>',
    '    <true/>',
    '    <key>StandardOutPath</key>',
    `    <string>${escapeXml(`${spec.logsDir}/moon-watch.stdout.log`)}</string>`,
    '    <key>StandardErrorPath</key>',
    `    <string>${escapeXml(`${spec.logsDir}/moon-watch.stderr.log`)}</string>`,
    '  </dict>',
    '</plist>',
    '',
  ].join('\n');
}

/**
 * One word of a systemd ExecStart= (`command`: true) or Environment= line, quoted when it needs to be: `\` and
 * `"` escaped, `%` (specifiers) doubled, and on a command line `$` (variable expansion) doubled too. A line
 * break cannot be written into a unit line at all.
 */
export function quoteSystemd(word: string, command: boolean): string {
  rejectControl(word);
  const specifiers = word.replace(/%/g, '%%');
  const escaped = command ? specifiers.replace(/\$/g, '$$$$') : specifiers;
  if (/^[A-Za-z0-9/._+:@=,-]+$/.test(escaped)) return escaped;
  return `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function escapeXml(text: string): string {
  rejectControl(text);
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function rejectControl(text: string): void {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) {
    throw new MoonError('bad_config', `cannot write a service file for a path holding control characters: ${JSON.stringify(text)}`);
  }
}
