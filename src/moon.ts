import { homedir } from 'node:os';
import { projectionPathFor } from './archive/paths.js';
import type { MoonPaths } from './archive/paths.js';
import type { MoonConfig } from './config.js';
import type { HookDeps } from './hooks/run-hook.js';
import { type AgentsPlane, createAgents } from './app/agents.js';
import { type HistoryPlane, createHistory, indexInto, recallFrom } from './app/history.js';
import { type MemoryPlane, createMemoryPlane } from './app/memory.js';
import { HOOK_CAPTURE_LOCK_TIMEOUT_MS, type MoonHooks, createShared } from './app/shared.js';
import { type UpkeepPlane, createUpkeep } from './app/upkeep.js';

export { corruptIndexError, isCorruptionError } from './store/sqlite/guard.js';
export type { IndexRequest, IndexResult } from './ingest/index-request.js';
export type { AgentsPlane, DoctorRequest, InstallRequest } from './app/agents.js';
export { diagnose } from './app/agents.js';
export type { HistoryPlane } from './app/history.js';
export type { DocsIndexRequest, MemoryPlane, RlmIndexReport, RlmIndexRequest, RlmQueryRequest } from './app/memory.js';
export { HOOK_CAPTURE_LOCK_TIMEOUT_MS, HOOK_READ_LOCK_TIMEOUT_MS } from './app/shared.js';
export type { MoonHooks, SafeText } from './app/shared.js';
export { DEFAULT_USAGE_WINDOW_MS } from './app/upkeep.js';
export type { MigrateRequest, ServiceRequest, StatusReport, UpkeepPlane, UsageRequest } from './app/upkeep.js';

/**
 * Moon, as the doors (CLI, MCP, HTTP) see it: the configuration and its paths, the clock, and the four planes
 * (src/app/) — history (index, recall, browse), memory (digests, fixes, decisions, long-term memories, context
 * packs, distilled history indexes), agents (hooks, install, doctor, safe output) and upkeep (status, verify,
 * rebuild, forget, migrate, the watcher, usage, continuity).
 */
export interface Moon {
  readonly config: MoonConfig;
  readonly paths: MoonPaths;
  /** Now, as this instance sees it (MOON_FAKE_NOW in tests). */
  readonly clock: () => number;
  readonly history: HistoryPlane;
  readonly memory: MemoryPlane;
  readonly agents: AgentsPlane;
  readonly upkeep: UpkeepPlane;
  close(): Promise<void>;
}

/**
 * The composition root: turns a config into the planes, each built from the shared dependencies (src/app/shared.ts).
 * The only place the planes are put together; every door (CLI, MCP, HTTP) goes through here.
 */
export function createMoon(config: MoonConfig, clock: () => number = Date.now, hooks: MoonHooks = {}): Moon {
  const shared = createShared(config, clock, hooks);
  const { paths, getHookReader, openForHook, getRedact } = shared;
  const sourceRoots = (roots: string[] | undefined): string[] => shared.sourceRoots(roots);
  const history = createHistory(shared);
  const memory = createMemoryPlane(shared);
  const upkeep = createUpkeep(shared, { index: (request) => history.index(request), digest: (request) => memory.digestSession(request) });

  /** What the hooks stage is given: short lock waits, no embedders, the configured roots. */
  const hookDeps = (): HookDeps => ({
    home: paths.home,
    memoryFile: paths.memoryFile,
    planning: config.memory.enabled && config.memory.planning === 'beads',
    zone: config.distill.residential_timezone,
    homeDir: homedir(),
    clock,
    hooks: config.hooks,
    browse: async () => (await getHookReader()).browse,
    recall: async (options) => recallFrom(shared, await getHookReader(), options, false),
    capture: async (path) => {
      const engine = await openForHook(HOOK_CAPTURE_LOCK_TIMEOUT_MS, false);
      try {
        // One file: no worker threads to start; embedding is left to the watcher or the next `moon index`.
        return await indexInto(shared, engine, { roots: [path], workers: 0, noEmbed: true }, [path]);
      } finally {
        await engine.close();
      }
    },
    redact: getRedact,
    roots: () => sourceRoots(undefined),
    projectionPathFor: (sessionId) => projectionPathFor(paths, sessionId),
    // The memory planes' context pack for the project, without recall (the hook lists recent sessions itself).
    pack: config.memory.enabled ? (request) => memory.contextPack({ ...request, recall: false }) : undefined,
  });

  const hookRunner: Pick<AgentsPlane, 'hook' | 'recordHookFailure'> = {
    async hook(request) {
      const { runHook } = await import('./hooks/run-hook.js');
      return runHook(hookDeps(), request);
    },
    async recordHookFailure(event, message) {
      try {
        const { recordHookFailure } = await import('./hooks/run-hook.js');
        await recordHookFailure({ home: paths.home, zone: config.distill.residential_timezone, clock }, event, message);
      } catch {
        // Counting is a convenience: the failure is already reported where the hook can report it.
      }
    },
  };
  const agents = createAgents(shared, {
    hook: (request) => hookRunner.hook(request),
    recordHookFailure: (event, message) => hookRunner.recordHookFailure(event, message),
    watcherStatus: async () => (await upkeep.watcher()).status(),
  });
  return {
    config,
    paths,
    clock,
    history,
    memory,
    agents,
    upkeep,
    close: () => shared.close(),
  };
}
