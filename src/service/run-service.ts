import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { MoonError, errnoOf, toIoError } from '../errors.js';
import type { ServiceHost } from './host.js';
import { type ServiceCommand, type ServicePlan, type ServicePlatform, describeCommand, locateServiceFile, planInstall, planUninstall } from './plan.js';
import { type ServiceSpec, isWrittenByMoon } from './unit-files.js';

/** `moon service install|uninstall`. */
export interface ServiceRequest {
  moonHome: string;
  /** The logs folder in use: launchd writes the watcher's output there; systemd's goes to the journal. */
  logsDir: string;
  /** Print the file and the commands; touch nothing. */
  dryRun?: boolean;
}

export type CommandState = 'planned' | 'ran' | 'failed (ignored)' | 'skipped';

export interface ServiceReport {
  action: 'install' | 'uninstall';
  platform: ServicePlatform;
  file: string;
  dryRun: boolean;
  /** Install: the file's content (written, or what would be). */
  content: string | null;
  /** What happened (or would happen) to the file. */
  fileChange: 'written' | 'replaced' | 'removed' | 'not installed';
  commands: { command: string; state: CommandState }[];
  /** Things the caller should know: a service manager that is not installed, what to run by hand. */
  notes: string[];
}

/** Write the unit (or agent) file and have the service manager start it. */
export function installService(host: ServiceHost, request: ServiceRequest): ServiceReport {
  const spec = describeSpec(host, request);
  const existing = readOwnFile(host, 'install');
  const plan = planInstall(host, spec, existing.text !== null);
  const report = startReport('install', plan, request, existing.text === null ? 'written' : 'replaced');
  if (report.dryRun) return report;
  const runner = createRunner(host, plan, report);
  runner.runAll(plan.before);
  writeServiceFile(plan.file, plan.content!);
  if (plan.platform === 'darwin') makeDir(request.logsDir);
  runner.runAll(plan.after);
  return report;
}

/** Stop and disable the service, then remove the file moon wrote (never a file it did not write). */
export function uninstallService(host: ServiceHost, request: Omit<ServiceRequest, 'moonHome' | 'logsDir'>): ServiceReport {
  const existing = readOwnFile(host, 'uninstall');
  const plan = planUninstall(host);
  if (existing.text === null) {
    return { action: 'uninstall', platform: plan.platform, file: plan.file, dryRun: request.dryRun === true, content: null, fileChange: 'not installed', commands: [], notes: [] };
  }
  const report = startReport('uninstall', plan, request, 'removed');
  if (report.dryRun) return report;
  const runner = createRunner(host, plan, report);
  runner.runAll(plan.before);
  try {
    rmSync(plan.file);
  } catch (error) {
    throw toIoError(plan.file, error, 'remove');
  }
  runner.runAll(plan.after);
  return report;
}

function describeSpec(host: ServiceHost, request: ServiceRequest): ServiceSpec {
  for (const [what, path] of [
    ['node binary', host.nodePath],
    ['moon binary', host.binPath],
    ['MOON_HOME', request.moonHome],
    ['logs folder', request.logsDir],
  ] as const) {
    if (!isAbsolute(path)) throw new MoonError('bad_config', `the service needs an absolute path for the ${what}, got ${path}`);
  }
  const defaultLogs = join(request.moonHome, 'logs');
  return {
    nodePath: host.nodePath,
    binPath: host.binPath,
    moonHome: request.moonHome,
    logsDir: request.logsDir,
    extraEnv: request.logsDir === defaultLogs ? {} : { MOON_LOGS_DIR: request.logsDir },
  };
}

/** The service file's text, or null when there is none; a file moon did not write is refused, dry run or not. */
function readOwnFile(host: ServiceHost, action: 'install' | 'uninstall'): { text: string | null } {
  const file = locateServiceFile(host);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return { text: null };
    throw toIoError(file, error, 'read');
  }
  if (!isWrittenByMoon(text)) {
    throw new MoonError('bad_input', `${file} was not written by moon; not ${action === 'install' ? 'replacing' : 'removing'} it`, {
      hint: 'move it aside (or remove it yourself) and run the command again',
    });
  }
  return { text };
}

function startReport(action: ServiceReport['action'], plan: ServicePlan, request: { dryRun?: boolean }, change: ServiceReport['fileChange']): ServiceReport {
  return {
    action,
    platform: plan.platform,
    file: plan.file,
    dryRun: request.dryRun === true,
    content: plan.content,
    fileChange: change,
    commands: [...plan.before, ...plan.after].map((command) => ({ command: describeCommand(command), state: 'planned' })),
    notes: [],
  };
}

/**
 * Runs the plan's commands, recording each one's state in the report. A program that is not installed
 * (no systemctl in a container, say) skips its commands with a note saying what to run by hand; a command that
 * fails stops the run with MoonError('io') unless its failure is expected.
 */
function createRunner(host: ServiceHost, plan: ServicePlan, report: ServiceReport): { runAll(commands: readonly ServiceCommand[]): void } {
  const missing = new Set<string>();
  const all = [...plan.before, ...plan.after];
  return {
    runAll(commands) {
      for (const command of commands) {
        const entry = report.commands[all.indexOf(command)]!;
        if (missing.has(command.command)) {
          entry.state = 'skipped';
          continue;
        }
        const outcome = host.run(command.command, command.args);
        if (outcome.missing) {
          missing.add(command.command);
          entry.state = 'skipped';
          const rest = all.filter((other) => other.command === command.command).map(describeCommand);
          report.notes.push(
            `${command.command} was not found, so the service was not ${report.action === 'install' ? 'started' : 'stopped'}; where it runs: ${rest.join(' && ')}`,
          );
          continue;
        }
        if (outcome.status === 0) {
          entry.state = 'ran';
          continue;
        }
        if (command.mayFail) {
          entry.state = 'failed (ignored)';
          continue;
        }
        const reason = (outcome.stderr.trim() || outcome.stdout.trim()).split('\n')[0] ?? '';
        throw new MoonError('io', `\`${entry.command}\` failed (${outcome.status === null ? 'did not finish' : `exit ${outcome.status}`})${reason ? `: ${reason}` : ''}`, {
          hint: `fix the cause and run \`moon service ${report.action}\` again`,
        });
      }
    },
  };
}

/** Through a temporary file and a rename; readable by the service manager (0644). */
function writeServiceFile(path: string, content: string): void {
  const temporary = `${path}.tmp-${process.pid}`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(temporary, content, { mode: 0o644 });
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw toIoError(path, error);
  }
}

function makeDir(path: string): void {
  try {
    mkdirSync(path, { recursive: true });
  } catch (error) {
    throw toIoError(path, error, 'create');
  }
}
