import JSON5 from 'json5';
import { MoonError } from '../errors.js';
import type { ConfigDocument } from './document.js';
import { unifiedDiff } from './diff.js';
import { type Change, addEntries, findMoonHooks, removeChanges } from './entries.js';
import { type CurrentFile, missingDirs, readCurrent, removeConfigFile, removeEmptyDirs, writeConfigFile } from './files.js';
import { checkScopeHome } from './home.js';
import type { InstallHost } from './host.js';
import { openJsonDocument } from './json-document.js';
import { openJson5Document } from './json5-document.js';
import { type InstallRecord, applyRestore, makeRestore, readLedger, sha256, writeLedger } from './ledger.js';
import { type AgentName, type InstallScope, type Target, agentTitle, describeTargets } from './targets.js';
import { openTomlDocument } from './toml-document.js';

export interface AgentInstallRequest {
  agent: AgentName;
  scope: InstallScope;
  /** Print what would change; write nothing. */
  dryRun: boolean;
  /** The moon home the agent's hooks and server are to use (named in their commands unless it is the default). */
  home: string;
  /** `$MOON_HOME/state/installs.json`. */
  ledger: string;
  nowMs: number;
}

export type FileChange = 'created' | 'edited' | 'unchanged' | 'restored' | 'removed' | 'not installed';

export interface FileReport {
  file: string;
  role: 'hooks' | 'mcp';
  change: FileChange;
  /** What was (or would be) done to the file's entries. */
  done: string[];
  /** --dry-run: the unified diff (or the new file's content); null otherwise. */
  diff: string | null;
}

export interface AgentInstallReport {
  action: 'install' | 'uninstall';
  agent: AgentName;
  scope: InstallScope;
  dryRun: boolean;
  files: FileReport[];
  /** Commands of the agent's own CLI run (or, dry, planned). */
  commands: { command: string; state: 'planned' | 'ran' }[];
  /** What the user should know: trusting hooks, restarting the agent. */
  notes: string[];
}

interface Plan {
  target: Target;
  current: CurrentFile;
  record: InstallRecord | undefined;
  text: string;
  changes: Change[];
  done: string[];
  change: FileChange;
  viaCli: string | null;
  /** Folders created for the file when it was written. */
  createdDirs: string[];
}

/** Add moon's hooks and MCP server to the agent's config files; nothing is written when one of them cannot be read. */
export function installAgent(host: InstallHost, request: AgentInstallRequest): AgentInstallReport {
  checkScopeHome(request.agent, request.scope, request.home, host.homeDir);
  const records = readLedger(request.ledger);
  const targets = describeTargets(request.agent, request.scope, host, request.home);
  const report: AgentInstallReport = { action: 'install', agent: request.agent, scope: request.scope, dryRun: request.dryRun, files: [], commands: [], notes: [] };
  const plans = targets.map((target) => planInstall(host, target, records, report));
  for (const plan of plans) {
    const entry: FileReport = { file: plan.current.file, role: plan.target.role, change: plan.change, done: plan.done, diff: null };
    report.files.push(entry);
    if (plan.change === 'unchanged') continue;
    if (request.dryRun) {
      entry.diff = plan.viaCli ? null : describeDiff(plan.current, plan.text);
      continue;
    }
    const written = plan.viaCli ? runOpenClawSet(host, plan, report) : writePlan(plan);
    const record = recordInstall(plan, written, request.nowMs);
    const index = records.findIndex((item) => item.file === record.file);
    if (index >= 0) records[index] = record;
    else records.push(record);
    writeLedger(request.ledger, records);
  }
  report.notes.push(...installNotes(host, request.agent, targets, report));
  return report;
}

function planInstall(host: InstallHost, target: Target, records: InstallRecord[], report: AgentInstallReport): Plan {
  const current = readCurrent(target.file);
  const record = records.find((item) => item.file === current.file);
  const doc = openDocument(target.format, current.file, current.text);
  const { changes, done } = addEntries(current.file, doc, target.entries, record?.changes ?? []);
  const text = doc.text;
  const change: FileChange = done.length === 0 ? 'unchanged' : current.exists ? 'edited' : 'created';
  let viaCli: string | null = null;
  if (target.agent === 'openclaw' && change !== 'unchanged') {
    viaCli = chooseOpenClawCli(host, current);
    if (viaCli) {
      const value = target.entries[0]!.kind === 'key' ? target.entries[0]!.value : null;
      report.commands.push({ command: describeCommand('openclaw', ['mcp', 'set', 'moon', JSON.stringify(value)]), state: 'planned' });
    }
  }
  return { target, current, record, text, changes, done, change, viaCli, createdDirs: [] };
}

