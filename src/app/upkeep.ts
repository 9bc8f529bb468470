import { copyFileSync, existsSync } from 'node:fs';
import { Ledger } from '../archive/ledger.js';
import { maskUrlPassword } from '../config.js';
import type { ContinuityRequest, ContinuityResult } from '../continuity/create-continuity.js';
import type { DigestReport, DigestRequest } from '../digest/run-digest.js';
import { MoonError } from '../errors.js';
import type { HookUsageReport } from '../hooks/usage-state.js';
import type { IndexRequest, IndexResult } from '../ingest/index-request.js';
import type { ForgetReport, ForgetRequest } from '../maintain/forget.js';
import type { GcReport } from '../maintain/gc.js';
import type { MigrateReport } from '../maintain/migrate.js';
import type { RebuildReport } from '../maintain/rebuild.js';
import type { VerifyReport } from '../maintain/verify.js';
import type { ServiceHost } from '../service/host.js';
import type { ServiceReport } from '../service/run-service.js';
import type { StoreEngine } from '../store/ports.js';
import type { FailureRecord, StoreStats } from '../store/types.js';
import type { UsageReport } from '../usage/list-usage.js';
import type { WatchApi, WatcherStatus } from '../watch/api.js';
import { type ModelsUpkeep, createModelsUpkeep } from './models.js';
import { type Shared, once } from './shared.js';

export interface UsageRequest {
  /** Transcript files or folders; empty: the source roots (configured, else the default locations). */
  paths?: string[];
  /** Without paths, only transcripts modified within this many milliseconds (default 24 hours). */
  withinMs?: number;
}

/** Transcripts `moon usage` looks at without PATH: those modified in the last day. */
export const DEFAULT_USAGE_WINDOW_MS = 24 * 3600_000;

export interface ServiceRequest {
  action: 'install' | 'uninstall';
  /** Print the file and the commands; touch nothing. */
  dryRun?: boolean;
  /** The machine to install on; default this one (its platform, HOME from `env`, systemctl or launchctl). */
  host?: ServiceHost;
  env?: NodeJS.ProcessEnv;
}

export interface MigrateRequest {
  /** The target database: `postgres://…`. */
  to: string;
  onProgress?: (done: number, total: number, sessionId: string) => void;
}

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

/**
 * The upkeep plane: status, checks and repair, forgetting, migration, the watcher and its service, usage, continuity,
 * and the embedding models kept in the home (pullModel, listModels, removeModel).
 */
export interface UpkeepPlane extends ModelsUpkeep {
  status(): Promise<StatusReport>;
  /** Check the index (SQLite quick_check) and that archive, ledger and index agree. */
  verify(): Promise<VerifyReport>;
  /** Rebuild the index from the raw archive, aside, then swap it in. */
  rebuild(): Promise<RebuildReport>;
  /** Take sessions back: removed from the index and the archive, tombstoned so no later index re-adds them. */
  forget(request: ForgetRequest): Promise<ForgetReport>;
  /** Remove expired records of every memory plane (src/maintain/gc.ts). */
  gc(): Promise<GcReport>;
  /** Copy this home's index into a PostgreSQL database (resumable); point store.url at it afterwards. */
  migrate(request: MigrateRequest): Promise<MigrateReport>;
  /** L1/L2 distillation, the watcher, its status and stop (src/watch/api.ts), loaded on first use. */
  watcher(): Promise<WatchApi>;
  /** Refuse to write to this home while another home's watcher holds this logs dir's lock (seed 001). */
  checkBoundary(allowOutOfBounds: boolean): Promise<void>;
  /** Context usage of transcripts, from their own usage fields, classified against the context.* ratios. */
  usage(request?: UsageRequest): Promise<UsageReport>;
  /** Build and write the ContinuityMap that carries one session's archive, memory and decisions into another. */
  continuity(request: ContinuityRequest): Promise<ContinuityResult>;
  /** Install or remove the OS service (systemd user unit, launchd agent) that runs `moon watch --daemon`. */
  service(request: ServiceRequest): Promise<ServiceReport>;
}

/** What the watcher runs each cycle, given by the planes that own it. */
export interface UpkeepNeeds {
  index(request: IndexRequest): Promise<IndexResult>;
  digest(request: DigestRequest): Promise<DigestReport>;
}

