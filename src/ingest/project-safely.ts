import { projectionPathFor } from '../archive/paths.js';
import { describeError, errnoOf, isMoonError } from '../errors.js';
import type { IngestPort } from '../store/ports.js';
import type { FailureRecord } from '../store/types.js';
import type { IngestContext } from './context.js';
import { isFatalError } from './index-file.js';
import { type CollectedProjection, collectProjections, renderCollected } from './project-session.js';

export type ProjectionResult =
  | { status: 'written' | 'gone' }
  | { status: 'failed'; path: string; reason: string }
  | { status: 'failed-before'; path: string; reason: string; failedAtMs: number };

/**
 * Write a session's projection after its commit, tried twice. A projection that still fails is reported, the
 * session stays stale (retried by the next run) and the run goes on. A failure of the content itself (a
 * session that cannot be rendered) is remembered against the session's content hash and not retried until the
 * content changes (or `--force`), so one bad session can never make every later run fail the same way. Disk
 * full and the like stop the run instead.
 */
export async function projectSafely(
  context: IngestContext,
  store: IngestPort,
  sessionId: string,
  known: FailureRecord | null,
): Promise<ProjectionResult> {
  const [result] = await projectSessionsSafely(context, store, [{ sessionId, known }]);
  return result ?? { status: 'gone' };
}

/**
 * The same for several sessions at once (a committed batch): their keyword terms are recorded first, then they
 * render side by side — on the ingest workers when the run has them.
 */
export async function projectSessionsSafely(
  context: IngestContext,
  store: IngestPort,
  sessions: readonly { sessionId: string; known: FailureRecord | null }[],
): Promise<ProjectionResult[]> {
  const due: { sessionId: string; known: FailureRecord | null }[] = [];
  const results = new Map<string, ProjectionResult>();
  for (const { sessionId, known } of sessions) {
    const session = await store.getSession(sessionId);
    if (!session) {
      results.set(sessionId, { status: 'gone' });
      continue;
    }
    if (known && known.fingerprint === (session.contentHash ?? '')) {
      results.set(sessionId, { status: 'failed-before', path: projectionPathFor(context.paths, sessionId), reason: known.reason, failedAtMs: known.failedAtMs });
      continue;
    }
    due.push({ sessionId, known });
  }
  const collected = new Map((await collectProjections(context, store, due.map((item) => item.sessionId))).map((item) => [item.doc.session.id, item]));
  await Promise.all(
    due.map(async ({ sessionId, known }) => {
      const item = collected.get(sessionId);
      results.set(sessionId, item ? await renderSafely(context, store, item, known) : { status: 'gone' });
    }),
  );
  return sessions.map(({ sessionId }) => results.get(sessionId) ?? { status: 'gone' });
}

async function renderSafely(context: IngestContext, store: IngestPort, item: CollectedProjection, known: FailureRecord | null): Promise<ProjectionResult> {
  const sessionId = item.doc.session.id;
  const key = `projection:${sessionId}`;
  const path = projectionPathFor(context.paths, sessionId);
  let last: unknown = null;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await renderCollected(context, store, item);
      if (known) await store.clearFailure(key);
      return { status: 'written' };
    } catch (error) {
      if (isFatalError(error)) throw error;
      last = error;
    }
  }
  const message = isMoonError(last) ? last.message : describeError(last);
  const reason = `${path}: cannot write the projection of session ${sessionId} (${message}); the session is indexed`;
  // An errno (a folder where the file should be, a permission) can be fixed without the session changing:
  // retried next run. Anything else (a rendering failure) would fail the same way again.
  const fingerprint = item.doc.contentHash;
  if (errnoOf(last) === undefined) await store.putFailure({ key, kind: 'projection', path, fingerprint, reason, failedAtMs: context.now() });
  return { status: 'failed', path, reason };
}
