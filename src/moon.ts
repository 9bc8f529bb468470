import type { MoonPaths } from './archive/paths.js';
import type { MoonConfig } from './config.js';
import { type AgentsPlane, createAgents } from './app/agents.js';
import { type HistoryPlane, createHistory } from './app/history.js';
import { type MemoryPlane, createMemoryPlane } from './app/memory.js';
import { type MoonHooks, createShared } from './app/shared.js';
import { type UpkeepPlane, createUpkeep } from './app/upkeep.js';

export { corruptIndexError, isCorruptionError } from './store/sqlite/guard.js';
export type { IndexRequest, IndexResult } from './ingest/index-request.js';
export type { AgentsPlane, DoctorRequest, InstallRequest } from './app/agents.js';
export { diagnose } from './app/agents.js';
export type { HistoryPlane } from './app/history.js';
export type { DocsIndexRequest, MemoryPlane, RlmIndexReport, RlmIndexRequest, RlmQueryRequest } from './app/memory.js';
export { HOOK_CAPTURE_LOCK_TIMEOUT_MS, HOOK_READ_LOCK_TIMEOUT_MS } from './app/hook-deps.js';
export type { MoonHooks, SafeText } from './app/shared.js';
export { DEFAULT_USAGE_WINDOW_MS } from './app/upkeep.js';
export type { MigrateRequest, ServiceRequest, StatusReport, UpkeepPlane, UsageRequest } from './app/upkeep.js';
export type { ModelsListing } from './app/models.js';

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
  /** The library's recall, as it has always been called: `createMoon(config).recall(request)` (history.recall). */
  recall: HistoryPlane['recall'];
  close(): Promise<void>;
}

/**
 * The composition root: turns a config into the planes, each built from the shared dependencies (src/app/shared.ts).
 * The only place the planes are put together; every door (CLI, MCP, HTTP) goes through here.
 */
export function createMoon(config: MoonConfig, clock: () => number = Date.now, hooks: MoonHooks = {}): Moon {
  const shared = createShared(config, clock, hooks);
  const { paths } = shared;
  const history = createHistory(shared);
  const memory = createMemoryPlane(shared);
  const upkeep = createUpkeep(shared, { index: (request) => history.index(request), digest: (request) => memory.digestSession(request) });

  const hookRunner: Pick<AgentsPlane, 'hook' | 'recordHookFailure'> = {
    async hook(request) {
      // The hooks plane composes its own (src/app/hook-deps.ts): the hook entry uses it without this module.
      const [{ runHook }, { composeHookDeps }] = await Promise.all([import('./hooks/run-hook.js'), import('./app/hook-deps.js')]);
      const plane = composeHookDeps(config, clock, { env: hooks.env });
      try {
        return await runHook(plane.deps, request);
      } finally {
        await plane.close();
      }
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
    recall: (request) => history.recall(request),
    close: () => shared.close(),
  };
}
