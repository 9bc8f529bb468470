import type { DigestListRequest, DigestReport, DigestRequest, DigestScope, DigestSearchRequest, DigestSearchResult } from '../digest/run-digest.js';
import type { DecisionsRequest, DecisionsResult, FixesRequest, FixesResult } from '../fixes/query.js';
import type { MemoryApi } from '../memory/api.js';
import type { BeadsWriteback } from '../pack/beads.js';
import type { ContextPackRequest, PackDeps } from '../pack/build.js';
import type { DocsIndexReport } from '../pack/documents.js';
import type { ContextPack } from '../pack/types.js';
import type { RunDigest } from '../records/digests.js';
import type { RlmPhase } from '../rlm/generator.js';
import type { HistoryQueryRequest, HistoryQueryResult } from '../rlm/query.js';
import type { ProcessingStatistics } from '../rlm/types.js';
import type { StoreEngine } from '../store/ports.js';
import { recallFrom } from './history.js';
import { loadPlaneHistorySources } from './wiring.js';
import type { Shared } from './shared.js';

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

/** The memory planes: run digests, fix patterns and decisions, long-term memories, context packs, distilled history indexes. */
export interface MemoryPlane {
  /**
   * Run digests (plane B): one session's, or every session lacking a current one (`all`). Heuristic unless a
   * generative provider is configured (distill.provider), which falls back to the heuristic on any failure.
   */
  digestSession(request: DigestRequest): Promise<DigestReport>;
  /** Digests matching the words of `query`, in the caller's namespace unless named or `allNamespaces`. */
  searchDigests(request: DigestSearchRequest): Promise<DigestSearchResult>;
  /** Digests newest first, scoped like searchDigests. */
  listDigests(request?: DigestListRequest): Promise<{ scope: DigestScope; digests: RunDigest[] }>;
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
   * Long-term memory (plane C): add, review, edit, search, import the agents' own memories, propose promotions
   * (src/memory/api.ts). MEMORY_LONG_TERM=mem0 sends add, list and search to Mem0 instead.
   */
  longTerm(): Promise<MemoryApi>;
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
}

