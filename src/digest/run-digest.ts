import { requireSessionId } from '../browse/resolve-session-id.js';
import { MoonError } from '../errors.js';
import type { Provider } from '../llm/provider.js';
import { type Namespace, resolveNamespace } from '../records/envelope.js';
import type { StoreEngine } from '../store/ports.js';
import type { StoredSession } from '../store/types.js';
import { buildDigest } from './build.js';
import type { DigestHit, RunDigest } from '../records/digests.js';

export interface DigestRequest {
  /** One session (an id or a unique prefix). */
  sessionId?: string;
  /** Every session lacking a current digest (no digest, or one of an older content hash). */
  all?: boolean;
  /** With `all`: at most this many sessions this run (the watcher's bound). */
  limit?: number;
  /** With `all`: only sessions whose last entry is at least this old (finished, not still being written). */
  idleMs?: number;
  /** Digest again even when the current digest is of the same content hash. */
  force?: boolean;
}

export interface DigestOutcomeRow {
  session_id: string;
  result: 'inserted' | 'replaced' | 'unchanged';
  produced_by: string;
  /** Why the configured provider's digest was not used, when it was not. */
  fallback: string | null;
  digest: RunDigest;
}

export interface DigestReport {
  digests: DigestOutcomeRow[];
  /** Sessions that needed a digest but were left for a later run (`limit`). */
  remaining: number;
  failed: { session_id: string; reason: string }[];
}

export interface DigestDeps {
  engine: StoreEngine;
  nowMs: () => number;
  /** The configured provider; asked only when generative. A failure to create it means the heuristic. */
  provider: () => Promise<Provider | null>;
  ttlMs?: number | null;
  namespaceOf?: (cwd: string | null, project: string | null) => Namespace;
}

export async function digestSessions(deps: DigestDeps, request: DigestRequest): Promise<DigestReport> {
  const { engine } = deps;
  const report: DigestReport = { digests: [], remaining: 0, failed: [] };
  let sessions: StoredSession[];
  if (request.sessionId) {
    const session = await engine.browse.getSession(await requireSessionId(engine.browse, request.sessionId));
    if (!session) throw new MoonError('not_found', `no session ${request.sessionId}`);
    sessions = [session];
  } else if (request.all) {
    const now = deps.nowMs();
    const candidates = (await engine.ingest.listSessions()).filter(
      (session) => session.parentSessionId === null && session.entryCount > 0 && (request.idleMs === undefined || (session.endMs ?? 0) <= now - request.idleMs),
    );
    sessions = [];
    for (const session of candidates) {
      if (!request.force) {
        const current = await engine.digests.get(session.id, now);
        if (current && current.content_hash === session.contentHash) continue;
      }
      sessions.push(session);
    }
    // Newest runs first: the ones an agent is likeliest to ask about.
    sessions.sort((a, b) => (b.endMs ?? 0) - (a.endMs ?? 0) || a.id.localeCompare(b.id));
    if (request.limit !== undefined && sessions.length > request.limit) {
      report.remaining = sessions.length - request.limit;
      sessions = sessions.slice(0, request.limit);
    }
  } else {
    throw new MoonError('bad_usage', 'name a session, or pass --all', { hint: 'moon digest SESSION | moon digest --all' });
  }
  if (sessions.length === 0) return report;
  // A provider that cannot be created (a missing key, say) means the heuristic, and every row says why.
  let provider: Provider | null = null;
  let providerError: string | null = null;
  try {
    provider = await deps.provider();
  } catch (error) {
    providerError = `the configured provider could not be created: ${(error as Error).message}`;
  }
  for (const session of sessions) {
    try {
      const entries = await engine.browse.listEntries(session.id);
      const built = await buildDigest(session, entries, { nowMs: deps.nowMs(), provider, ttlMs: deps.ttlMs, namespaceOf: deps.namespaceOf });
      if (request.force) await engine.digests.remove({ sessionIds: [session.id] });
      const result = await engine.digests.put(built.digest);
      const stored = result === 'unchanged' ? ((await engine.digests.get(session.id, deps.nowMs())) ?? built.digest) : built.digest;
      report.digests.push({ session_id: session.id, result, produced_by: stored.produced_by, fallback: built.fallback ?? providerError, digest: stored });
    } catch (error) {
      if (request.sessionId) throw error;
      report.failed.push({ session_id: session.id, reason: (error as Error).message });
    }
  }
  return report;
}

export interface DigestScopeRequest {
  /** A namespace id as stored (`github.com/acme/shop`, `path:/home/dev/shop`). */
  namespace?: string;
  allNamespaces?: boolean;
  /** The caller's working directory: its namespace is the scope (default: the process's). */
  cwd?: string;
}

export interface DigestScope {
  /** The namespace searched, or null for every namespace. */
  namespace: string | null;
  /** Why: named, all, the working directory, or a working directory whose namespace has no digests (all in reach). */
  reason: 'named' | 'all' | 'cwd' | 'cwd-unknown';
}

export async function resolveDigestScope(engine: StoreEngine, request: DigestScopeRequest, nowMs: number, namespaceOf = resolveNamespace): Promise<DigestScope> {
  if (request.namespace) return { namespace: request.namespace, reason: 'named' };
  if (request.allNamespaces) return { namespace: null, reason: 'all' };
  const namespace = namespaceOf(request.cwd ?? process.cwd(), null).namespace_id;
  const any = await engine.digests.list({ namespace, limit: 1, nowMs });
  return any.length > 0 ? { namespace, reason: 'cwd' } : { namespace: null, reason: 'cwd-unknown' };
}

export interface DigestSearchRequest extends DigestScopeRequest {
  query: string;
  limit?: number;
}

export interface DigestSearchResult {
  scope: DigestScope;
  hits: DigestHit[];
}

export async function searchDigests(engine: StoreEngine, request: DigestSearchRequest, nowMs: number): Promise<DigestSearchResult> {
  const scope = await resolveDigestScope(engine, request, nowMs);
  const hits = await engine.digests.search({ text: request.query, namespace: scope.namespace, limit: request.limit ?? 10, nowMs });
  return { scope, hits };
}

export interface DigestListRequest extends DigestScopeRequest {
  limit?: number;
}

export async function listDigests(engine: StoreEngine, request: DigestListRequest, nowMs: number): Promise<{ scope: DigestScope; digests: RunDigest[] }> {
  const scope = await resolveDigestScope(engine, request, nowMs);
  return { scope, digests: await engine.digests.list({ namespace: scope.namespace, limit: request.limit ?? 20, nowMs }) };
}
