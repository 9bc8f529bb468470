import { yieldToEventLoop } from './yield.js';
import { projectionPathFor } from '../archive/paths.js';
import { writeFileAtomic } from '../archive/write.js';
import { type Entry, type ResultPatch, mergeByKey } from '../model.js';
import type { SessionDoc } from '../project/doc.js';
import { type RankedTerm, rankSessionTerms } from '../normalize/keywords.js';
import { renderProjection } from '../project/render.js';
import type { ParsedChunk } from '../sources/source.js';
import type { IngestPort } from '../store/ports.js';
import type { IngestContext } from './context.js';
import { buildFieldDoc } from '../digest/session-fields.js';
import type { SessionFieldDoc } from '../store/types.js';

/** A session about to be projected: its candidate keyword terms, best first (recorded in the index). */
export interface CollectedProjection {
  sessionId: string;
  ranked: RankedTerm[];
}

/** The terms the index records for a collected session. */
export function termsOf(collected: CollectedProjection): string[] {
  return collected.ranked.map((item) => item.term);
}

/**
 * Record the keyword terms of the sessions to project, all of them before any is rendered: each projection then
 * ranks its keywords against the same corpus, whether the sessions render one after the other or side by side
 * on workers. A session's terms come ranked from its parse when the run wrote it from the start (index-file.ts);
 * any other session is read here for them. Every session is read again when it renders, a few at a time, so a
 * batch never holds more than a few sessions in memory. The caller passes sessions it found in the store.
 */
export async function collectProjections(
  context: IngestContext,
  store: IngestPort,
  sessions: readonly { sessionId: string; ranked?: RankedTerm[] | null }[],
): Promise<CollectedProjection[]> {
  const workers = context.workers ?? null;
  const collected = await mapLimited(sessions, IN_FLIGHT, async ({ sessionId, ranked = null }): Promise<CollectedProjection> => {
    if (ranked) return { sessionId, ranked };
    await yieldToEventLoop();
    const entries = await store.listEntries(sessionId);
    return { sessionId, ranked: workers ? await workers.rankTerms(entries) : rankSessionTerms(entries) };
  });
  // The sessions' terms go in first (one transaction), so the corpus counts each like every other session.
  await store.putSessionTerms(collected.map((item) => ({ sessionId: item.sessionId, terms: termsOf(item) })));
  return collected;
}

/** Sessions read or rendered at once: enough to keep two workers busy, few enough to keep memory flat. */
export const IN_FLIGHT = 4;

/** Read a session again and render it, its keywords ranked against the corpus counts of its terms. */
/** A projection written, and the session's fields made from the same read (digest/session-fields.ts). */
export interface Rendered {
  path: string;
  fields: SessionFieldDoc;
}

export async function renderCollected(
  context: IngestContext,
  store: IngestPort,
  collected: CollectedProjection & { counts: { sessionCount: number; counts: Map<string, number> } },
): Promise<Rendered | null> {
  await yieldToEventLoop();
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
  const path = writeProjection(context, { ...doc, corpus: { sessionCount, countSessionsWith: (term) => counts.get(term) ?? 0 } });
  return { path, fields: buildFieldDoc(doc) };
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
    entries: mergeEntriesByKey(chunk.entries, chunk.results),
    anchors: chunk.anchors,
    filteredNoiseCount: input.filteredNoiseCount,
    archivePath: input.archivePath,
    contentHash: input.contentHash,
    timezone: context.timezone,
  };
}

/** The in-memory twin of the store's upsert (model.ts mergeByKey), results attached, in session order. */
export function mergeEntriesByKey(entries: readonly Entry[], results: readonly ResultPatch[] = []): Entry[] {
  return inSessionOrder(mergeByKey(entries, results));
}

/** Merged entries in the order the store lists a session's entries. */
export function inSessionOrder(merged: ReadonlyMap<string, Entry>): Entry[] {
  return [...merged.values()].sort((a, b) => a.seq - b.seq);
}
