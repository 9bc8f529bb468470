import { projectionPathFor } from '../archive/paths.js';
import { writeFileAtomic } from '../archive/write.js';
import { type Entry, mergeEntryInto } from '../model.js';
import type { SessionDoc } from '../project/doc.js';
import { listSessionTerms } from '../normalize/keywords.js';
import { renderProjection } from '../project/render.js';
import type { ParsedChunk } from '../sources/source.js';
import type { IngestPort } from '../store/ports.js';
import type { IngestContext } from './context.js';

/** Render a session's v2 projection from the index and write it to archives/mlib/<session>.md. */
export async function projectStoredSession(context: IngestContext, store: IngestPort, sessionId: string): Promise<string | null> {
  const [collected] = await collectProjections(context, store, [sessionId]);
  if (!collected) return null;
  const path = await renderCollected(context, { ...collected, counts: await store.countSessionTerms(collected.terms) });
  await store.markProjected(sessionId, path);
  return path;
}

/** What a projection is rendered from, read from the index, with the session's candidate keyword terms. */
export interface CollectedProjection {
  doc: Omit<SessionDoc, 'corpus'>;
  terms: string[];
}

/**
 * Read the sessions to project and record their keyword terms, all of them before any is rendered: each
 * projection then ranks its keywords against the same corpus, whether the sessions render one after the other
 * or side by side on workers. Sessions that no longer exist are left out.
 */
export async function collectProjections(context: IngestContext, store: IngestPort, sessionIds: readonly string[]): Promise<CollectedProjection[]> {
  const workers = context.workers ?? null;
  const collected = await Promise.all(
    sessionIds.map(async (sessionId): Promise<CollectedProjection | null> => {
      const session = await store.getSession(sessionId);
      if (!session) return null;
      const entries = await store.listEntries(sessionId);
      const terms = workers ? await workers.listTerms(entries) : listSessionTerms(entries);
      const doc = {
        session,
        entries,
        anchors: await store.listAnchors(sessionId),
        filteredNoiseCount: session.filteredNoiseCount,
        archivePath: session.archivePath ?? '',
        contentHash: session.contentHash ?? '',
        timezone: context.timezone,
      };
      return { doc, terms };
    }),
  );
  const present = collected.filter((item): item is CollectedProjection => item !== null);
  // The sessions' terms go in first, so the corpus counts each like every other session.
  for (const item of present) await store.putSessionTerms(item.doc.session.id, item.terms);
  return present;
}

/** Render and write a collected projection, its keywords ranked against the corpus counts read for it. */
export async function renderCollected(
  context: IngestContext,
  collected: CollectedProjection & { counts: { sessionCount: number; counts: Map<string, number> } },
): Promise<string> {
  const { sessionCount, counts } = collected.counts;
  const workers = context.workers ?? null;
  if (workers) return workers.render(collected.doc, { sessionCount, counts });
  return writeProjection(context, { ...collected.doc, corpus: { sessionCount, countSessionsWith: (term) => counts.get(term) ?? 0 } });
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
