import { accessSync, constants, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { MoonPaths } from '../archive/paths.js';
import type { MoonConfig } from '../config.js';
import { defaultSourceRoots } from '../config.js';
import { describeError, errnoOf } from '../errors.js';
import type { InstallHost } from '../install/host.js';
import { type AgentRegistration, inspectRegistrations } from '../install/inspect.js';
import { ledgerPath } from '../install/ledger.js';
import type { WatcherStatus } from '../watch/api.js';
import type { PostgresHealth } from '../store/types.js';
import { hookServerPaths, readRunningHookServer } from '../hooks/server-files.js';
import { isTransformersInstalled } from '../embed/transformers.js';
import { listModels } from '../models/list-models.js';
import { type RecallMeaning, describeRecallMeaning } from '../models/recall-meaning.js';

export type Probe = { ok: true; detail: string; health?: PostgresHealth | null } | { ok: false; error: string; corrupt?: boolean };

/** A folder or file moon keeps, as found. */
export interface PathFacts {
  path: string;
  exists: boolean;
  isDirectory: boolean;
  /** Permission bits (null where the platform has none to check). */
  mode: number | null;
  readable: boolean;
  writable: boolean;
}

/** Everything `moon doctor` judges, gathered once; the checks (checks.ts) are pure functions of it. */
export interface DoctorFacts {
  platform: NodeJS.Platform;
  nodeVersion: string;
  /** This moon: its node, its bin/moon.js, the package folder. */
  moon: { nodePath: string; binPath: string; packageDir: string };
  sqliteModules: Probe;
  /** The configuration loaded, or why not. */
  config: { ok: true; file: string | null } | { ok: false; error: string; hint?: string };
  home: PathFacts;
  /** archives/ and its raw/ and mlib/ folders, and the SQLite index: owner-only. */
  private: PathFacts[];
  sources: { configured: boolean; roots: PathFacts[] };
  agents: AgentRegistration[];
  /** The watcher daemon's lock, or why it could not be read. */
  watcher: WatcherStatus['daemon'] | { error: string } | null;
  engine: { kind: 'sqlite' | 'postgres'; location: string; exists: boolean; probe: Probe | null } | null;
  /** The hook server (src/hooks/server-files.ts): on or off, whether this home can have one, and whether one runs. */
  hookServer: { mode: 'auto' | 'off'; socketFits: boolean; running: { pid: number; started_ms: number } | null } | null;
  /** What recall uses (words only, or words and meaning through a provider), the models pulled, the optional package. */
  embedding: EmbeddingFacts | null;
}

export interface EmbeddingFacts {
  meaning: RecallMeaning;
  /** Names of the models in $MOON_HOME/models. */
  pulled: string[];
  /** Whether @huggingface/transformers can be loaded (asked only for embed.provider = "transformers"). */
  transformersInstalled: boolean | null;
  /** embed.model_path: whether the folder is there (null when unset). */
  modelPathExists: boolean | null;
}

export interface GatherDeps {
  host: InstallHost;
  /** The moon home in use (from the config, or MOON_HOME / --home when the config did not load). */
  paths: MoonPaths;
  config: MoonConfig | null;
  configError: { message: string; hint?: string } | null;
  nodeVersion: string;
  probeSqliteModules: () => Promise<Probe>;
  probeSqliteFile: (path: string) => Promise<Probe>;
  probePostgres: (url: string) => Promise<Probe>;
  /** The watcher's status (null when the config did not load). */
  watcherStatus: (() => Promise<WatcherStatus>) | null;
}

export async function gatherFacts(deps: GatherDeps): Promise<DoctorFacts> {
  const { host, paths, config } = deps;
  const posix = host.platform !== 'win32';
  const configured = (config?.sources.roots.length ?? 0) > 0;
  const roots = configured ? config!.sources.roots : defaultSourceRoots(host.homeDir);
  const url = config?.store.url;
  let watcher: DoctorFacts['watcher'] = null;
  if (deps.watcherStatus) {
    try {
      watcher = (await deps.watcherStatus()).daemon;
    } catch (error) {
      watcher = { error: describeError(error) };
    }
  }
  const engineFacts = async (): Promise<DoctorFacts['engine']> => {
    if (!config) return null;
    if (url) return { kind: 'postgres', location: url, exists: true, probe: await deps.probePostgres(url) };
    const exists = statOf(paths.db, posix).exists;
    return { kind: 'sqlite', location: paths.db, exists, probe: exists ? await deps.probeSqliteFile(paths.db) : null };
  };
  const [sqliteModules, engine] = await Promise.all([deps.probeSqliteModules(), engineFacts()]);
  return {
    platform: host.platform,
    nodeVersion: deps.nodeVersion,
    moon: { nodePath: host.nodePath, binPath: host.binPath, packageDir: dirname(dirname(host.binPath)) },
    sqliteModules,
    config: deps.configError ? { ok: false, error: deps.configError.message, hint: deps.configError.hint } : { ok: true, file: config?.origin.file ?? null },
    home: statOf(paths.home, posix),
    private: [paths.archives, paths.raw, paths.mlib, paths.db].map((path) => statOf(path, posix)).filter((facts) => facts.exists),
    sources: { configured, roots: roots.map((root) => statOf(root, posix)) },
    agents: inspectRegistrations(host, ledgerPath(paths.home), paths.home),
    watcher,
    engine,
    hookServer: config
      ? { mode: config.hooks.server, socketFits: hookServerPaths(paths.home) !== null || host.platform === 'win32', running: readRunningHookServer(paths.home) }
      : null,
    embedding: config ? gatherEmbedding(config, paths) : null,
  };
}

function gatherEmbedding(config: MoonConfig, paths: MoonPaths): EmbeddingFacts {
  let pulled: string[] = [];
  try {
    pulled = listModels(paths.models).map((model) => model.name);
  } catch {
    // an unreadable models folder: the check says what recall uses all the same
  }
  let meaning: RecallMeaning;
  try {
    meaning = describeRecallMeaning(config.embed, paths.models);
  } catch {
    // embed.model is not a model name: the embedder says so when it starts
    meaning = { provider: config.embed.provider, model: config.embed.model ?? null, dir: null, present: false, pull: null };
  }
  const transformers = config.embed.provider === 'transformers';
  return {
    meaning,
    pulled,
    transformersInstalled: transformers ? isTransformersInstalled() : null,
    modelPathExists: transformers && config.embed.model_path ? statOf(config.embed.model_path, false).isDirectory : null,
  };
}

function statOf(path: string, posix: boolean): PathFacts {
  let stat;
  try {
    stat = statSync(path);
  } catch (error) {
    return { path, exists: errnoOf(error) !== 'ENOENT', isDirectory: false, mode: null, readable: false, writable: false };
  }
  const can = (mode: number): boolean => {
    try {
      accessSync(path, mode);
      return true;
    } catch {
      return false;
    }
  };
  const directory = stat.isDirectory();
  return {
    path,
    exists: true,
    isDirectory: directory,
    mode: posix ? stat.mode & 0o777 : null,
    readable: can(constants.R_OK | (directory ? constants.X_OK : 0)),
    writable: can(constants.W_OK | (directory ? constants.X_OK : 0)),
  };
}

/** The default transcript folders doctor names when none is found. */
export function defaultRootsOf(homeDir: string): string[] {
  return [join(homeDir, '.claude', 'projects'), join(homeDir, '.codex', 'sessions'), join(homeDir, '.openclaw', 'agents')];
}
