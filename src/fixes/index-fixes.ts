import { type Namespace, resolveNamespace } from '../records/envelope.js';
import type { StoreEngine } from '../store/ports.js';
import { extractFixEvents, hashFileOnDisk } from './extract.js';

export interface FixIndexOptions {
  /** The namespace rule (records.ts); replaceable for tests. */
  resolve?: (cwd: string | null, project: string | null) => Namespace;
  hashFile?: (path: string) => string | null;
}

/**
 * Record the fix facts of the sessions a run touched (each session's facts replaced whole). One pass over each
 * session's entries, plus one hash per file its edits touched: the cost of indexing grows with what changed,
 * never with the size of the index. Returns how many facts were recorded.
 */
export async function indexSessionFixes(
  engine: Pick<StoreEngine, 'ingest' | 'fixes'>,
  sessionIds: readonly string[],
  options: FixIndexOptions = {},
): Promise<number> {
  const resolve = options.resolve ?? resolveNamespace;
  const namespaces = new Map<string, Namespace>();
  let recorded = 0;
  for (const sessionId of sessionIds) {
    const session = await engine.ingest.getSession(sessionId);
    if (!session) continue;
    const key = `${session.cwd ?? ''}\u0000${session.project ?? ''}`;
    let namespace = namespaces.get(key);
    if (!namespace) {
      namespace = resolve(session.cwd, session.project);
      namespaces.set(key, namespace);
    }
    const events = extractFixEvents(sessionId, session.cwd, namespace, await engine.ingest.listEntries(sessionId), options.hashFile ?? hashFileOnDisk);
    await engine.fixes.putSessionEvents(sessionId, events);
    recorded += events.length;
  }
  return recorded;
}