function writePlan(plan: Plan): string {
  plan.createdDirs = missingDirs(plan.current.file);
  writeConfigFile(plan.current.file, plan.text, plan.current.mode ?? plan.target.newFileMode, plan.current.sha256);
  return plan.text;
}

/**
 * The record of this install, over whatever an earlier install into the same file recorded. `written` is the
 * file's text now, or null when the agent's CLI saved the entry somewhere moon cannot see (no patch back then).
 */
function recordInstall(plan: Plan, written: string | null, nowMs: number): InstallRecord {
  const { record, current, target } = plan;
  let base = current.text;
  let baseChanges: Change[] = [];
  if (record) {
    const restored = current.sha256 === record.written_sha256 ? applyRestore(current.text, record) : null;
    if (restored !== null) {
      base = restored;
      baseChanges = record.base_changes;
    } else {
      // The user edited the file since moon last wrote it: that text is the new base, moon's earlier entries in it.
      baseChanges = record.changes;
    }
  }
  return {
    agent: target.agent,
    scope: target.scope,
    file: current.file,
    format: target.format,
    role: target.role,
    installed_at: record?.installed_at ?? new Date(nowMs).toISOString(),
    original_existed: record ? record.original_existed : current.exists,
    written_sha256: written === null ? '' : sha256(written),
    restore: written === null ? { prefix: 0, suffix: 0, middle: '' } : makeRestore(written, base),
    base_sha256: written === null ? '' : sha256(base),
    base_changes: baseChanges,
    changes: plan.changes,
    created_dirs: [...(record?.created_dirs ?? []), ...plan.createdDirs],
    ...(plan.viaCli || record?.via ? { via: 'openclaw-cli' as const } : {}),
  };
}

export interface AgentUninstallRequest {
  agent: AgentName;
  scope: InstallScope;
  dryRun: boolean;
  home: string;
  ledger: string;
}

/**
 * Take out what `moon install` added: a file still byte for byte as moon wrote it gets its earlier bytes back
 * (removed when moon created it); a file edited since loses moon's entries only, found by content.
 */
export function uninstallAgent(host: InstallHost, request: AgentUninstallRequest): AgentInstallReport {
  const records = readLedger(request.ledger);
  const targets = describeTargets(request.agent, request.scope, host, request.home);
  const targetFiles = new Set(targets.map((target) => readCurrent(target.file).file));
  const mine = records.filter(
    (record) => record.agent === request.agent && record.scope === request.scope && (request.scope === 'user' || targetFiles.has(record.file)),
  );
  const report: AgentInstallReport = { action: 'uninstall', agent: request.agent, scope: request.scope, dryRun: request.dryRun, files: [], commands: [], notes: [] };
  if (mine.length === 0) {
    for (const target of targets) {
      const current = readCurrent(target.file);
      report.files.push({ file: current.file, role: target.role, change: 'not installed', done: [], diff: null });
      if (current.exists && holdsMoonEntries(target, current)) {
        report.notes.push(`${current.file} holds moon entries this moon home did not add: remove them by hand, or run \`moon uninstall\` with the MOON_HOME that installed them`);
      }
    }
    return report;
  }
  const plans = mine.map((record) => planUninstall(host, record, report));
  for (const plan of plans) {
    report.files.push(plan.report);
    if (request.dryRun) continue;
    plan.apply();
    records.splice(records.indexOf(plan.record), 1);
    writeLedger(request.ledger, records);
  }
  // Folders moon created go once empty: one may hold two of the files (~/.codex/config.toml and hooks.json).
  if (!request.dryRun) removeEmptyDirs([...new Set(mine.flatMap((record) => record.created_dirs))].sort((a, b) => a.length - b.length));
  if (!request.dryRun && report.files.some((file) => file.change !== 'unchanged' && file.change !== 'not installed')) {
    report.notes.push(`${agentTitle(request.agent)} sessions already running keep moon until they are restarted`);
  }
  return report;
}