export function createUpkeep(shared: Shared, needs: UpkeepNeeds): UpkeepPlane {
  const { config, paths, clock, hooks, openStore, databaseUrl } = shared;
  const getWatcher = once(async (): Promise<WatchApi> =>
    (await import('../watch/api.js')).createWatchApi({
      config,
      paths,
      clock,
      index: (request) => needs.index(request),
      provider: shared.getProvider,
      digest: (request) => needs.digest(request),
      roots: () => shared.sourceRoots(undefined),
      checkUsage: (await import('../watch/usage-check.js')).createUsageCheck({
        startRatio: config.context.compaction_start_ratio,
        emergencyRatio: config.context.compaction_emergency_ratio,
        nowMs: clock,
      }),
    }),
  );
  return {
    ...createModelsUpkeep(shared),
    watcher: getWatcher,
    async checkBoundary(allowOutOfBounds) {
      // Only the lock reader: a writing command must not load the watcher, distillation and rendering to ask.
      (await import('../watch/daemon-lock.js')).checkWorkspaceBoundary(paths, allowOutOfBounds);
    },
    async status() {
      const engine = shared.hasIndex() ? await openStore(true) : null;
      const stats = engine
        ? await engine.stats.stats()
        : { sessions: 0, entries: 0, files: 0, anchors: 0, embeddings: 0, embeddingModel: null, bySource: {}, dbBytes: 0, lastRun: null };
      return {
        home: paths.home,
        engine: databaseUrl ? 'postgres' : 'sqlite',
        db: engine?.location ?? paths.db,
        sourceRoots: shared.sourceRoots(undefined),
        timezone: config.distill.residential_timezone,
        ...stats,
        failures: engine ? await engine.ingest.listFailures() : [],
        // The whole file, not only the pages other commands happen to read (about 4 s for a 230 MB index).
        damage: engine ? await engine.stats.checkIntegrity() : null,
        watcher: (await getWatcher()).status(),
        hooks: await (await import('../hooks/usage-state.js')).readHookUsage(paths.home),
      };
    },
    async verify() {
      const { verifyHome } = await import('../maintain/verify.js');
      return verifyHome(paths, () => openStore(true), { location: databaseUrl ? maskUrlPassword(databaseUrl) : paths.db, exists: shared.hasIndex() });
    },
    async rebuild() {
      if (databaseUrl) {
        throw new MoonError('bad_usage', 'moon rebuild rebuilds the embedded SQLite index; this home uses a PostgreSQL database (store.url)', {
          hint: 'the server keeps its own data safe; `moon index --force` re-reads every transcript into it',
        });
      }
      // Sessions are restored as archived: nothing is excluded, whatever the current session is now.
      const context = { ...(await shared.ingestContext()), excludeSessionIds: new Set<string>() };
      const [{ rebuildIndex }, { openSqliteEngine }, { removeDatabaseFiles, sealDatabase, swapDatabase }, { withHomePaths }] = await Promise.all([
        import('../maintain/rebuild.js'),
        import('../store/sqlite/engine.js'),
        import('../store/sqlite/swap.js'),
        import('../store/home-paths.js'),
      ]);
      const open = (path: string): StoreEngine =>
        withHomePaths(openSqliteEngine(path, { lockTimeoutMs: config.index.lock_timeout_ms, onWait: hooks.onNotice, markers: shared.markerConfig }), paths.home);
      return rebuildIndex(
        paths,
        context,
        { open, remove: removeDatabaseFiles, seal: sealDatabase, swap: swapDatabase },
        () => shared.dropStore(),
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
    async forget(request) {
      const { forgetSessions } = await import('../maintain/forget.js');
      return forgetSessions(await openStore(true), new Ledger(paths.ledger), request, {
        zone: config.distill.residential_timezone,
        nowMs: clock(),
      });
    },
    async gc() {
      const { runGc } = await import('../maintain/gc.js');
      return runGc(await openStore(false), clock());
    },
    async migrate(request) {
      if (!/^postgres(ql)?:\/\/\S+$/.test(request.to)) {
        throw new MoonError('bad_usage', `--to must be a PostgreSQL URL (postgres://user:pass@host:5432/db), got "${maskUrlPassword(request.to)}"`);
      }
      if (databaseUrl && databaseUrl === request.to) throw new MoonError('bad_usage', 'this home already uses that database');
      const source = await openStore(true);
      const target = await shared.openDatabase(request.to);
      try {
        const { migrateIndex } = await import('../maintain/migrate.js');
        return await migrateIndex(source, target, { onProgress: request.onProgress, now: clock });
      } finally {
        await target.close();
      }
    },
    async usage(request = {}) {
      const { listSessionUsage } = await import('../usage/list-usage.js');
      const named = request.paths !== undefined && request.paths.length > 0;
      const nowMs = clock();
      return listSessionUsage({
        roots: shared.sourceRoots(request.paths),
        skip: [paths.home],
        modifiedSinceMs: named ? null : nowMs - (request.withinMs ?? DEFAULT_USAGE_WINDOW_MS),
        nowMs,
        thresholds: { startRatio: config.context.compaction_start_ratio, emergencyRatio: config.context.compaction_emergency_ratio },
      });
    },
    async continuity(request) {
      const { createContinuity } = await import('../continuity/create-continuity.js');
      const browse = shared.hasIndex() ? (await openStore(true)).browse : null;
      return createContinuity({ paths, browse, currentSessionId: config.session.current_id ?? null, nowMs: clock() }, request);
    },
    async service(request) {
      const [{ createServiceHost }, { installService, uninstallService }] = await Promise.all([
        import('../service/host.js'),
        import('../service/run-service.js'),
      ]);
      const host = request.host ?? createServiceHost(request.env);
      return request.action === 'install'
        ? installService(host, { moonHome: paths.home, logsDir: paths.logs, dryRun: request.dryRun })
        : uninstallService(host, { dryRun: request.dryRun });
    },
  };
}
