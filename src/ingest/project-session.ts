import { projectionPathFor } from '../archive/paths.js';
import { writeFileAtomic } from '../archive/write.js';
import { type Entry, mergeEntryInto } from '../model.js';
import type { SessionDoc } from '../project/doc.js';
import { type RankedTerm, rankSessionTerms } from '../normalize/keywords.js';
import { renderProjection } from '../project/render.js';
import type { ParsedChunk } from '../sources/source.js';
import type { IngestPort } from '../store/ports.js';
import type { IngestContext } from './context.js';

/** Render a session's v2 projection from the index and write it to archives/mlib/<session>.md. */
export async function projectStoredSession(context: IngestContext, store: IngestPort, sessionId: string): Promise<string | null> {
  const [collected] = await collectProjections(context, store, [sessionId]);
  if (!collected) return null;
  const path = await renderCollected(context, store, { ...collected, counts: await store.countSessionTerms(collected.terms) });
  if (path) await store.markProjected(sessionId, path);
  return path;
}

/** A session about to be projected: its candidate keyword terms (recorded in the index) and their ranking. */
export interface CollectedProjection {
  sessionId: string;
  terms: string[];
  ranked: RankedTerm[];
}

/**
 * Record the keyword terms of the sessions to project, all of them before any is rendered: each projection then
 * ranks its keywords against the same corpus, whether the sessions render one after the other or side by side
 * on workers. A session's entries are read here for its terms and again when it renders, so a batch never holds
 * more than a few sessions in memory. Sessions that no longer exist are left out.
 */
export async function collectProjections(context: IngestContext, store: IngestPort, sessionIds: readonly string[]): Promise<CollectedProjection[]> {
  const workers = context.workers ?? null;
  const collected = await mapLimited(sessionIds, IN_FLIGHT, async (sessionId): Promise<CollectedProjection | null> => {
    if (!(await store.getSession(sessionId))) return null;
    const entries = await store.listEntries(sessionId);
    const ranked = workers ? await workers.rankTerms(entries) : rankSessionTerms(entries);
    return { sessionId, terms: ranked.map((item) => item.term), ranked };
  });
  const present = collected.filter((item): item is CollectedProjection => item !== null);
  // The sessions' terms go in first (one transaction), so the corpus counts each like every other session.
  await store.putSessionTerms(present);
  return present;
}

/** Sessions read or rendered at once: enough to keep two workers busy, few enough to keep memory flat. */
export const IN_FLIGHT = 4;

/** Read a session again and render it, its keywords ranked against the corpus counts of its terms. */
export async function renderCollected(
  context: IngestContext,
  store: IngestPort,
  collected: CollectedProjection & { counts: { sessionCount: number; counts: Map<string, number> } },
): Promise<string | null> {
  const session = await store.getSession(collected.sessionId);
  if (!session) return null;
  const doc = {
    session,
    entries: await store.listEntries(collected.sessionId),
    anchors: await store.listAnchors(collected.sessionId),
    filteredNoiseCount: session.filteredNoiseCount,
    archivePath: session.archivePath ?? '',
    contentHash: session.contentHash ?? '',
    timezone: context.timezone,
    rankedTerms: collected.ranked,
  };
  const { sessionCount, counts } = collected.counts;
  const workers = context.workers ?? null;
  if (workers) return workers.render(doc, { sessionCount, counts });
  return writeProjection(context, { ...doc, corpus: { sessionCount, countSessionsWith: (term) => counts.get(term) ?? 0 } });
}

/** `work` over `items`, at most `limit` at a time, results in order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

export function writeProjection(context: IngestContext, doc: SessionDoc): string {
  const path = projectionPathFor(context.paths, doc.session.id);
  writeFileAtomic(path, renderProjection(doc));
  return path;
}

/** A whole file parsed in one chunk, as a SessionDoc (what `moon snapshot` renders without an index). */
export function docFromChunk(
  context: IngestContext,
  chunk: ParsedChunk,
  input: { filteredNoiseCount: number; archivePath: string; contentHash: string },
): SessionDoc {
  return {
    session: chunk.session,
    entries: mergeEntriesByKey(chunk.entries),
    anchors: chunk.anchors,
    filteredNoiseCount: input.filteredNoiseCount,
    archivePath: input.archivePath,
    contentHash: input.contentHash,
    timezone: context.timezone,
  };
}

/** The in-memory twin of the store's upsert: entries sharing a key continue one message. */
export function mergeEntriesByKey(entries: readonly Entry[]): Entry[] {
  const byKey = new Map<string, Entry>();
  for (const entry of entries) {
    const existing = byKey.get(entry.key);
    if (existing) mergeEntryInto(existing, entry);
    else byKey.set(entry.key, { ...entry });
  }
  return [...byKey.values()].sort((a, b) => a.seq - b.seq);
}
