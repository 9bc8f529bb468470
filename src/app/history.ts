import { Ledger } from '../archive/ledger.js';
import { projectionPathFor } from '../archive/paths.js';
import type { ContextUsageSession } from '../browse/context-usage.js';
import type { EntriesRequest, EntriesResult } from '../browse/entries.js';
import type { MarkersRequest, MarkersResult } from '../browse/markers.js';
import type { GetSessionRequest, GetSessionResult } from '../browse/session-slice.js';
import type { SessionListing, SessionsRequest } from '../browse/sessions.js';
import type { ShowRequest, ShowResult } from '../browse/show.js';
import type { TimelineRequest, TimelineResult } from '../browse/timeline.js';
import type { IndexRequest, IndexResult } from '../ingest/index-request.js';
import type { IndexReport } from '../ingest/run-index.js';
import type { SnapshotReport } from '../ingest/run-snapshot.js';
import { listMarkerTypes } from '../markers/config.js';
import type { RecallResult } from '../model.js';
import type { RecallOptions } from '../search/options.js';
import type { ProjectScope, ScopeRequest } from '../search/scope.js';
import type { StoreEngine } from '../store/ports.js';
import type { Shared } from './shared.js';
import { describeRecallEnvironment } from './wiring.js';

/** The history plane: indexing transcripts, recall over them, and browsing sessions, entries, timelines and markers. */
export interface HistoryPlane {
  index(request?: IndexRequest): Promise<IndexResult>;
  snapshot(request?: Pick<IndexRequest, 'roots' | 'excludeSessions'>): Promise<SnapshotReport>;
  recall(options: RecallOptions): Promise<RecallResult>;
  /** Indexed sessions, newest first, with their time range, title, message count and tools. */
  sessions(request?: SessionsRequest): Promise<SessionListing>;
  /** The newest sessions' context usage, snapshot by snapshot (browse/context-usage.ts). */
  contextUsage(request?: { limit?: number }): Promise<ContextUsageSession[]>;
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
   * `@/` markers (`@/decision: …`, seed 004 §2) found in the indexed messages, newest first: the caller's project's
   * unless `allProjects` or a session is named, with counts by type.
   */
  markers(request?: MarkersRequest): Promise<MarkersResult>;
  /** The marker types this configuration finds (seed 004's nine unless `markers.defaults = false`, plus custom ones). */
  markerTypes(): string[];
  /** Snapshot and index one transcript for a hook, in the process that has time for it (session-end's detached child). */
  captureTranscript(path: string): Promise<IndexResult>;
}

export function createHistory(shared: Shared): HistoryPlane {
  const { config, paths, openStore } = shared;
  const zone = config.distill.residential_timezone;
  const projectionOf = (sessionId: string): string => projectionPathFor(paths, sessionId);
  const plane: HistoryPlane = {
    async index(request = {}) {
      const roots = shared.sourceRoots(request.roots);
      return indexInto(shared, await openStore(false), request, roots);
    },
    async snapshot(request = {}) {
      const { runSnapshot } = await import('../ingest/run-snapshot.js');
      return shared.redactReport(runSnapshot(await shared.ingestContext(request.excludeSessions), shared.sourceRoots(request.roots)));
    },
    async recall(options) {
      // The store and the search stage load side by side (cold start, docs/benchmarks.md).
      const [source] = await Promise.all([openStore(true), import('../search/recall.js')]);
      return recallFrom(shared, source, await expandSessionPrefixes(source, options), config.embed.provider !== 'none');
    },
    async sessions(request = {}) {
      const { listSessions } = await import('../browse/sessions.js');
      return listSessions((await openStore(true)).browse, request, zone, shared.clock());
    },
    async show(request) {
      const { showSession } = await import('../browse/show.js');
      return showSession((await openStore(true)).browse, request, { timezone: zone, projectionPathFor: projectionOf });
    },
    async timeline(request) {
      const [source, { readTimeline }] = await Promise.all([openStore(true), import('../browse/timeline.js')]);
      return readTimeline({ browse: source.browse, search: source.search, timezone: zone, projectionPathFor: projectionOf }, request);
    },
    async getEntries(request) {
      const [source, { readEntries }] = await Promise.all([openStore(true), import('../browse/entries.js')]);
      return readEntries(source.browse, request, { timezone: zone, projectionPathFor: projectionOf });
    },
    async contextUsage(request = {}) {
      const [source, { readContextUsage }] = await Promise.all([openStore(true), import('../browse/context-usage.js')]);
      return readContextUsage(source.browse, source.copy, request.limit ?? 30);
    },
    async getSession(request) {
      const [source, { readSession }] = await Promise.all([openStore(true), import('../browse/session-slice.js')]);
      return readSession(source.browse, request, { timezone: zone, projectionPathFor: projectionOf });
    },
    async resolveScope(request) {
      const { resolveProjectScope } = await import('../search/scope.js');
      // Every project needs no look at the index (and works before one exists).
      if (request.allProjects) return resolveProjectScope(request, []);
      return resolveProjectScope(request, await (await openStore(true)).browse.listSessionPlaces());
    },
    async markers(request = {}) {
      const [engine, { queryMarkers }] = await Promise.all([openStore(true), import('../browse/markers.js')]);
      await engine.markers.sync();
      return queryMarkers({ markers: engine.markers, browse: engine.browse, knownTypes: listMarkerTypes(shared.markerConfig), zone, nowMs: shared.clock() }, request);
    },
    markerTypes() {
      return listMarkerTypes(shared.markerConfig);
    },
    async captureTranscript(path) {
      return plane.index({ roots: [path], workers: 0 });
    },
  };
  return plane;
}

