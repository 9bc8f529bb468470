import type { Entry } from '../model.js';
import type { Provider } from '../llm/provider.js';
import { type Namespace, resolveNamespace } from '../records/envelope.js';
import type { StoredSession } from '../store/types.js';
import { buildHeuristicDigest } from './heuristic.js';
import { buildLlmDigest } from './llm.js';
import type { RunDigest } from '../records/digests.js';

export interface BuildDigestOptions {
  nowMs: number;
  /** A generative provider to ask first; null or the extractive `local` one: the heuristic only. */
  provider?: Provider | null;
  /** How long a digest is kept, or null for no expiry (the default: digests are small and kept long). */
  ttlMs?: number | null;
  namespaceOf?: (cwd: string | null, project: string | null) => Namespace;
}

export interface BuiltDigest {
  digest: RunDigest;
  /** Why the provider's digest was not used (the heuristic one was), or null. */
  fallback: string | null;
}

/**
 * A session's digest in its record envelope: namespace from the session's cwd (else project), `derived` trust,
 * a run_ref with every entry id the digest cites, the archive path and the commits named. Created at the run's
 * end (else its start, else now), so listing newest first lists the latest runs first.
 */
export async function buildDigest(session: StoredSession, entries: readonly Entry[], options: BuildDigestOptions): Promise<BuiltDigest> {
  let made: { title: string; body: RunDigest['body'] } | null = null;
  let producedBy = 'heuristic';
  let fallback: string | null = null;
  if (options.provider?.generative) {
    try {
      made = await buildLlmDigest(options.provider, entries);
      producedBy = options.provider.name;
    } catch (error) {
      fallback = `${options.provider.name}: ${(error as Error).message}`;
    }
  }
  made ??= buildHeuristicDigest({ session, entries });
  const namespace = (options.namespaceOf ?? resolveNamespace)(session.cwd, session.project);
  const { body } = made;
  const lines = [body.intent, body.outcome, ...body.changes, ...body.decisions, ...body.gotchas, ...body.next_steps].filter((line) => line !== null);
  const createdAt = session.endMs ?? session.startMs ?? options.nowMs;
  const ttl = options.ttlMs ?? null;
  return {
    fallback,
    digest: {
      record_kind: 'run_digest',
      namespace_id: namespace.namespace_id,
      repo: namespace.repo,
      security_scope: 'project',
      trust_class: 'derived',
      created_at_ms: createdAt,
      expires_at_ms: ttl === null ? null : options.nowMs + ttl,
      run_ref: {
        session_id: session.id,
        message_ids: [...new Set(lines.flatMap((line) => line.message_ids))],
        archive_path: session.archivePath,
        commits: [...new Set(lines.flatMap((line) => line.commits))],
      },
      session_id: session.id,
      content_hash: session.contentHash ?? `entries:${entries.length}:${entries[entries.length - 1]?.key ?? ''}`,
      produced_by: producedBy,
      title: made.title,
      body,
    },
  };
}