interface UninstallPlan {
  record: InstallRecord;
  report: FileReport;
  apply(): void;
}

function planUninstall(host: InstallHost, record: InstallRecord, report: AgentInstallReport): UninstallPlan {
  const current = readCurrent(record.file);
  const fileReport: FileReport = { file: record.file, role: record.role, change: 'unchanged', done: [], diff: null };
  if (!current.exists) {
    fileReport.done.push('the file is gone');
    return { record, report: fileReport, apply: () => undefined };
  }
  let text: string;
  let exact = false;
  const restored = current.sha256 === record.written_sha256 ? applyRestore(current.text, record) : null;
  if (restored !== null) {
    text = restored;
    exact = record.base_changes.length === 0;
    if (!exact) {
      const doc = openDocument(record.format, record.file, restored);
      removeChanges(doc, record.base_changes);
      text = doc.text;
    }
    fileReport.done.push(
      !exact ? 'restored the file as moon last found it, without moon’s entries' : record.original_existed ? 'restored the file as it was before moon install' : 'moon created the file',
    );
  } else if (record.via === 'openclaw-cli' && openClawCli(host) && openDocument(record.format, record.file, current.text).get(['mcp', 'servers', 'moon']) !== undefined) {
    const command = describeCommand('openclaw', ['mcp', 'unset', 'moon']);
    report.commands.push({ command, state: 'planned' });
    fileReport.change = 'edited';
    fileReport.done.push('removed mcp.servers.moon (through the OpenClaw CLI)');
    return {
      record,
      report: fileReport,
      apply: () => {
        const outcome = host.run(openClawCli(host)!, ['mcp', 'unset', 'moon']);
        if (outcome.status !== 0) {
          throw new MoonError('io', `\`${command}\` failed: ${(outcome.stderr.trim() || outcome.stdout.trim()).split('\n')[0] ?? ''}`, {
            hint: `remove mcp.servers.moon from ${record.file} by hand`,
          });
        }
        report.commands.find((item) => item.command === command)!.state = 'ran';
      },
    };
  } else {
    const doc = openDocument(record.format, record.file, current.text);
    fileReport.done.push(...removeChanges(doc, record.changes));
    text = doc.text;
  }
  const remove = !record.original_existed && isEmptyConfig(record.format, text);
  fileReport.change = remove ? 'removed' : text === current.text ? 'unchanged' : exact ? 'restored' : 'edited';
  if (report.dryRun && fileReport.change !== 'unchanged') fileReport.diff = describeDiff(current, remove ? '' : text);
  return {
    record,
    report: fileReport,
    apply: () => {
      if (fileReport.change === 'removed') {
        removeConfigFile(record.file, current.sha256);
      } else if (fileReport.change !== 'unchanged') {
        writeConfigFile(record.file, text, current.mode ?? 0o600, current.sha256);
      }
    },
  };
}

export function openDocument(format: Target['format'], file: string, text: string): ConfigDocument {
  if (format === 'toml') return openTomlDocument(file, text);
  if (format === 'json5') return openJson5Document(file, text);
  return openJsonDocument(file, text);
}

/** A file moon created that holds nothing but what moon put in it has nothing left: `{}` or blank. */
function isEmptyConfig(format: Target['format'], text: string): boolean {
  return text.trim() === '' || (format !== 'toml' && text.replace(/\s/g, '') === '{}');
}

function holdsMoonEntries(target: Target, current: CurrentFile): boolean {
  try {
    const doc = openDocument(target.format, current.file, current.text);
    return target.entries.some((entry) => (entry.kind === 'key' ? doc.get(entry.path) !== undefined : findMoonHooks(doc, entry.event).length > 0));
  } catch {
    return false;
  }
}

function describeDiff(current: CurrentFile, text: string): string {
  if (!current.exists) return text;
  return unifiedDiff(current.text, text, { from: current.file, to: text === '' ? '/dev/null' : current.file });
}

