import { type MoonPaths, projectionPathFor } from '../archive/paths.js';
import type { MoonConfig } from '../config.js';
import type { IngestSettings } from '../ingest/settings.js';
import { listMarkerTypes } from '../markers/config.js';
import type { MarkerConfig } from '../markers/extract.js';
import type { HistorySource } from '../pack/sources.js';
import type { RecallEnvironment } from '../search/recall.js';
import type { StoreEngine } from '../store/ports.js';

/**
 * What the planes (src/app/shared.ts) and the hook door's own composition (src/app/hook-deps.ts) wire alike from
 * the configuration: one rule each, so a hook recalls, captures and packs exactly as a command does. Light on
 * purpose (types and two small modules): the hook door imports it on its fast path.
 */

/** The sessions a run leaves out: those asked for, and the session moon itself runs in (session.current_id). */
export function listExcludedSessions(config: MoonConfig, extra: readonly string[] = []): string[] {
  return [...extra, ...(config.session.current_id ? [config.session.current_id] : [])];
}

/** How transcripts are read and cleaned into the index of `home`. */
export function describeIngestSettings(config: MoonConfig, home: string, excludeSessions: readonly string[] = []): IngestSettings {
  return {
    home,
    redact: { enabled: config.privacy.redact, extraPatterns: config.privacy.extra_patterns },
    minMessageChars: config.index.min_message_chars,
    timezone: config.distill.residential_timezone,
    maxLineBytes: config.index.max_line_bytes,
    exclude: config.sources.exclude,
    excludeSessionIds: listExcludedSessions(config, excludeSessions),
  };
}

/** What recall reads from `source`; `embedQuery` null: no embedding model is loaded (hooks, packs). */
export function describeRecallEnvironment(
  wiring: { config: MoonConfig; paths: MoonPaths; clock: () => number; markerConfig: MarkerConfig },
  source: StoreEngine,
  embedQuery: RecallEnvironment['embedQuery'],
): RecallEnvironment {
  const { config, paths, clock } = wiring;
  return {
    search: source.search,
    fields: source.fields,
    vectors: embedQuery === null ? null : source.vectors,
    timezone: config.distill.residential_timezone,
    defaults: {
      limit: config.recall.limit,
      messagesPerSession: config.recall.messages_per_session,
      snippetChars: config.recall.snippet_chars,
      strategy: config.recall.strategy,
      sessionFields: config.recall.session_fields,
    },
    projectionPathFor: (sessionId) => projectionPathFor(paths, sessionId),
    nowMs: clock,
    embedQuery,
    listEntries: (sessionId) => source.browse.listEntries(sessionId),
    markerTypes: listMarkerTypes(wiring.markerConfig),
  };
}

/** The code a kept fact fold was made by (FixPort.readFold): the fold's own version and the build's id. */
export async function describeFactFoldBuild(): Promise<string> {
  const [{ FACT_FOLD_VERSION }, { readBuildId }] = await Promise.all([import('../fixes/query.js'), import('../runtime/build-paths.js')]);
  return `${FACT_FOLD_VERSION}:${readBuildId()}`;
}

/**
 * The memory planes' history sources of a context pack, in the order the packager takes them: fix patterns for the
 * error, decisions followed to their outcome, digests of similar runs. Fix patterns and decisions read one set of
 * facts per pack (src/fixes/query.ts).
 */
export async function loadPlaneHistorySources(reader: () => Promise<StoreEngine>, clock: () => number): Promise<HistorySource[]> {
  const [{ decisionHistorySource, digestHistorySource, fixHistorySource }, { readPackFacts }] = await Promise.all([
    import('../pack/plane-sources.js'),
    import('../fixes/query.js'),
  ]);
  let packFacts: ReturnType<typeof readPackFacts> | null = null;
  // The namespace's facts are folded once per change of them, not once per pack (FixPort.readFold).
  const facts = async () => (packFacts ??= readPackFacts((await reader()).fixes, undefined, await describeFactFoldBuild()));
  return [
    fixHistorySource(async (text, namespace) => (await facts()).patterns(namespace, text, 5)),
    decisionHistorySource(async (namespace) => (await facts()).decisions(namespace)),
    digestHistorySource(async (query, namespace) => (await (await reader()).digests.search({ text: query, namespace, limit: 4, nowMs: clock() })).map((hit) => hit.digest)),
  ];
}
