import { type MoonPaths, resolvePaths } from '../archive/paths.js';
import type { MoonConfig } from '../config.js';
import type { DoctorReport } from '../doctor/run-doctor.js';
import type { HookOutcome, HookRequest } from '../hooks/run-hook.js';
import type { HookUsageReport } from '../hooks/usage-state.js';
import type { InstallHost } from '../install/host.js';
import type { AgentInstallReport } from '../install/run-install.js';
import type { AgentName, InstallScope } from '../install/targets.js';
import type { WatcherStatus } from '../watch/api.js';
import type { SafeText, Shared } from './shared.js';

export interface InstallRequest {
  action: 'install' | 'uninstall';
  agent: AgentName;
  /** `user` (default): the agent's files in the home; `project`: those of the working directory. */
  scope?: InstallScope;
  /** Print what would change; touch nothing. */
  dryRun?: boolean;
  /** The machine to install on; default this one (HOME and the agents' variables from `env`, the process's cwd). */
  host?: InstallHost;
  env?: NodeJS.ProcessEnv;
}

export interface DoctorRequest {
  /** The machine to check; default this one (HOME and the agents' variables from `env`). */
  host?: InstallHost;
  env?: NodeJS.ProcessEnv;
}

/** The agents plane: the hooks agents run, wiring moon into an agent, checking the installation, safe output. */
export interface AgentsPlane {
  /**
   * One agent hook (`moon hook <event>`): its stdin payload in, what to print out (src/hooks/run-hook.ts). Reads
   * never wait long for a writer and never load an embedding model; errors are thrown for the caller to fail open.
   */
  hook(request: HookRequest): Promise<HookOutcome>;
  /** Runs and tokens injected per hook per day, and the last hook failure. */
  hookUsage(): Promise<HookUsageReport>;
  /** Count a hook run that failed (the caller failed open); `moon status` shows the last failure. Never throws. */
  recordHookFailure(event: string, message: string): Promise<void>;
  /** Wire moon into an agent (its hooks and the MCP server in the agent's own config files), or take it out again. */
  install(request: InstallRequest): Promise<AgentInstallReport>;
  /** Check this installation: node, the SQLite modules, the home, sources, agent wiring, the watcher, the engine. */
  doctor(request?: DoctorRequest): Promise<DoctorReport>;
  /**
   * A result made safe to hand an agent (issue: safe to inject): every string bounded, stripped of control
   * characters and ANSI, its markup and role headers neutralised, and run through the secret detector again.
   */
  makeSafe<T>(value: T): Promise<T>;
  /**
   * makeSafeText with this home's secret detector (privacy.*): what every agent-facing output passes through
   * (src/inject/safe-text.ts). Loads the redaction rules on first use.
   */
  safeText(): Promise<SafeText>;
}

/** What the agents plane is given by the composition root: the hook runner and the watcher's status. */
export interface AgentsNeeds {
  hook(request: HookRequest): Promise<HookOutcome>;
  recordHookFailure(event: string, message: string): Promise<void>;
  watcherStatus(): Promise<WatcherStatus>;
}

export function createAgents(shared: Shared, needs: AgentsNeeds): AgentsPlane {
  const { config, paths, clock } = shared;
  return {
    hook: (request) => needs.hook(request),
    recordHookFailure: (event, message) => needs.recordHookFailure(event, message),
    async hookUsage() {
      return (await import('../hooks/usage-state.js')).readHookUsage(paths.home);
    },
    async install(request) {
      const [{ createInstallHost }, { installAgent, uninstallAgent }, { ledgerPath }] = await Promise.all([
        import('../install/host.js'),
        import('../install/run-install.js'),
        import('../install/ledger.js'),
      ]);
      const host = request.host ?? createInstallHost(request.env);
      const common = { agent: request.agent, scope: request.scope ?? 'user', dryRun: request.dryRun === true, home: paths.home, ledger: ledgerPath(paths.home) };
      return request.action === 'install' ? installAgent(host, { ...common, nowMs: clock() }) : uninstallAgent(host, common);
    },
    doctor(request = {}) {
      return runDiagnosis({ ...request, paths, config, configError: null, watcherStatus: needs.watcherStatus });
    },
    makeSafe: (value) => shared.makeSafe(value),
    safeText: () => shared.safeText(),
  };
}

/**
 * `moon doctor` when the configuration does not load: the error is one of the problems, and the checks that need
 * no configuration (node, the SQLite modules, the home, the default sources, the agents) still run.
 */
export function diagnose(request: DoctorRequest & { home: string; configError: { message: string; hint?: string } }): Promise<DoctorReport> {
  return runDiagnosis({ ...request, paths: resolvePaths(request.home), config: null, configError: request.configError, watcherStatus: null });
}

async function runDiagnosis(options: DoctorRequest & {
  paths: MoonPaths;
  config: MoonConfig | null;
  configError: { message: string; hint?: string } | null;
  watcherStatus: (() => Promise<WatcherStatus>) | null;
}): Promise<DoctorReport> {
  const [{ runDoctor }, { createInstallHost }] = await Promise.all([import('../doctor/run-doctor.js'), import('../install/host.js')]);
  const sqliteProbes = (): Promise<typeof import('../store/sqlite/probe.js')> => import('../store/sqlite/probe.js');
  return runDoctor({
    host: options.host ?? createInstallHost(options.env),
    paths: options.paths,
    config: options.config,
    configError: options.configError,
    nodeVersion: process.versions.node,
    probeSqliteModules: async () => (await sqliteProbes()).probeSqliteModules(),
    probeSqliteFile: async (path) => (await sqliteProbes()).probeSqliteFile(path),
    probePostgres: async (url) => (await import('../store/postgres/probe.js')).probePostgres(url),
    watcherStatus: options.watcherStatus,
  });
}
