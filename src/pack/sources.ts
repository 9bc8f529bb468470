import { basename } from 'node:path';
import { readMemoryLines } from '../memory/memory-lines.js';
import { resolveNamespace } from '../records/envelope.js';
import type { RecallResult } from '../model.js';
import type { RecallOptions } from '../search/options.js';
import type { SessionPlace } from '../store/types.js';
import { type PackCandidate, type PackRequest, type PackSubsystem, SubsystemUnavailable } from './types.js';

/**
 * History today: recall over the namespace's own sessions (what was said the last times this was worked on).
 * Run digests and fix patterns (src/pack/plane-sources.ts) join it as further history sources: `historySubsystem` takes a list.
 */
export type HistorySource = (request: PackRequest, budget: number) => Promise<PackCandidate[]>;

export function historySubsystem(sources: readonly HistorySource[], deadlineMs = 400): PackSubsystem {
  return {
    name: 'history',
    deadlineMs,
    async gather(request, budget) {
      const lists = await Promise.all(sources.map((source) => source(request, budget)));
      return lists.flat();
    },
  };
}

export interface RecallHistoryDeps {
  recall(options: RecallOptions): Promise<RecallResult>;
  listSessionPlaces(): Promise<SessionPlace[]>;
  /** The namespace of a session's place (resolveNamespace, cached by the caller if it likes). */
  namespaceOf?(place: SessionPlace): string;
}

/** Sessions of the namespace (null: all), by the one namespace rule; an error text is searched first. */
/** Namespaces by (cwd, project), for the life of the process: resolving one reads the disk. */
const NAMESPACE_CACHE = new Map<string, string>();

export function recallHistorySource(deps: RecallHistoryDeps): HistorySource {
  const cache = NAMESPACE_CACHE;
  const namespaceOf =
    deps.namespaceOf ??
    ((place: SessionPlace): string => {
      const key = `${place.cwd ?? ''}\u0000${place.project ?? ''}`;
      let id = cache.get(key);
      if (id === undefined) {
        id = resolveNamespace(place.cwd, place.project).namespace_id;
        cache.set(key, id);
      }
      return id;
    });
  return async (request, budget) => {
    let session: string[] | undefined;
    if (request.namespace_id !== null) {
      session = (await deps.listSessionPlaces()).filter((place) => namespaceOf(place) === request.namespace_id).map((place) => place.id);
      if (session.length === 0) throw new SubsystemUnavailable('missing', `no indexed sessions in namespace ${request.namespace_id}`);
    }
    const seen = new Set<string>();
    const out: PackCandidate[] = [];
    // One recall: the error and the task together, so a session that hit this error on this task ranks first and
    // one that only hit the error still ranks (a second recall per pack was most of a pack's time on a large index).
    const query = request.error ? `${request.error}\n${request.task}` : request.task;
    const result = await deps.recall({ query, limit: 5, messagesPerSession: 2, ...(session ? { session } : {}) });
    for (const match of result.matches) {
      const key = `${match.metadata.session_id}\u0000${match.metadata.message_ids.join(',')}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const when = match.metadata.timestamps.find((stamp) => stamp !== null) ?? match.metadata.session_end ?? null;
      out.push({
        text: match.snippet,
        source: `session ${match.metadata.session_id}`,
        record_kind: 'session',
        trust_class: 'raw',
        provenance: {
          session_id: match.metadata.session_id,
          message_ids: match.metadata.message_ids,
          archive_path: match.archive_path,
          matched: request.error ? 'error_and_task' : 'task',
        },
        recency: when,
      });
    }
    return out;
  };
}

/**
 * Long-term today: MEMORY.md's lines about the project (the curated file moon distils and people edit), which
 * stand beside the approved long-term memories of the port (src/pack/plane-sources.ts, longTermSubsystem).
 */
export function memoryFileSubsystem(memoryFile: string, deadlineMs = 200): PackSubsystem {
  return {
    name: 'long_term',
    deadlineMs,
    async gather(request) {
      if (!request.root) throw new SubsystemUnavailable('missing', 'the namespace has no folder to match MEMORY.md lines against');
      const name = request.namespace_id?.includes('/') && !request.namespace_id.startsWith('path:') ? request.namespace_id.split('/').pop()! : basename(request.root);
      const lines = readMemoryLines(memoryFile, { name, root: request.root });
      return lines.map((line, index) => ({
        text: line,
        source: `MEMORY.md (about ${name}, #${index + 1})`,
        record_kind: 'long_term' as const,
        trust_class: 'approved' as const,
        provenance: { file: memoryFile, project: name },
        recency: null,
      }));
    },
  };
}
