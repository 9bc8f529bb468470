import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { Ledger } from '../archive/ledger.js';
import { projectionPathFor, resolvePaths } from '../archive/paths.js';
import type { MoonConfig } from '../config.js';
import { MoonError } from '../errors.js';
import type { IndexReport } from '../ingest/report.js';
import { resolveMarkerConfig } from '../markers/config.js';
import type { Redactor } from '../normalize/redact.js';
import { defaultSourceRoots } from '../sources/default-roots.js';
import type { ContextPack } from '../pack/types.js';
import type { StoreEngine } from '../store/ports.js';
import type { HookDeps } from '../hooks/run-hook.js';
import type { ReaderCache } from './reader-cache.js';

export { type ReaderCache, createReaderCache } from './reader-cache.js';
import { describeFactFoldBuild, describeIngestSettings, describeRecallEnvironment, listExcludedSessions, loadPlaneHistorySources } from './wiring.js';

/** How long a hook that reads (session-start, user-prompt-submit) waits for another process opening the index. */
export const HOOK_READ_LOCK_TIMEOUT_MS = 250;
/** How long pre-compact waits for another writer before handing the capture to a detached process. */
export const HOOK_CAPTURE_LOCK_TIMEOUT_MS = 3_000;

export interface HookCompositionOptions {
  /** Where API keys and Mem0's settings are read. Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** How long a capture waits for another writer: a hook's share by default; the detached capture has time. */
  captureLockTimeoutMs?: number;
  /** Readers kept across hooks (the hook server's): the index is then opened once, not once per hook. */
  readers?: ReaderCache;
}

