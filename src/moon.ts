import { existsSync } from 'node:fs';
import { Ledger } from './archive/ledger.js';
import { type MoonPaths, projectionPathFor, resolvePaths } from './archive/paths.js';
import { type MoonConfig, defaultSourceRoots } from './config.js';
import { MoonError } from './errors.js';
import type { IngestContext } from './ingest/context.js';
import { type IndexReport, runIndex } from './ingest/run-index.js';
import { type SnapshotReport, runSnapshot } from './ingest/run-snapshot.js';
import type { RecallResult } from './model.js';
import { normalizeChunk } from './normalize/index.js';
import { createRedactor } from './normalize/redact.js';
import type { RecallOptions } from './search/options.js';
import { recall } from './search/recall.js';
import { openSqliteStore } from './store/sqlite/sqlite-store.js';
import type { Store, StoreStats } from './store/store.js';

export interface IndexRequest {
  /** Files or folders; empty: the configured source roots, else the default locations. */
  roots?: string[];
  force?: boolean;
  reproject?: boolean;
  excludeSessions?: string[];
  onProgress?: (done: number, total: number, path: string) => void;
}

export interface StatusReport extends StoreStats {
  home: string;
  db: string;
  sourceRoots: string[];
  timezone: string;
}

export interface Moon {
  readonly config: MoonConfig;
  readonly paths: MoonPaths;
  index(request?: IndexRequest): IndexReport;
  snapshot(request?: Pick<IndexRequest, 'roots' | 'excludeSessions'>): SnapshotReport;
  recall(options: RecallOptions): RecallResult;
  status(): StatusReport;
  close(): void;
}

/**
 * The composition root: turns a config into wired stages. The only place that picks concrete
 * implementations (SQLite store, redactor, sources); every interface (CLI, MCP, HTTP) goes through here.
 */
export function createMoon(config: MoonConfig, clock: () => number = Date.now): Moon {
  const paths = resolvePaths(config.home);
  const redact = createRedactor({ enabled: config.privacy.redact, extraPatterns: config.privacy.extra_patterns });
  let store: Store | null = null;
  const openStore = (mustExist: boolean): Store => {
    if (!store) {
      if (mustExist && !existsSync(paths.db)) {
        throw new MoonError('not_found', `no index at ${paths.db}`, { hint: 'run `moon index` first' });
      }
      store = openSqliteStore(paths.db);
    }
    return store;
  };
  const ingestContext = (excludeSessions: string[] = []): IngestContext => ({
    paths,
    ledger: new Ledger(paths.ledger),
    normalize: (chunk) => normalizeChunk(chunk, { redact, minLength: config.index.min_message_chars }),
    timezone: config.distill.residential_timezone,
    maxLineBytes: config.index.max_line_bytes,
    excludeSessionIds: new Set([...excludeSessions, ...(config.session.current_id ? [config.session.current_id] : [])]),
    now: clock,
  });
  const sourceRoots = (roots: string[] | undefined): string[] => {
    if (roots && roots.length > 0) return roots;
    if (config.sources.roots.length > 0) return config.sources.roots;
    return defaultSourceRoots();
  };
  const excluded = (extra: string[] = []): string[] => [
    ...extra,
    ...(config.session.current_id ? [config.session.current_id] : []),
  ];

  return {
    config,
    paths,
    index(request = {}) {
      const roots = sourceRoots(request.roots);
      return runIndex(ingestContext(request.excludeSessions), openStore(false), {
        roots,
        force: request.force,
        reproject: request.reproject,
        onProgress: request.onProgress,
      });
    },
    snapshot(request = {}) {
      return runSnapshot(ingestContext(request.excludeSessions), sourceRoots(request.roots));
    },
    recall(options) {
      return recall(
        {
          store: openStore(true),
          timezone: config.distill.residential_timezone,
          defaults: {
            limit: config.recall.limit,
            messagesPerSession: config.recall.messages_per_session,
            snippetChars: config.recall.snippet_chars,
          },
          projectionPathFor: (sessionId) => projectionPathFor(paths, sessionId),
          nowMs: clock,
        },
        { ...options, excludeSession: excluded(options.excludeSession) },
      );
    },
    status() {
      const stats = existsSync(paths.db)
        ? openStore(true).stats()
        : { sessions: 0, entries: 0, files: 0, anchors: 0, bySource: {}, dbBytes: 0, lastRun: null };
      return {
        home: paths.home,
        db: paths.db,
        sourceRoots: sourceRoots(undefined),
        timezone: config.distill.residential_timezone,
        ...stats,
      };
    },
    close() {
      store?.close();
      store = null;
    },
  };
}
