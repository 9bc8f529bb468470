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
  const session = await store.getSession(sessionId);
  if (!session) return null;
  const entries = await store.listEntries(sessionId);
  // The session's terms go in first, so the corpus counts it like every other session.
  const terms = listSessionTerms(entries);
  await store.putSessionTerms(sessionId, terms);
  const { sessionCount, counts } = await store.countSessionTerms(terms);
  const path = writeProjection(context, {
    session,
    corpus: { sessionCount, countSessionsWith: (term) => counts.get(term) ?? 0 },
    entries,
    anchors: await store.listAnchors(sessionId),
    filteredNoiseCount: session.filteredNoiseCount,
    archivePath: session.archivePath ?? '',
    contentHash: session.contentHash ?? '',
    timezone: context.timezone,
  });
  await store.markProjected(sessionId, path);
  return path;
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