/** A hook's dependencies and how to let go of what they opened. */
export interface HookComposition {
  deps: HookDeps;
  /**
   * Fold the fix facts of the namespaces these sessions belong to and keep the fold in the index, so the next
   * session start's context pack reads it instead of every fact (FixPort.readFold). Run by the detached capture
   * after a session ends, below the agent's priority. Nothing when the memory planes are off.
   */
  warmFacts(sessionIds: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The hooks plane's composition: what `runHook` needs, wired from the configuration alone, each stage loaded when
 * the event first asks for it. Used by the hook entry (`bin/moon.js hook …`, src/interfaces/hook/entry.ts) and by the Moon
 * facade alike, so that a hook never loads the composition root, the CLI or a stage its event does not use.
 */
export function composeHookDeps(config: MoonConfig, clock: () => number, options: HookCompositionOptions = {}): HookComposition {
  const paths = resolvePaths(config.home, config.logs.dir);
  const markerConfig = resolveMarkerConfig(config.markers);
  const databaseUrl = config.store.url;
  const env = options.env ?? process.env;
  const noIndex = (): MoonError => new MoonError('not_found', `no index at ${paths.db}`, { hint: 'run `moon index` first' });

  /** An engine of the hook's own, with a hook's short lock wait; stored paths made home-relative first. */
  const openEngine = async (lockTimeoutMs: number, mustExist: boolean, lockTimeoutInAll = false): Promise<StoreEngine> => {
    if (mustExist && databaseUrl === undefined && !existsSync(paths.db)) throw noIndex();
    const [{ withHomePaths }, { ensureHomeLayout }] = await Promise.all([import('../store/home-paths.js'), import('../maintain/home-layout.js')]);
    const engine = withHomePaths(
      databaseUrl !== undefined
        ? await (await import('../store/postgres/engine.js')).openPostgresEngine(databaseUrl, {
            machine: (await import('../archive/machine.js')).readMachineId(paths.home),
            lockTimeoutMs,
            markers: markerConfig,
          })
        : (await import('../store/sqlite/engine.js')).openSqliteEngine(paths.db, { lockTimeoutMs, lockTimeoutInAll, markers: markerConfig }),
      paths.home,
    );
    try {
      await ensureHomeLayout(paths, engine, lockTimeoutMs);
    } catch {
      // Not converted (a read-only home, a full disk): old absolute paths are read as they are; the next open tries again.
    }
    return engine;
  };

  let reader: Promise<StoreEngine> | null = null;
  const readers = options.readers;
  // What the reader is opened with: a kept one serves only hooks that would open the same.
  const readerKey = JSON.stringify([databaseUrl ?? paths.db, paths.home, config.markers]);
  const getReader = (): Promise<StoreEngine> => {
    if (readers !== undefined) return readers.get(readerKey, databaseUrl === undefined ? paths.db : null, () => openEngine(HOOK_READ_LOCK_TIMEOUT_MS, true));
    if (!reader) {
      reader = openEngine(HOOK_READ_LOCK_TIMEOUT_MS, true);
      reader.catch(() => {
        reader = null;
      });
    }
    return reader;
  };

  let redactor: Promise<Redactor> | null = null;
  const getRedact = (): Promise<Redactor> =>
    (redactor ??= import('../normalize/redact.js').then((module) => module.createRedactor({ enabled: config.privacy.redact, extraPatterns: config.privacy.extra_patterns })));

  const roots = (): string[] => (config.sources.roots.length > 0 ? config.sources.roots : defaultSourceRoots());

  /** Snapshot and index one transcript on an engine of its own: no worker threads, no embedding (left to the watcher or `moon index`). */
  const capture = async (path: string): Promise<IndexReport> => {
    const [{ syncTombstones }, { runIndex }, { createIngestContext }, { redactReportMessages }] = await Promise.all([
      import('../maintain/forget.js'),
      import('../ingest/run-index.js'),
      import('../ingest/settings.js'),
      import('../normalize/redact/report.js'),
    ]);
    // A hook's own capture (pre-compact) waits its share once for all its writes; the detached one, per write.
    const engine = await openEngine(options.captureLockTimeoutMs ?? HOOK_CAPTURE_LOCK_TIMEOUT_MS, false, options.captureLockTimeoutMs === undefined);
    try {
      const context = createIngestContext(describeIngestSettings(config, paths.home), clock);
      // Sessions forgotten elsewhere stay forgotten (as `moon index` does before every run).
      await syncTombstones(engine, new Ledger(paths.ledger), (sessionId) => projectionPathFor(paths, sessionId), clock());
      const report = await runIndex({ ...context, workers: null }, engine, { roots: [path] });
      return redactReportMessages(report, await getRedact());
    } finally {
      await engine.close();
    }
  };

  /** The memory planes' context pack for the project, without recall (the hook lists recent sessions itself). */
  const pack = async (request: { task: string; cwd: string; planning: string | null; budget: number }): Promise<ContextPack> => {
    const [{ buildContextPack }, { estimatingCounter }, planes, safeText, safeValue] = await Promise.all([
      import('../pack/build.js'),
      import('../hooks/token-estimate.js'),
      loadPlaneHistorySources(getReader, clock),
      import('../inject/safe-text.js'),
      import('../inject/safe-value.js'),
    ]);
    const redact = await getRedact();
    const built = await buildContextPack(
      {
        memory: config.memory,
        memoryFile: paths.memoryFile,
        docs: async () => (await getReader()).docs,
        history: planes,
        longTerm:
          config.memory.long_term === 'off'
            ? null
            : async (_query, namespace) => {
                const [{ createMemoryApi }, { mem0FromEnv }] = await Promise.all([import('../memory/api.js'), import('../memory/mem0.js')]);
                const memory = createMemoryApi({ engine: getReader, clock, env, mem0: mem0FromEnv(env) });
                return memory.list({ states: ['approved'], limit: 20, cwd: process.cwd(), ...(namespace === null ? { allNamespaces: true } : { namespace }) });
              },
        // The hook's budget is counted as the rest of the hook counts it: estimated, never under (token-estimate.ts).
        counter: async () => estimatingCounter,
        safe: async () => (text) => safeText.makeSafeText(text, { redact }),
        clock,
      },
      { ...request, recall: false },
    );
    return safeValue.makeSafeValue(built, redact);
  };

  const deps: HookDeps = {
    home: paths.home,
    memoryFile: paths.memoryFile,
    planning: config.memory.enabled && config.memory.planning === 'beads',
    zone: config.distill.residential_timezone,
    homeDir: homedir(),
    clock,
    hooks: config.hooks,
    browse: async () => (await getReader()).browse,
    recall: async (recallOptions) => {
      const [{ recall }, source] = await Promise.all([import('../search/recall.js'), getReader()]);
      if ((recallOptions.marker?.length ?? 0) > 0) await source.markers.sync();
      // A hook never loads an embedding model.
      return recall(describeRecallEnvironment({ config, paths, clock, markerConfig }, source, null), {
        ...recallOptions,
        excludeSession: listExcludedSessions(config, recallOptions.excludeSession),
      });
    },
    capture,
    redact: getRedact,
    roots,
    projectionPathFor: (sessionId) => projectionPathFor(paths, sessionId),
    pack: config.memory.enabled ? pack : undefined,
  };
  const warmFacts = async (sessionIds: readonly string[]): Promise<void> => {
    if (!config.memory.enabled || sessionIds.length === 0) return;
    const [{ readPackFacts }, { resolveNamespace }, build] = await Promise.all([import('../fixes/query.js'), import('../records/envelope.js'), describeFactFoldBuild()]);
    const engine = await getReader();
    const namespaces = new Set<string>();
    for (const id of sessionIds) {
      const session = await engine.browse.getSession(id);
      if (session) namespaces.add(resolveNamespace(session.cwd, session.project).namespace_id);
    }
    const facts = readPackFacts(engine.fixes, undefined, build);
    for (const namespace of namespaces) await facts.warm(namespace);
  };

  return {
    deps,
    warmFacts,
    async close() {
      const open = reader;
      reader = null;
      await open?.then(
        (engine) => engine.close(),
        () => undefined,
      );
    },
  };
}

/**
 * Load, ahead of any hook, the modules the hooks that hand the agent context load on first use (the engine, recall,
 * the context pack, redaction): what a hook server does once when it starts, so that its first answer costs no
 * more than the next.
 */
export async function preloadHookModules(config: MoonConfig): Promise<void> {
  await Promise.all([
    import('../store/home-paths.js'),
    import('../maintain/home-layout.js'),
    config.store.url !== undefined ? import('../store/postgres/engine.js') : import('../store/sqlite/engine.js'),
    import('../normalize/redact.js'),
    import('../search/recall.js'),
    import('../pack/build.js'),
    import('../inject/safe-text.js'),
    import('../inject/safe-value.js'),
    import('../fixes/query.js'),
  ]);
}

