import type { DecisionsRequest, DecisionsResult, FixesRequest, FixesResult } from './fixes/query.js';
import type { MarkersRequest, MarkersResult } from './markers/query.js';
import { listMarkerTypes, resolveMarkerConfig } from './markers/config.js';
import { copyFileSync, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { Ledger } from './archive/ledger.js';
import { type MoonPaths, projectionPathFor, resolvePaths } from './archive/paths.js';
import { type MoonConfig, defaultSourceRoots, maskUrlPassword } from './config.js';
import { MoonError } from './errors.js';
import type { Embedder } from './embed/embedder.js';
import type { EmbedProgress } from './embed/pipeline.js';
import type { IngestContext } from './ingest/context.js';
import type { IngestSettings } from './ingest/settings.js';
import type { IndexReport } from './ingest/run-index.js';
import type { SnapshotReport } from './ingest/run-snapshot.js';
import type { RecallResult } from './model.js';
import type { RecallOptions } from './search/options.js';
import type { SessionListing, SessionsRequest } from './browse/sessions.js';
import type { ShowRequest, ShowResult } from './browse/show.js';
import type { TimelineRequest, TimelineResult } from './browse/timeline.js';
import type { EntriesRequest, EntriesResult } from './browse/entries.js';
import type { GetSessionRequest, GetSessionResult } from './browse/session-slice.js';
import type { ProjectScope, ScopeRequest } from './search/scope.js';
import type { SafeTextOptions } from './inject/safe-text.js';
import type { StoreEngine } from './store/ports.js';
import { readMachineId } from './archive/machine.js';
import { withHomePaths } from './store/home-paths.js';

export { corruptIndexError, isCorruptionError } from './store/sqlite/guard.js';
import type { FailureRecord, StoreStats } from './store/types.js';
import type { RebuildReport } from './maintain/rebuild.js';
import type { VerifyReport } from './maintain/verify.js';
import type { ForgetReport, ForgetRequest } from './maintain/forget.js';
import type { GcReport } from './maintain/gc.js';
import type { MemoryApi } from './memory/api.js';
import type { MigrateReport } from './maintain/migrate.js';
import type { Redactor } from './normalize/redact.js';
import type { WatchApi, WatcherStatus } from './watch/api.js';
import type { Provider } from './llm/provider.js';
import type { UsageReport } from './usage/list-usage.js';
import type { ContinuityRequest, ContinuityResult } from './continuity/create-continuity.js';
import type { ServiceHost } from './service/host.js';
import type { ServiceReport } from './service/run-service.js';
import type { InstallHost } from './install/host.js';
import type { AgentInstallReport } from './install/run-install.js';
import type { AgentName, InstallScope } from './install/targets.js';
import type { DoctorReport } from './doctor/run-doctor.js';
import type { HookDeps, HookOutcome, HookRequest } from './hooks/run-hook.js';
import type { HookUsageReport } from './hooks/usage-state.js';
import type { DigestListRequest, DigestReport, DigestRequest, DigestScope, DigestSearchRequest, DigestSearchResult } from './digest/run-digest.js';
import type { RunDigest } from './digest/types.js';
import type { ContextPackRequest, PackDeps } from './pack/build.js';
import type { DocsIndexReport } from './pack/documents.js';
import type { ContextPack } from './pack/types.js';
import type { BeadsWriteback } from './pack/beads.js';
import type { RlmPhase } from './rlm/generator.js';
import type { HistoryQueryRequest, HistoryQueryResult } from './rlm/query.js';
import type { ProcessingStatistics } from './rlm/types.js';

export interface IndexRequest {
  /** Files or folders; empty: the configured source roots, else the default locations. */
  roots?: string[];
  force?: boolean;
  reproject?: boolean;
  excludeSessions?: string[];
  onProgress?: (done: number, total: number, path: string) => void;
  /** Skip the embedding step even when a provider is configured. */
  noEmbed?: boolean;
  onEmbedProgress?: (progress: EmbedProgress) => void;
  /** Asked between files and a large file's pieces: true stops after what is committed (the watcher's SIGTERM). */
  shouldStop?: () => boolean;
  /** Aborted: the run stops as soon as it can, its ingest workers terminated (the watcher's stop); no embedding. */
  signal?: AbortSignal;
  /** Worker threads for this run, overriding index.workers (a watcher indexing one grown file needs none). */
  workers?: number;
}

export type IndexResult = IndexReport & { embeddings: EmbedProgress | null };

export interface UsageRequest {
  /** Transcript files or folders; empty: the source roots (configured, else the default locations). */
  paths?: string[];
  /** Without paths, only transcripts modified within this many milliseconds (default 24 hours). */
  withinMs?: number;
}

export interface ServiceRequest {
  action: 'install' | 'uninstall';
  /** Print the file and the commands; touch nothing. */
  dryRun?: boolean;
  /** The machine to install on; default this one (its platform, HOME from `env`, systemctl or launchctl). */
  host?: ServiceHost;
  env?: NodeJS.ProcessEnv;
}

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

/** Transcripts `moon usage` looks at without PATH: those modified in the last day. */
export const DEFAULT_USAGE_WINDOW_MS = 24 * 3600_000;

export interface StatusReport extends StoreStats {
  home: string;
  /** The engine in use: the embedded SQLite file, or a shared PostgreSQL database (store.url). */
  engine: 'sqlite' | 'postgres';
  /** Where the index is: the SQLite file, or the database URL without its password. */
  db: string;
  sourceRoots: string[];
  timezone: string;
  /** Files and projections that failed and are skipped until they change (`moon index --force` retries them). */
  failures: FailureRecord[];
  /** SQLite's quick_check of the whole file: [] when sound (null: no index yet). */
  damage: string[] | null;
  /** The watcher: daemon lock owner, last cycle, pending L1 queue, last synthesis day, context usage. */
  watcher: WatcherStatus;
  /** Agent hooks: runs and tokens injected per hook per day, the last failure (state/hooks.json). */
  hooks: HookUsageReport;
}

export interface Moon {
  readonly config: MoonConfig;
  readonly paths: MoonPaths;
  /** Now, as this instance sees it (MOON_FAKE_NOW in tests). */
  readonly clock: () => number;
  index(request?: IndexRequest): Promise<IndexResult>;
  snapshot(request?: Pick<IndexRequest, 'roots' | 'excludeSessions'>): Promise<SnapshotReport>;
  recall(options: RecallOptions): Promise<RecallResult>;
  /** Indexed sessions, newest first, with their time range, title, message count and tools. */
  sessions(request?: SessionsRequest): Promise<SessionListing>;
  /** A session's projection, or the entries around one message or time; an unknown session is `{ found: false }`. */
  show(request: ShowRequest): Promise<ShowResult>;
  /**
   * The entries before and after a message id or a time — in one session, or (a time alone) across sessions, or
   * the sessions of `withinSessions`. Unknown or ambiguous sessions and message ids are `{ found: false }`.
   */
  timeline(request: TimelineRequest): Promise<TimelineResult>;
  /** Full entries by the message ids recall returns; ids that match nothing are listed in `missing`. */
  getEntries(request: EntriesRequest): Promise<EntriesResult>;
  /** A session's projection, or a slice of its entries by message ids or time; an unknown session is `{ found: false }`. */
  getSession(request: GetSessionRequest): Promise<GetSessionResult>;
  /** The caller's project scope (roots or working directory, matched to the indexed sessions' cwd and project). */
  resolveScope(request: ScopeRequest): Promise<ProjectScope>;
  /**
   * makeSafeText with this home's secret detector (privacy.*): what every agent-facing output passes through
   * (src/inject/safe-text.ts). Loads the redaction rules on first use.
   */
  safeText(): Promise<SafeText>;
  status(): Promise<StatusReport>;
  /** Check the index (SQLite quick_check) and that archive, ledger and index agree. */
  verify(): Promise<VerifyReport>;
  /** Rebuild the index from the raw archive, aside, then swap it in. */
  rebuild(): Promise<RebuildReport>;
  /** Take sessions back: removed from the index and the archive, tombstoned so no later index re-adds them. */
  forget(request: ForgetRequest): Promise<ForgetReport>;
  /**
   * Error signatures and the fixes that worked for them (seed 003 parts 3–4), scoped to the caller's namespace
   * unless `allNamespaces`; each pattern says whether its fix is claimed, verified or stale, with its evidence.
   */
  fixes(request?: FixesRequest): Promise<FixesResult>;
  /**
   * Decisions stated in the caller's sessions, each followed to its outcome (seed 003 part 4, src/fixes/decisions.ts):
   * verified when its change landed or passed a test run, stale when reverted or its files changed since.
   */
  decisions(request?: DecisionsRequest): Promise<DecisionsResult>;
  /**
   * `@/` markers (`@/decision: …`, seed 004 §2) found in the indexed messages, newest first: the caller's project's
   * unless `allProjects` or a session is named, with counts by type.
   */
  markers(request?: MarkersRequest): Promise<MarkersResult>;
  /** The marker types this configuration finds (seed 004's nine unless `markers.defaults = false`, plus custom ones). */
  markerTypes(): string[];
  /**
   * Long-term memory (plane C): add, review, edit, search, import the agents' own memories, propose promotions
   * (src/memory/api.ts). MEMORY_LONG_TERM=mem0 sends add, list and search to Mem0 instead.
   */
  memory(): Promise<MemoryApi>;
  /** Remove expired records of every memory plane (src/maintain/gc.ts). */
  gc(): Promise<GcReport>;
  /** Copy this home's index into a PostgreSQL database (resumable); point store.url at it afterwards. */
  migrate(request: MigrateRequest): Promise<MigrateReport>;
  /**
   * Run digests (plane B): one session's, or every session lacking a current one (`all`). Heuristic unless a
   * generative provider is configured (distill.provider), which falls back to the heuristic on any failure.
   */
  digestSession(request: DigestRequest): Promise<DigestReport>;
  /** Digests matching the words of `query`, in the caller's namespace unless named or `allNamespaces`. */
  searchDigests(request: DigestSearchRequest): Promise<DigestSearchResult>;
  /** Digests newest first, scoped like searchDigests. */
  listDigests(request?: DigestListRequest): Promise<{ scope: DigestScope; digests: RunDigest[] }>;
  /** L1/L2 distillation, the watcher, its status and stop (src/watch/api.ts), loaded on first use. */
  watcher(): Promise<WatchApi>;
  /**
   * A result made safe to hand an agent (issue: safe to inject): every string bounded, stripped of control
   * characters and ANSI, its markup and role headers neutralised, and run through the secret detector again.
   */
  makeSafe<T>(value: T): Promise<T>;
  /** Refuse to write to this home while another home's watcher holds this logs dir's lock (seed 001). */
  checkBoundary(allowOutOfBounds: boolean): Promise<void>;
  /** Context usage of transcripts, from their own usage fields, classified against the context.* ratios. */
  usage(request?: UsageRequest): Promise<UsageReport>;
  /** Build and write the ContinuityMap that carries one session's archive, memory and decisions into another. */
  continuity(request: ContinuityRequest): Promise<ContinuityResult>;
  /** Install or remove the OS service (systemd user unit, launchd agent) that runs `moon watch --daemon`. */
  service(request: ServiceRequest): Promise<ServiceReport>;
  /** Wire moon into an agent (its hooks and the MCP server in the agent's own config files), or take it out again. */
  install(request: InstallRequest): Promise<AgentInstallReport>;
  /** Check this installation: node, the SQLite modules, the home, sources, agent wiring, the watcher, the engine. */
  doctor(request?: DoctorRequest): Promise<DoctorReport>;
  /**
   * One agent hook (`moon hook <event>`): its stdin payload in, what to print out (src/hooks/run-hook.ts). Reads
   * never wait long for a writer and never load an embedding model; errors are thrown for the caller to fail open.
   */
  hook(request: HookRequest): Promise<HookOutcome>;
  /** Snapshot and index one transcript for a hook, in the process that has time for it (session-end's detached child). */
  captureTranscript(path: string): Promise<IndexResult>;
  /** Runs and tokens injected per hook per day, and the last hook failure. */
  hookUsage(): Promise<HookUsageReport>;
  /** Count a hook run that failed (the caller failed open); `moon status` shows the last failure. Never throws. */
  recordHookFailure(event: string, message: string): Promise<void>;
  /**
   * The context pack for a task (seed 003 §4): planning (Beads), history, long-term memory and documents of the
   * caller's namespace, within a token budget, each item with its provenance; a part that is off, missing,
   * failing or slow is listed in `omitted` (raised instead when memory.fail_open is false). Made safe to inject.
   */
  contextPack(request: ContextPackRequest, options?: Pick<PackDeps, 'subsystems' | 'onOmit'>): Promise<ContextPack>;
  /**
   * Planning writeback through the `bd` CLI in the repository of `cwd` (default the process's): claim a work item
   * for a run, close it, file a follow-up discovered on the way. Best-effort: failures are told to onNotice and
   * returned, never raised.
   */
  planning(cwd?: string): Promise<BeadsWriteback>;
  /** Index a repository's docs (README, docs/, ADRs) as `doc` records of its namespace, incrementally. */
  indexDocs(request?: DocsIndexRequest): Promise<DocsIndexReport>;
  /**
   * Build or update the RLM history index of a Puffin history (seed 004): segments, summaries by
   * distill.provider (the local extractive summariser by default), markers, hashes; written atomically under a
   * lock on the output. An existing file at the output that is not a valid index is an error, never overwritten.
   */
  rlmIndex(request: RlmIndexRequest): Promise<RlmIndexReport>;
  /** Search a history index: its segments first, then the matching prompts of the history file. */
  rlmQuery(request: RlmQueryRequest): Promise<HistoryQueryResult>;
  close(): Promise<void>;
}

export interface RlmIndexRequest {
  historyPath: string;
  outputPath: string;
  incremental?: boolean;
  /** Default 50,000 tokens (cl100k_base). */
  maxTokensPerSegment?: number;
  /** Default 2,000 tokens. */
  segmentOverlap?: number;
  onProgress?: (phase: RlmPhase, done: number, total: number) => void;
}

export interface RlmIndexReport {
  historyPath: string;
  outputPath: string;
  stats: ProcessingStatistics;
  /** Seed 004's log summary of the run, for stderr. */
  summary: string;
}

export type RlmQueryRequest = Omit<HistoryQueryRequest, 'readHistory'>;

export interface DocsIndexRequest {
  /** The folder to index; default the cwd's repository root. Its namespace is resolved from it. */
  path?: string;
  /** An explicit namespace id instead of the folder's. */
  namespace?: string;
}

/** Text made safe to hand an agent: bounded, controls and markup neutralised, secrets redacted again. */
export type SafeText = (text: string, options?: Omit<SafeTextOptions, 'redact'>) => string;

export interface MigrateRequest {
  /** The target database: `postgres://…`. */
  to: string;
  onProgress?: (done: number, total: number, sessionId: string) => void;
}

export interface MoonHooks {
  /** Notices a caller may want to show (e.g. waiting for another process's write lock); the CLI prints them on stderr. */
  onNotice?: (message: string) => void;
  /** Where API keys are read (distill.api_key_env names the variable). Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
}

export { HOOK_CAPTURE_LOCK_TIMEOUT_MS, HOOK_READ_LOCK_TIMEOUT_MS } from './hooks/compose.js';

/**
 * The composition root: turns a config into wired stages. The only place that picks concrete
 * implementations (SQLite store, redactor, sources); every interface (CLI, MCP, HTTP) goes through here.
 */
export function createMoon(config: MoonConfig, clock: () => number = Date.now, hooks: MoonHooks = {}): Moon {
  const paths = resolvePaths(config.home, config.logs.dir);
  const markerConfig = resolveMarkerConfig(config.markers);
  let store: Promise<StoreEngine> | null = null;
  let embedder: Promise<Embedder | null> | null = null;
  // Each stage is loaded when a command first needs it: a `moon recall` from a hook never loads ingest,
  // projection, redaction rules, embedding providers or the other engine (cold start, docs/benchmarks.md).
  const getRedact = once(async (): Promise<Redactor> =>
    (await import('./normalize/redact.js')).createRedactor({ enabled: config.privacy.redact, extraPatterns: config.privacy.extra_patterns }),
  );
  const getEmbedder = (): Promise<Embedder | null> => {
    embedder ??= import('./embed/index.js').then((module) => module.createEmbedder(config.embed));
    return embedder;
  };
  // Paths under the home are stored home-relative (store/home-paths.ts): a home can be moved or copied.
  const openEngine = async (path: string, lockTimeoutMs = config.index.lock_timeout_ms): Promise<StoreEngine> =>
    withHomePaths((await import('./store/sqlite/engine.js')).openSqliteEngine(path, { lockTimeoutMs, onWait: hooks.onNotice, markers: markerConfig }), paths.home);
  const openDatabase = async (url: string, lockTimeoutMs = config.index.lock_timeout_ms): Promise<StoreEngine> =>
    withHomePaths(
      await (await import('./store/postgres/engine.js')).openPostgresEngine(url, {
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
      await (await import('./maintain/home-layout.js')).ensureHomeLayout(paths, engine, lockTimeoutMs);
    } catch (error) {
      // Not converted (a read-only home, a full disk): the old absolute paths are read as they are, deletions
      // stay inside the home, and the next open tries again.
      hooks.onNotice?.(`stored paths of ${paths.home} were not made home-relative yet: ${(error as Error).message}`);
    }
    return engine;
  };
  const databaseUrl = config.store.url;
  /** Whether an index exists to read: the SQLite file, or (always) a configured database. */
  const hasIndex = (): boolean => databaseUrl !== undefined || existsSync(paths.db);
  const openStore = (mustExist: boolean): Promise<StoreEngine> => {
    if (!store) {
      if (mustExist && !hasIndex()) {
        return Promise.reject(new MoonError('not_found', `no index at ${paths.db}`, { hint: 'run `moon index` first' }));
      }
      store = openHomeIndex(databaseUrl ? openDatabase(databaseUrl) : openEngine(paths.db));
      // A failed open is not kept: the next call tries again.
      store.catch(() => {
        store = null;
      });
    }
    return store;
  };
  const ingestSettings = (excludeSessions: string[] = []): IngestSettings => ({
    home: paths.home,
    redact: { enabled: config.privacy.redact, extraPatterns: config.privacy.extra_patterns },
    minMessageChars: config.index.min_message_chars,
    timezone: config.distill.residential_timezone,
    maxLineBytes: config.index.max_line_bytes,
    exclude: config.sources.exclude,
    excludeSessionIds: excluded(excludeSessions),
  });
  const ingestContext = async (excludeSessions: string[] = []): Promise<IngestContext> =>
    (await import('./ingest/settings.js')).createIngestContext(ingestSettings(excludeSessions), clock);
  const redactReport = async <T extends IndexReport | SnapshotReport>(report: T): Promise<T> =>
    (await import('./normalize/redact/report.js')).redactReportMessages(report, await getRedact());
  const sourceRoots = (roots: string[] | undefined): string[] => {
    if (roots && roots.length > 0) {
      // A path the caller named that does not exist is a mistake to report, not an empty run to succeed with.
      // (Configured and default roots may be absent: not every agent is installed.)
      const missing = roots.filter((root) => !existsSync(root));
      if (missing.length > 0) throw new MoonError('not_found', `no such file or folder: ${missing.join(', ')}`);
      return roots;
    }
    if (config.sources.roots.length > 0) return config.sources.roots;
    return defaultSourceRoots();
  };
  const excluded = (extra: string[] = []): string[] => [
    ...extra,
    ...(config.session.current_id ? [config.session.current_id] : []),
  ];

  /** Vectors are only comparable within one model: use the query vector only when the index was built by it. */
  const embedQuery = async (source: StoreEngine, text: string): Promise<Float32Array | null> => {
    const active = await getEmbedder();
    const model = await source.vectors.getModel();
    if (!active || !model || model.id !== active.id || (await source.vectors.count()) === 0) return null;
    const [vector] = await active.embed([text]);
    return vector ?? null;
  };

  const getProvider = once(async (): Promise<Provider> => (await import('./llm/index.js')).createProvider(config.distill, hooks.env ?? process.env));
  const getWatcher = once(async (): Promise<WatchApi> =>
    (await import('./watch/api.js')).createWatchApi({
      config,
      paths,
      clock,
      index: (request) => api.index(request),
      provider: getProvider,
      digest: (request) => api.digestSession(request),
      roots: () => sourceRoots(undefined),
      checkUsage: (await import('./watch/usage-check.js')).createUsageCheck({
        startRatio: config.context.compaction_start_ratio,
        emergencyRatio: config.context.compaction_emergency_ratio,
        nowMs: clock,
      }),
    }),
  );

  /** Index into `target` (the shared store, or a hook's own engine with a shorter lock wait). */
  const indexInto = async (target: StoreEngine, request: IndexRequest, roots: string[]): Promise<IndexResult> => {
    const [{ syncTombstones }, { runIndex }, { IngestPool, chooseWorkerCount }, context] = await Promise.all([
      import('./maintain/forget.js'),
      import('./ingest/run-index.js'),
      import('./ingest/pool.js'),
      ingestContext(request.excludeSessions),
    ]);
    const workerCount = chooseWorkerCount(request.workers ?? config.index.workers);
    // Index documents are built where there is time to spare: on the workers when there are two or more.
    const workers = workerCount > 0 ? new IngestPool({ ...ingestSettings(request.excludeSessions), prepareDocuments: workerCount >= 2 }, workerCount) : null;
    // Sessions forgotten before this index existed (a rebuilt one, a new engine) stay forgotten, and sessions
    // another machine forgot leave this home's archive too.
    await syncTombstones(target, new Ledger(paths.ledger), (sessionId) => projectionPathFor(paths, sessionId), clock());
    let report: IndexReport;
    try {
      report = await runIndex({ ...context, workers }, target, {
        roots,
        force: request.force,
        reproject: request.reproject,
        onProgress: request.onProgress,
        shouldStop: request.shouldStop,
        signal: request.signal,
      });
    } finally {
      await workers?.close();
    }
    // After a fatal error the report says what was done; embedding would only meet the same failure.
    if (report.fatal) return { ...report, embeddings: null };
    const active = request.noEmbed || report.stopped ? null : await getEmbedder();
    const embeddings = active
      ? await (await import('./embed/pipeline.js')).embedPending(target, active, {
          batchSize: config.embed.batch_size,
          onProgress: request.onEmbedProgress,
        })
      : null;
    return { ...(await redactReport(report)), embeddings };
  };

  /** Recall over `source`; without vectors (a hook's recall), no embedding model is ever loaded. */
  const recallFrom = async (source: StoreEngine, options: RecallOptions, useVectors: boolean): Promise<RecallResult> => {
    const { recall } = await import('./search/recall.js');
    // Filtering on markers: they must be the ones these patterns give (derived once after the patterns change).
    if ((options.marker?.length ?? 0) > 0) await source.markers.sync();
    return recall(
      {
        search: source.search,
        vectors: useVectors ? source.vectors : null,
        timezone: config.distill.residential_timezone,
        defaults: {
          limit: config.recall.limit,
          messagesPerSession: config.recall.messages_per_session,
          snippetChars: config.recall.snippet_chars,
          strategy: config.recall.strategy,
        },
        projectionPathFor: (sessionId) => projectionPathFor(paths, sessionId),
        nowMs: clock,
        embedQuery: useVectors ? (text) => embedQuery(source, text) : null,
        listEntries: (sessionId) => source.browse.listEntries(sessionId),
        markerTypes: listMarkerTypes(markerConfig),
      },
      { ...options, excludeSession: excluded(options.excludeSession) },
    );
  };

  /**
   * Recall narrowed to sessions by prefix: each `session` that is not a full-length id becomes the full id of the
   * one session it names (resolve-session-id.ts); a full-length one is a filter as it is (no query per id).
   */
  const expandSessionPrefixes = async (source: StoreEngine, options: RecallOptions): Promise<RecallOptions> => {
    const named = options.session ?? [];
    if (named.length === 0) return options;
    const { isFullLengthSessionId, requireSessionIds } = await import('./browse/resolve-session-id.js');
    const short = named.filter((id) => !isFullLengthSessionId(id));
    if (short.length === 0) return options;
    const { ids } = await requireSessionIds(source.browse, short);
    return { ...options, session: [...named.filter(isFullLengthSessionId), ...ids] };
  };

  const api: Moon = {
    config,
    paths,
    clock,
    watcher: getWatcher,
    async checkBoundary(allowOutOfBounds) {
      // Only the lock reader: a writing command must not load the watcher, distillation and rendering to ask.
      (await import('./watch/daemon-lock.js')).checkWorkspaceBoundary(paths, allowOutOfBounds);
    },
    async makeSafe(value) {
      const [{ makeSafeValue }, redact] = await Promise.all([import('./inject/safe-value.js'), getRedact()]);
      return makeSafeValue(value, redact);
    },
    async index(request = {}) {
      const roots = sourceRoots(request.roots);
      return indexInto(await openStore(false), request, roots);
    },
    async snapshot(request = {}) {
      const { runSnapshot } = await import('./ingest/run-snapshot.js');
      return redactReport(runSnapshot(await ingestContext(request.excludeSessions), sourceRoots(request.roots)));
    },
    async recall(options) {
      // The store and the search stage load side by side (cold start, docs/benchmarks.md).
      const [source] = await Promise.all([openStore(true), import('./search/recall.js')]);
      return recallFrom(source, await expandSessionPrefixes(source, options), config.embed.provider !== 'none');
    },
    async sessions(request = {}) {
      const { listSessions } = await import('./browse/sessions.js');
      return listSessions((await openStore(true)).browse, request, config.distill.residential_timezone);
    },
    async show(request) {
      const { showSession } = await import('./browse/show.js');
      return showSession((await openStore(true)).browse, request, {
        timezone: config.distill.residential_timezone,
        projectionPathFor: (sessionId) => projectionPathFor(paths, sessionId),
      });
    },
    async timeline(request) {
      const [source, { readTimeline }] = await Promise.all([openStore(true), import('./browse/timeline.js')]);
      return readTimeline(
        {
          browse: source.browse,
          search: source.search,
          timezone: config.distill.residential_timezone,
          projectionPathFor: (sessionId) => projectionPathFor(paths, sessionId),
        },
        request,
      );
    },
    async getEntries(request) {
      const [source, { readEntries }] = await Promise.all([openStore(true), import('./browse/entries.js')]);
      return readEntries(source.browse, request, {
        timezone: config.distill.residential_timezone,
        projectionPathFor: (sessionId) => projectionPathFor(paths, sessionId),
      });
    },
    async getSession(request) {
      const [source, { readSession }] = await Promise.all([openStore(true), import('./browse/session-slice.js')]);
      return readSession(source.browse, request, {
        timezone: config.distill.residential_timezone,
        projectionPathFor: (sessionId) => projectionPathFor(paths, sessionId),
      });
    },
    async digestSession(request) {
      const [engine, { digestSessions }] = await Promise.all([openStore(true), import('./digest/run-digest.js')]);
      return digestSessions({ engine, nowMs: clock, provider: async () => (config.distill.provider === 'local' ? null : getProvider()) }, request);
    },
    async searchDigests(request) {
      const [engine, { searchDigests }] = await Promise.all([openStore(true), import('./digest/run-digest.js')]);
      return searchDigests(engine, request, clock());
    },
    async listDigests(request = {}) {
      const [engine, { listDigests }] = await Promise.all([openStore(true), import('./digest/run-digest.js')]);
      return listDigests(engine, request, clock());
    },
    async resolveScope(request) {
      const { resolveProjectScope } = await import('./search/scope.js');
      // Every project needs no look at the index (and works before one exists).
      if (request.allProjects) return resolveProjectScope(request, []);
      return resolveProjectScope(request, await (await openStore(true)).browse.listSessionPlaces());
    },
    async safeText() {
      const [{ makeSafeText }, redact] = await Promise.all([import('./inject/safe-text.js'), getRedact()]);
      return (text, options = {}) => makeSafeText(text, { ...options, redact });
    },
    async status() {
      const engine = hasIndex() ? await openStore(true) : null;
      const stats = engine
        ? await engine.stats.stats()
        : { sessions: 0, entries: 0, files: 0, anchors: 0, embeddings: 0, embeddingModel: null, bySource: {}, dbBytes: 0, lastRun: null };
      return {
        home: paths.home,
        engine: databaseUrl ? 'postgres' : 'sqlite',
        db: engine?.location ?? paths.db,
        sourceRoots: sourceRoots(undefined),
        timezone: config.distill.residential_timezone,
        ...stats,
        failures: engine ? await engine.ingest.listFailures() : [],
        // The whole file, not only the pages other commands happen to read (about 4 s for a 230 MB index).
        damage: engine ? await engine.stats.checkIntegrity() : null,
        watcher: (await getWatcher()).status(),
        hooks: await api.hookUsage(),
      };
    },
    async verify() {
      const { verifyHome } = await import('./maintain/verify.js');
      return verifyHome(paths, () => openStore(true), { location: databaseUrl ? maskUrlPassword(databaseUrl) : paths.db, exists: hasIndex() });
    },
    async rebuild() {
      if (databaseUrl) {
        throw new MoonError('bad_usage', 'moon rebuild rebuilds the embedded SQLite index; this home uses a PostgreSQL database (store.url)', {
          hint: 'the server keeps its own data safe; `moon index --force` re-reads every transcript into it',
        });
      }
      // Sessions are restored as archived: nothing is excluded, whatever the current session is now.
      const context = { ...(await ingestContext()), excludeSessionIds: new Set<string>() };
      const [{ rebuildIndex }, { openSqliteEngine }, { removeDatabaseFiles, sealDatabase, swapDatabase }] = await Promise.all([
        import('./maintain/rebuild.js'),
        import('./store/sqlite/engine.js'),
        import('./store/sqlite/swap.js'),
      ]);
      const open = (path: string): StoreEngine =>
        withHomePaths(openSqliteEngine(path, { lockTimeoutMs: config.index.lock_timeout_ms, onWait: hooks.onNotice, markers: markerConfig }), paths.home);
      return rebuildIndex(
        paths,
        context,
        { open, remove: removeDatabaseFiles, seal: sealDatabase, swap: swapDatabase },
        async () => {
          await (await store)?.close();
          store = null;
        },
        async (built) => {
          if (!existsSync(paths.db)) return;
          const old = await openStore(true);
          try {
            await built.memories.restore(await old.memories.dump());
          } catch (error) {
            // A damaged index may not give its memories back: its file is kept beside the new one.
            const kept = `${paths.db}.before-rebuild`;
            copyFileSync(paths.db, kept);
            hooks.onNotice?.(`long-term memories could not be read from the old index (${(error as Error).message}); it is kept at ${kept}`);
          }
          // Doc records come from repositories, not the archive: copied from the old index while it can be read.
          try {
            const sections = await old.docs.readDocs(null);
            const files = new Map<string, Map<string, typeof sections>>();
            for (const section of sections) {
              const byPath = files.get(section.namespace_id) ?? new Map<string, typeof sections>();
              byPath.set(section.path, [...(byPath.get(section.path) ?? []), section]);
              files.set(section.namespace_id, byPath);
            }
            for (const [namespaceId, byPath] of files) {
              await built.docs.replaceDocFiles(namespaceId, [...byPath].map(([path, list]) => ({ path, sections: list })));
            }
          } catch (error) {
            hooks.onNotice?.(`doc records were not carried over (${(error as Error).message}); run \`moon docs index\` again`);
          }
        },
      );
    },
    async fixes(request = {}) {
      if (!hasIndex()) return { scope: { namespace: null, all: true, widened: false }, patterns: [] };
      const { queryFixes } = await import('./fixes/query.js');
      return queryFixes((await openStore(true)).fixes, request);
    },
    async decisions(request = {}) {
      if (!hasIndex()) return { scope: { namespace: null, all: true, widened: false }, decisions: [] };
      const { queryDecisions } = await import('./fixes/query.js');
      return queryDecisions((await openStore(true)).fixes, request);
    },
    async markers(request = {}) {
      const [engine, { queryMarkers }] = await Promise.all([openStore(true), import('./markers/query.js')]);
      await engine.markers.sync();
      return queryMarkers(
        { markers: engine.markers, browse: engine.browse, knownTypes: listMarkerTypes(markerConfig), zone: config.distill.residential_timezone },
        request,
      );
    },
    markerTypes() {
      return listMarkerTypes(markerConfig);
    },
    async forget(request) {
      const { forgetSessions } = await import('./maintain/forget.js');
      return forgetSessions(await openStore(true), new Ledger(paths.ledger), request, {
        zone: config.distill.residential_timezone,
        nowMs: clock(),
      });
    },
    async memory() {
      const env = hooks.env ?? process.env;
      const [{ createMemoryApi }, { mem0FromEnv }] = await Promise.all([import('./memory/api.js'), import('./memory/mem0.js')]);
      const memory = createMemoryApi({ engine: () => openStore(false), clock, env, mem0: mem0FromEnv(env) });
      // Provenance names sessions as given back by moon (prefixes included): stored by their full ids. A whole id
      // not indexed yet (the session in progress) is kept as it is.
      return {
        ...memory,
        async add(request) {
          if (!request.sessionIds || request.sessionIds.length === 0) return memory.add(request);
          const { requireSessionIds } = await import('./browse/resolve-session-id.js');
          const { ids, unknown } = await requireSessionIds((await openStore(false)).browse, request.sessionIds, { keepUnknownFull: true });
          return memory.add({ ...request, sessionIds: [...ids, ...unknown] });
        },
      };
    },
    async gc() {
      const { runGc } = await import('./maintain/gc.js');
      return runGc(await openStore(false), clock());
    },
    async migrate(request) {
      if (!/^postgres(ql)?:\/\/\S+$/.test(request.to)) {
        throw new MoonError('bad_usage', `--to must be a PostgreSQL URL (postgres://user:pass@host:5432/db), got "${maskUrlPassword(request.to)}"`);
      }
      if (databaseUrl && databaseUrl === request.to) throw new MoonError('bad_usage', 'this home already uses that database');
      const source = await openStore(true);
      const target = await openDatabase(request.to);
      try {
        const { migrateIndex } = await import('./maintain/migrate.js');
        return await migrateIndex(source, target, { onProgress: request.onProgress, now: clock });
      } finally {
        await target.close();
      }
    },
    async usage(request = {}) {
      const { listSessionUsage } = await import('./usage/list-usage.js');
      const named = request.paths !== undefined && request.paths.length > 0;
      const nowMs = clock();
      return listSessionUsage({
        roots: sourceRoots(request.paths),
        skip: [paths.home],
        modifiedSinceMs: named ? null : nowMs - (request.withinMs ?? DEFAULT_USAGE_WINDOW_MS),
        nowMs,
        thresholds: { startRatio: config.context.compaction_start_ratio, emergencyRatio: config.context.compaction_emergency_ratio },
      });
    },
    async continuity(request) {
      const { createContinuity } = await import('./continuity/create-continuity.js');
      const browse = hasIndex() ? (await openStore(true)).browse : null;
      return createContinuity({ paths, browse, currentSessionId: config.session.current_id ?? null, nowMs: clock() }, request);
    },
    async service(request) {
      const [{ createServiceHost }, { installService, uninstallService }] = await Promise.all([
        import('./service/host.js'),
        import('./service/run-service.js'),
      ]);
      const host = request.host ?? createServiceHost(request.env);
      return request.action === 'install'
        ? installService(host, { moonHome: paths.home, logsDir: paths.logs, dryRun: request.dryRun })
        : uninstallService(host, { dryRun: request.dryRun });
    },
    async install(request) {
      const [{ createInstallHost }, { installAgent, uninstallAgent }, { ledgerPath }] = await Promise.all([
        import('./install/host.js'),
        import('./install/run-install.js'),
        import('./install/ledger.js'),
      ]);
      const host = request.host ?? createInstallHost(request.env);
      const common = { agent: request.agent, scope: request.scope ?? 'user', dryRun: request.dryRun === true, home: paths.home, ledger: ledgerPath(paths.home) };
      return request.action === 'install' ? installAgent(host, { ...common, nowMs: clock() }) : uninstallAgent(host, common);
    },
    doctor(request = {}) {
      return runDiagnosis({ ...request, paths, config, configError: null, watcherStatus: async () => (await getWatcher()).status() });
    },
    async hook(request) {
      // The hooks plane composes its own (src/hooks/compose.ts): the hook entry uses it without this module.
      const [{ runHook }, { composeHookDeps }] = await Promise.all([import('./hooks/run-hook.js'), import('./hooks/compose.js')]);
      const plane = composeHookDeps(config, clock, { env: hooks.env });
      try {
        return await runHook(plane.deps, request);
      } finally {
        await plane.close();
      }
    },
    async contextPack(request, options = {}) {
      const [{ buildContextPack }, { recallHistorySource }, { loadTokenCounter }, { decisionHistorySource, digestHistorySource, fixHistorySource }, { readPackFacts }] = await Promise.all([
        import('./pack/build.js'),
        import('./pack/sources.js'),
        import('./hooks/tokens.js'),
        import('./pack/plane-sources.js'),
        import('./fixes/query.js'),
      ]);
      const reader = (): Promise<StoreEngine> => openStore(true);
      // Fix patterns and decisions read one set of facts per pack (src/fixes/query.ts).
      let packFacts: ReturnType<typeof readPackFacts> | null = null;
      const facts = async () => (packFacts ??= readPackFacts((await reader()).fixes));
      // Every plane is asked in the pack's own namespace (null: all); none widens on its own.
      const scoped = (namespace: string | null) => (namespace === null ? { allNamespaces: true } : { namespace });
      const pack = await buildContextPack(
        {
          memory: config.memory,
          memoryFile: paths.memoryFile,
          docs: async () => (await reader()).docs,
          // Fix patterns for the error first, then decisions followed to their outcome, digests of similar runs,
          // and what was said (recall): the packager takes each section's candidates in this order.
          history: [
            fixHistorySource(async (text, namespace) => (await facts()).patterns(namespace, text, 5)),
            decisionHistorySource(async (namespace) => (await facts()).decisions(namespace)),
            digestHistorySource(async (query, namespace) => (await (await reader()).digests.search({ text: query, namespace, limit: 4, nowMs: clock() })).map((hit) => hit.digest)),
            ...(request.recall === false
              ? []
              : [
                  recallHistorySource({
                    // No embedding model is loaded for a pack (the < 100 ms goal): lexical, trigram and time signals.
                    recall: async (options) => recallFrom(await reader(), options, false),
                    listSessionPlaces: async () => (await reader()).browse.listSessionPlaces(),
                  }),
                ]),
          ],
          longTerm:
            config.memory.long_term === 'off'
              ? null
              : async (_query, namespace) =>
                  (await api.memory()).list({ states: ['approved'], limit: 20, cwd: process.cwd(), ...(namespace === null ? { allNamespaces: true } : { namespace }) }),
          counter: loadTokenCounter,
          safe: async () => {
            const safe = await api.safeText();
            return (text) => safe(text);
          },
          clock,
          ...options,
        },
        request,
      );
      return api.makeSafe(pack);
    },
    async planning(cwd) {
      const [{ beadsWriteback }, { resolveNamespace }] = await Promise.all([import('./pack/beads.js'), import('./memory/records.js')]);
      const here = cwd ?? process.cwd();
      return beadsWriteback(resolveNamespace(here).root ?? here, { log: (message) => hooks.onNotice?.(message) });
    },
    async indexDocs(request = {}) {
      const [{ indexDocs }, { resolveNamespace }, { resolve }] = await Promise.all([
        import('./pack/documents.js'),
        import('./memory/records.js'),
        import('node:path'),
      ]);
      const namespace = resolveNamespace(request.path ? resolve(request.path) : process.cwd());
      const root = request.path ? resolve(request.path) : (namespace.root ?? process.cwd());
      const target = request.namespace ? { ...namespace, namespace_id: request.namespace } : namespace;
      return indexDocs((await openStore(false)).docs, target, root, clock());
    },
    async rlmIndex(request) {
      const [{ generateHistoryIndex }, { formatStatistics }, { openTokenCounter }] = await Promise.all([
        import('./rlm/generator.js'),
        import('./rlm/stats.js'),
        import('./hooks/tokens.js'),
      ]);
      // A counter of the run's own (a worker in the built package): its tokenizer is let go once the first pass
      // has counted every prompt, which the run's peak memory feels (docs/benchmarks.md).
      const counter = openTokenCounter();
      const provider = config.distill.provider === 'local' ? null : await getProvider();
      const segmentation: { maxTokensPerSegment?: number; segmentOverlap?: number } = {};
      if (request.maxTokensPerSegment !== undefined) segmentation.maxTokensPerSegment = request.maxTokensPerSegment;
      if (request.segmentOverlap !== undefined) segmentation.segmentOverlap = request.segmentOverlap;
      try {
        const result = await generateHistoryIndex({
          historyPath: request.historyPath,
          outputPath: request.outputPath,
          incremental: request.incremental ?? false,
          provider,
          countTokens: (texts) => counter.count(texts),
          releaseTokenCounter: () => counter.close(),
          segmentation,
          // The same patterns the index uses (moon.toml's [markers]), so a history and its transcripts agree.
          markerConfig,
          onProgress: request.onProgress,
          onNotice: hooks.onNotice,
          now: clock,
        });
        return { historyPath: result.index.historyFile, outputPath: request.outputPath, stats: result.stats, summary: formatStatistics(result.stats) };
      } finally {
        await counter.close();
      }
    },
    async rlmQuery(request) {
      const { queryHistoryIndex } = await import('./rlm/query.js');
      return queryHistoryIndex(request);
    },
    async captureTranscript(path) {
      return api.index({ roots: [path], workers: 0 });
    },
    async hookUsage() {
      return (await import('./hooks/usage-state.js')).readHookUsage(paths.home);
    },
    async recordHookFailure(event, message) {
      try {
        const { recordHookFailure } = await import('./hooks/run-hook.js');
        await recordHookFailure({ home: paths.home, zone: config.distill.residential_timezone, clock }, event, message);
      } catch {
        // Counting is a convenience: the failure is already reported where the hook can report it.
      }
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
  return api;
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
  const [{ runDoctor }, { createInstallHost }] = await Promise.all([import('./doctor/run-doctor.js'), import('./install/host.js')]);
  const sqliteProbes = (): Promise<typeof import('./store/sqlite/probe.js')> => import('./store/sqlite/probe.js');
  return runDoctor({
    host: options.host ?? createInstallHost(options.env),
    paths: options.paths,
    config: options.config,
    configError: options.configError,
    nodeVersion: process.versions.node,
    probeSqliteModules: async () => (await sqliteProbes()).probeSqliteModules(),
    probeSqliteFile: async (path) => (await sqliteProbes()).probeSqliteFile(path),
    probePostgres: async (url) => (await import('./store/postgres/probe.js')).probePostgres(url),
    watcherStatus: options.watcherStatus,
  });
}

/** A function run once, its promise shared by every caller. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | null = null;
  return () => (made ??= make());
}
