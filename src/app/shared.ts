import { existsSync } from 'node:fs';
import { type MoonPaths, resolvePaths } from '../archive/paths.js';
import { readMachineId } from '../archive/machine.js';
import { type MoonConfig, defaultSourceRoots } from '../config.js';
import { MoonError, isMoonError } from '../errors.js';
import type { Embedder } from '../embed/embedder.js';
import type { IngestContext } from '../ingest/context.js';
import type { IngestSettings } from '../ingest/settings.js';
import type { IndexReport } from '../ingest/run-index.js';
import type { SnapshotReport } from '../ingest/run-snapshot.js';
import type { SafeTextOptions } from '../inject/safe-text.js';
import type { Provider } from '../llm/provider.js';
import type { MarkerConfig } from '../markers/extract.js';
import { resolveMarkerConfig } from '../markers/config.js';
import { locateNamedModel } from '../models/model-name.js';
import { describeIngestSettings, listExcludedSessions } from './wiring.js';
import type { Redactor } from '../normalize/redact.js';
import { withHomePaths } from '../store/home-paths.js';
import type { StoreEngine } from '../store/ports.js';

export interface MoonHooks {
  /** Notices a caller may want to show (e.g. waiting for another process's write lock); the CLI prints them on stderr. */
  onNotice?: (message: string) => void;
  /** Where API keys are read (distill.api_key_env names the variable). Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Text made safe to hand an agent: bounded, controls and markup neutralised, secrets redacted again. */
export type SafeText = (text: string, options?: Omit<SafeTextOptions, 'redact'>) => string;

/**
 * What every plane is built from: the configuration and its paths, the clock, and the stores, redactor,
 * embedder and provider, each opened or loaded when a plane first needs it and shared by all of them.
 */
export interface Shared {
  readonly config: MoonConfig;
  readonly paths: MoonPaths;
  readonly clock: () => number;
  readonly hooks: MoonHooks;
  readonly markerConfig: MarkerConfig;
  /** store.url: a shared PostgreSQL database instead of the home's SQLite file. */
  readonly databaseUrl: string | undefined;
  /** Whether an index exists to read: the SQLite file, or (always) a configured database. */
  hasIndex(): boolean;
  /** The home's index, opened once and shared; a failed open is not kept. */
  openStore(mustExist: boolean): Promise<StoreEngine>;
  /** Close the shared store and forget it (a rebuild swaps the file underneath). */
  dropStore(): Promise<void>;
  /** A SQLite engine of its own at `path`, paths stored home-relative. */
  openEngine(path: string, lockTimeoutMs?: number): Promise<StoreEngine>;
  /** A PostgreSQL engine of its own at `url`, paths stored home-relative. */
  openDatabase(url: string, lockTimeoutMs?: number): Promise<StoreEngine>;
  getRedact(): Promise<Redactor>;
  getEmbedder(): Promise<Embedder | null>;
  getProvider(): Promise<Provider>;
  ingestSettings(excludeSessions?: string[]): IngestSettings;
  ingestContext(excludeSessions?: string[]): Promise<IngestContext>;
  redactReport<T extends IndexReport | SnapshotReport>(report: T): Promise<T>;
  /** The roots named (each must exist), else the configured source roots, else the default locations. */
  sourceRoots(roots: string[] | undefined): string[];
  /** Sessions left out of indexing and recall: those named, and the session in progress (session.current_id). */
  excluded(extra?: string[]): string[];
  /** A value made safe to hand an agent (src/inject/safe-value.ts) with this home's secret detector. */
  makeSafe<T>(value: T): Promise<T>;
  /** makeSafeText with this home's secret detector (privacy.*). */
  safeText(): Promise<SafeText>;
  close(): Promise<void>;
}

/** The shared dependencies of the planes: nothing is opened or loaded until a plane asks for it. */
export function createShared(config: MoonConfig, clock: () => number, hooks: MoonHooks): Shared {
  const paths = resolvePaths(config.home, config.logs.dir);
  const markerConfig = resolveMarkerConfig(config.markers);
  const databaseUrl = config.store.url;
  let store: Promise<StoreEngine> | null = null;
  let embedder: Promise<Embedder | null> | null = null;
  /** embed.model names a model that is not in the home (yet): see getEmbedder. */
  let modelMissing = false;
  let missingNoticed = false;
  // Each stage is loaded when a command first needs it: a `moon recall` from a hook never loads ingest,
  // projection, redaction rules, embedding providers or the other engine (cold start, docs/benchmarks.md).
  const getRedact = once(async (): Promise<Redactor> =>
    (await import('../normalize/redact.js')).createRedactor({ enabled: config.privacy.redact, extraPatterns: config.privacy.extra_patterns }),
  );
  const hasIndex = (): boolean => databaseUrl !== undefined || existsSync(paths.db);
  // Paths under the home are stored home-relative (store/home-paths.ts): a home can be moved or copied.
  const openEngine = async (path: string, lockTimeoutMs = config.index.lock_timeout_ms): Promise<StoreEngine> =>
    withHomePaths((await import('../store/sqlite/engine.js')).openSqliteEngine(path, { lockTimeoutMs, onWait: hooks.onNotice, markers: markerConfig }), paths.home);
  const openDatabase = async (url: string, lockTimeoutMs = config.index.lock_timeout_ms): Promise<StoreEngine> =>
    withHomePaths(
      await (await import('../store/postgres/engine.js')).openPostgresEngine(url, {
        machine: readMachineId(paths.home),
        lockTimeoutMs,
        onWait: hooks.onNotice,
        markers: markerConfig,
      }),
      paths.home,
    );
  /** The home's own index, opened: a home an older moon wrote has its stored paths made home-relative first. */
  const openHomeIndex = async (opened: Promise<StoreEngine>, lockTimeoutMs?: number): Promise<StoreEngine> => {
    const engine = await opened;
    try {
      await (await import('../maintain/home-layout.js')).ensureHomeLayout(paths, engine, lockTimeoutMs);
    } catch (error) {
      // Not converted (a read-only home, a full disk): the old absolute paths are read as they are, deletions
      // stay inside the home, and the next open tries again.
      hooks.onNotice?.(`stored paths of ${paths.home} were not made home-relative yet: ${(error as Error).message}`);
    }
    return engine;
  };
  const noIndex = (): MoonError => new MoonError('not_found', `no index at ${paths.db}`, { hint: 'run `moon index` first' });
  const ingestSettings = (excludeSessions: string[] = []): IngestSettings => describeIngestSettings(config, paths.home, excludeSessions);
  const excluded = (extra: string[] = []): string[] => listExcludedSessions(config, extra);

  return {
    config,
    paths,
    clock,
    hooks,
    markerConfig,
    databaseUrl,
    hasIndex,
    openStore(mustExist) {
      if (!store) {
        if (mustExist && !hasIndex()) return Promise.reject(noIndex());
        store = openHomeIndex(databaseUrl ? openDatabase(databaseUrl) : openEngine(paths.db));
        // A failed open is not kept: the next call tries again.
        store.catch(() => {
          store = null;
        });
      }
      return store;
    },
    async dropStore() {
      await (await store)?.close();
      store = null;
    },
    openEngine,
    openDatabase,
    getRedact,
    getEmbedder() {
      // A model found missing is looked for again on each call (a stat): a long-running watcher starts embedding
      // once it has been pulled, without a restart.
      if (modelMissing && locateNamedModel(paths.models, config.embed.model).present) {
        embedder = null;
        modelMissing = false;
      }
      embedder ??= import('../embed/index.js').then((module) =>
        module.createEmbedder(config.embed, { modelsDir: paths.models }).catch((error: unknown) => {
          // The one rule for a model moon keeps by name that is not there yet: recall and indexing go on with words
          // only, said once (per process) on stderr; entries are embedded later, once it is pulled (embedding may lag).
          if (!isMoonError(error) || error.code !== 'model_missing') throw error;
          if (!missingNoticed) hooks.onNotice?.(`${error.message}; recall and indexing use words only until it is there (${error.hint ?? 'run: moon models pull'})`);
          modelMissing = true;
          missingNoticed = true;
          return null;
        }),
      );
      return embedder;
    },
    getProvider: once(async (): Promise<Provider> => (await import('../llm/index.js')).createProvider(config.distill, hooks.env ?? process.env)),
    ingestSettings,
    async ingestContext(excludeSessions = []) {
      return (await import('../ingest/settings.js')).createIngestContext(ingestSettings(excludeSessions), clock);
    },
    async redactReport(report) {
      return (await import('../normalize/redact/report.js')).redactReportMessages(report, await getRedact());
    },
    sourceRoots(roots) {
      if (roots && roots.length > 0) {
        // A path the caller named that does not exist is a mistake to report, not an empty run to succeed with.
        // (Configured and default roots may be absent: not every agent is installed.)
        const missing = roots.filter((root) => !existsSync(root));
        if (missing.length > 0) throw new MoonError('not_found', `no such file or folder: ${missing.join(', ')}`);
        return roots;
      }
      if (config.sources.roots.length > 0) return config.sources.roots;
      return defaultSourceRoots();
    },
    excluded,
    async makeSafe(value) {
      const [{ makeSafeValue }, redact] = await Promise.all([import('../inject/safe-value.js'), getRedact()]);
      return makeSafeValue(value, redact);
    },
    async safeText() {
      const [{ makeSafeText }, redact] = await Promise.all([import('../inject/safe-text.js'), getRedact()]);
      return (text, options = {}) => makeSafeText(text, { ...options, redact });
    },
    async close() {
      const open = store;
      store = null;
      await open?.then(
        (engine) => engine.close(),
        () => undefined,
      );
      // A provider that failed to start already reported its error to whoever asked for it.
      void embedder?.then(
        (active) => active?.close?.(),
        () => undefined,
      );
      embedder = null;
    },
  };
}

/** A function run once, its promise shared by every caller. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | null = null;
  return () => (made ??= make());
}