/** Index into `target` (the shared store, or a hook's own engine with a shorter lock wait). */
export async function indexInto(shared: Shared, target: StoreEngine, request: IndexRequest, roots: string[]): Promise<IndexResult> {
  const { config, paths, clock } = shared;
  const [{ syncTombstones }, { runIndex }, { IngestPool, chooseWorkerCount }, context] = await Promise.all([
    import('../maintain/forget.js'),
    import('../ingest/run-index.js'),
    import('../ingest/pool.js'),
    shared.ingestContext(request.excludeSessions),
  ]);
  const workerCount = chooseWorkerCount(request.workers ?? config.index.workers);
  // Index documents (and their postings) are built on the workers: the writer is the busiest thread, and even a
  // single worker waits on it about half the time (docs/benchmarks.md, pruned top-k).
  const workers = workerCount > 0 ? new IngestPool({ ...shared.ingestSettings(request.excludeSessions), prepareDocuments: true }, workerCount) : null;
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
  const active = request.noEmbed || report.stopped ? null : await shared.getEmbedder();
  const embeddings = active
    ? await (await import('../embed/pipeline.js')).embedPending(target, active, {
        batchSize: config.embed.batch_size,
        onProgress: request.onEmbedProgress,
      })
    : null;
  return { ...(await shared.redactReport(report)), embeddings };
}

/** Recall over `source`; without vectors (a hook's recall, a context pack), no embedding model is ever loaded. */
export async function recallFrom(shared: Shared, source: StoreEngine, options: RecallOptions, useVectors: boolean): Promise<RecallResult> {
  const { recall } = await import('../search/recall.js');
  // Filtering on markers: they must be the ones these patterns give (derived once after the patterns change).
  if ((options.marker?.length ?? 0) > 0) await source.markers.sync();
  return recall(describeRecallEnvironment(shared, source, useVectors ? (text) => embedQuery(shared, source, text) : null), {
    ...options,
    excludeSession: shared.excluded(options.excludeSession),
  });
}

/** Vectors are only comparable within one model: use the query vector only when the index was built by it. */
async function embedQuery(shared: Shared, source: StoreEngine, text: string): Promise<Float32Array | null> {
  const active = await shared.getEmbedder();
  const model = await source.vectors.getModel();
  if (!active || !model || model.id !== active.id || (await source.vectors.count()) === 0) return null;
  const [vector] = await active.embed([text]);
  return vector ?? null;
}

/**
 * Recall narrowed to sessions by prefix: each `session` that is not a full-length id becomes the full id of the
 * one session it names (resolve-session-id.ts); a full-length one is a filter as it is (no query per id).
 */
async function expandSessionPrefixes(source: StoreEngine, options: RecallOptions): Promise<RecallOptions> {
  const named = options.session ?? [];
  if (named.length === 0) return options;
  const { isFullLengthSessionId, requireSessionIds } = await import('../browse/resolve-session-id.js');
  const short = named.filter((id) => !isFullLengthSessionId(id));
  if (short.length === 0) return options;
  const { ids } = await requireSessionIds(source.browse, short);
  return { ...options, session: [...named.filter(isFullLengthSessionId), ...ids] };
}
