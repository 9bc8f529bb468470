import { existsSync } from 'node:fs';
import { type MoonPaths, projectionPathFor, rawArchivePathFor } from '../archive/paths.js';
import { SOURCES } from '../sources/index.js';

/**
 * Where a session is archived: its raw copies (`archives/raw/<source>/<session>.jsonl`, and the copy the index
 * names when it is elsewhere), sorted, then its projection (`archives/mlib/<session>.md`). Only files that exist.
 */
export function listArchiveRefs(paths: MoonPaths, sessionId: string, indexed: { archivePath: string | null; projectionPath: string | null } | null): string[] {
  const raw = new Set(SOURCES.map((source) => rawArchivePathFor(paths, source.name, sessionId)));
  if (indexed?.archivePath) raw.add(indexed.archivePath);
  const projection = indexed?.projectionPath ?? projectionPathFor(paths, sessionId);
  return [...[...raw].filter((path) => existsSync(path)).sort(), ...(existsSync(projection) ? [projection] : [])];
}

/** The projection among a session's archive references, if it has one. */
export function findProjectionRef(refs: readonly string[]): string | null {
  return refs.find((ref) => ref.endsWith('.md')) ?? null;
}