export function createMemoryPlane(shared: Shared): MemoryPlane {
  const { config, paths, clock, hooks, openStore } = shared;
  const plane: MemoryPlane = {
    async digestSession(request) {
      const [engine, { digestSessions }] = await Promise.all([openStore(true), import('../digest/run-digest.js')]);
      return digestSessions({ engine, nowMs: clock, provider: async () => (config.distill.provider === 'local' ? null : shared.getProvider()) }, request);
    },
    async searchDigests(request) {
      const [engine, { searchDigests }] = await Promise.all([openStore(true), import('../digest/run-digest.js')]);
      return searchDigests(engine, request, clock());
    },
    async listDigests(request = {}) {
      const [engine, { listDigests }] = await Promise.all([openStore(true), import('../digest/run-digest.js')]);
      return listDigests(engine, request, clock());
    },
    async fixes(request = {}) {
      if (!shared.hasIndex()) return { scope: { namespace: null, all: true, widened: false }, patterns: [] };
      const { queryFixes } = await import('../fixes/query.js');
      return queryFixes((await openStore(true)).fixes, request);
    },
    async decisions(request = {}) {
      if (!shared.hasIndex()) return { scope: { namespace: null, all: true, widened: false }, decisions: [] };
      const { queryDecisions } = await import('../fixes/query.js');
      return queryDecisions((await openStore(true)).fixes, request);
    },
    async longTerm() {
      const env = hooks.env ?? process.env;
      const [{ createMemoryApi }, { mem0FromEnv }] = await Promise.all([import('../memory/api.js'), import('../memory/mem0.js')]);
      const memory = createMemoryApi({ engine: () => openStore(false), clock, env, mem0: mem0FromEnv(env) });
      // Provenance names sessions as given back by moon (prefixes included): stored by their full ids. A whole id
      // not indexed yet (the session in progress) is kept as it is.
      return {
        ...memory,
        async add(request) {
          if (!request.sessionIds || request.sessionIds.length === 0) return memory.add(request);
          const { requireSessionIds } = await import('../browse/resolve-session-id.js');
          const { ids, unknown } = await requireSessionIds((await openStore(false)).browse, request.sessionIds, { keepUnknownFull: true });
          return memory.add({ ...request, sessionIds: [...ids, ...unknown] });
        },
      };
    },
    async contextPack(request, options = {}) {
      const reader = (): Promise<StoreEngine> => openStore(true);
      const [{ buildContextPack }, { recallHistorySource }, { loadTokenCounter }, planes] = await Promise.all([
        import('../pack/build.js'),
        import('../pack/sources.js'),
        import('../text/tokens.js'),
        loadPlaneHistorySources(reader, clock),
      ]);
      const pack = await buildContextPack(
        {
          memory: config.memory,
          memoryFile: paths.memoryFile,
          docs: async () => (await reader()).docs,
          // Fix patterns for the error first, then decisions followed to their outcome, digests of similar runs,
          // and what was said (recall): the packager takes each section's candidates in this order.
          history: [
            ...planes,
            ...(request.recall === false
              ? []
              : [
                  recallHistorySource({
                    // No embedding model is loaded for a pack (the < 100 ms goal): lexical, trigram and time signals.
                    recall: async (recallOptions) => recallFrom(shared, await reader(), recallOptions, false),
                    listSessionPlaces: async () => (await reader()).browse.listSessionPlaces(),
                  }),
                ]),
          ],
          // Every plane is asked in the pack's own namespace (null: all); none widens on its own.
          longTerm:
            config.memory.long_term === 'off'
              ? null
              : async (_query, namespace) =>
                  (await plane.longTerm()).list({ states: ['approved'], limit: 20, cwd: process.cwd(), ...(namespace === null ? { allNamespaces: true } : { namespace }) }),
          counter: loadTokenCounter,
          safe: async () => {
            const safe = await shared.safeText();
            return (text) => safe(text);
          },
          clock,
          ...options,
        },
        request,
      );
      return shared.makeSafe(pack);
    },
    async planning(cwd) {
      const [{ beadsWriteback }, { resolveNamespace }] = await Promise.all([import('../pack/beads.js'), import('../records/envelope.js')]);
      const here = cwd ?? process.cwd();
      return beadsWriteback(resolveNamespace(here).root ?? here, { log: (message) => hooks.onNotice?.(message) });
    },
    async indexDocs(request = {}) {
      const [{ indexDocs }, { resolveNamespace }, { resolve }] = await Promise.all([
        import('../pack/documents.js'),
        import('../records/envelope.js'),
        import('node:path'),
      ]);
      const namespace = resolveNamespace(request.path ? resolve(request.path) : process.cwd());
      const root = request.path ? resolve(request.path) : (namespace.root ?? process.cwd());
      const target = request.namespace ? { ...namespace, namespace_id: request.namespace } : namespace;
      return indexDocs((await openStore(false)).docs, target, root, clock());
    },
    async rlmIndex(request) {
      const [{ generateHistoryIndex }, { formatStatistics }, { openTokenCounter }] = await Promise.all([
        import('../rlm/generator.js'),
        import('../rlm/stats.js'),
        import('../text/tokens.js'),
      ]);
      // A counter of the run's own (a worker in the built package): its tokenizer is let go once the first pass
      // has counted every prompt, which the run's peak memory feels (docs/benchmarks.md).
      const counter = openTokenCounter();
      const provider = config.distill.provider === 'local' ? null : await shared.getProvider();
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
          markerConfig: shared.markerConfig,
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
      const { queryHistoryIndex } = await import('../rlm/query.js');
      return queryHistoryIndex(request);
    },
  };
  return plane;
}