/** `openclaw …` as one line to show, each argument quoted for a POSIX shell when it needs to be. */
function describeCommand(command: string, args: readonly string[]): string {
  return [command, ...args].map((word) => (/^[A-Za-z0-9/._+:@=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** The `openclaw` CLI when it can be run directly (not a Windows .cmd shim, which needs a shell). */
function openClawCli(host: InstallHost): string | null {
  const path = host.which('openclaw');
  if (!path || (host.platform === 'win32' && /\.(cmd|bat)$/i.test(path))) return null;
  return path;
}

/**
 * The OpenClaw CLI registers the server when it is installed — but it writes the whole file back as plain JSON,
 * so it is used only when that changes nothing else: no file yet, or one already in the CLI's own layout. A file
 * with comments, bare keys or its own indentation is edited in place instead.
 */
function chooseOpenClawCli(host: InstallHost, current: CurrentFile): string | null {
  const cli = openClawCli(host);
  if (!cli) return null;
  if (!current.exists) return cli;
  try {
    return current.text === `${JSON.stringify(JSON5.parse(current.text), null, 2)}\n` ? cli : null;
  } catch {
    return null;
  }
}

/**
 * `openclaw mcp set moon '<json>'`: the file's text afterwards, or null when the CLI saved the server somewhere
 * else. When the CLI fails, moon edits the file itself.
 */
function runOpenClawSet(host: InstallHost, plan: Plan, report: AgentInstallReport): string | null {
  const value = plan.target.entries[0]!.kind === 'key' ? plan.target.entries[0]!.value : null;
  const args = ['mcp', 'set', 'moon', JSON.stringify(value)];
  const command = report.commands.find((item) => item.command === describeCommand('openclaw', args));
  const dirs = missingDirs(plan.current.file);
  const outcome = host.run(plan.viaCli!, args);
  if (outcome.status !== 0) {
    const reason = (outcome.stderr.trim() || outcome.stdout.trim()).split('\n')[0] ?? '';
    report.notes.push(`\`openclaw mcp set\` failed (${reason || `exit ${outcome.status}`}); moon edited ${plan.current.file} itself`);
    plan.viaCli = null;
    return writePlan(plan);
  }
  if (command) command.state = 'ran';
  const after = readCurrent(plan.current.file);
  let saved = false;
  try {
    saved = after.exists && openJson5Document(after.file, after.text).get(['mcp', 'servers', 'moon']) !== undefined;
  } catch {
    saved = false;
  }
  if (!saved) {
    report.notes.push(`the OpenClaw CLI saved the server outside ${plan.current.file}; \`moon uninstall openclaw\` will run \`openclaw mcp unset moon\``);
    return null;
  }
  plan.createdDirs = dirs;
  return after.text;
}

function installNotes(host: InstallHost, agent: AgentName, targets: readonly Target[], report: AgentInstallReport): string[] {
  const notes: string[] = [];
  const scope = report.scope;
  const changed = report.files.some((file) => file.change !== 'unchanged');
  const home = targets[0]?.line.home ?? null;
  if (home !== null) notes.push(`${agentTitle(agent)}'s hooks and MCP server use the moon home ${home} (named with --home in their commands)`);
  if (scope === 'project') {
    notes.push(`the project's files run \`moon\` from PATH and the default moon home (~/.moon, or MOON_HOME where the agent runs): each teammate needs \`moon\` on PATH (\`npm link\` in a clone of moon, as its README says)`);
    if (host.which('moon') === null) notes.push('`moon` is not on PATH on this machine either: the project\'s hooks and server will not start here until it is');
  }
  if (agent === 'codex' && report.files.some((file) => file.role === 'hooks' && file.change !== 'unchanged')) {
    notes.push('Codex runs a new hook command only after you trust it: start Codex and approve moon’s hooks when it asks (review them any time with /hooks)');
  }
  if (agent === 'codex' && scope === 'project') notes.push('Codex reads a project’s .codex/ folder only when you trust the project');
  if (agent === 'claude-code' && scope === 'project') notes.push('Claude Code asks each person to approve the project’s MCP servers in .mcp.json before it starts them');
  if (changed && !report.dryRun) notes.push(`${agentTitle(agent)} sessions already running pick moon up when they are restarted`);
  return notes;
}
