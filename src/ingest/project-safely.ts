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
  return finishProjections(context, store, await startProjections(context, store, sessions));
}

/** Projections under way: rendering (on workers) while the caller goes on; `finishProjections` completes them. */
export interface PendingProjections {
  order: string[];
  settled: Map<string, ProjectionResult>;
  rendering: { item: CollectedProjection & { counts: { sessionCount: number; counts: Map<string, number> } }; known: FailureRecord | null; first: Promise<unknown> }[];
}

/**
 * Everything that reads or writes the store before rendering — sessions, entries, keyword terms, corpus counts —
 * then the renders are started. With workers they run while the caller commits the next batch.
 */
export async function startProjections(
  context: IngestContext,
  store: IngestPort,
  sessions: readonly { sessionId: string; known: FailureRecord | null }[],
): Promise<PendingProjections> {
  const due: { sessionId: string; known: FailureRecord | null }[] = [];
  const settled = new Map<string, ProjectionResult>();
  for (const { sessionId, known } of sessions) {
    const session = await store.getSession(sessionId);
    if (!session) {
      settled.set(sessionId, { status: 'gone' });
      continue;
    }
    if (known && known.fingerprint === (session.contentHash ?? '')) {
      settled.set(sessionId, { status: 'failed-before', path: projectionPathFor(context.paths, sessionId), reason: known.reason, failedAtMs: known.failedAtMs });
      continue;
    }
    due.push({ sessionId, known });
  }
  const collected = new Map((await collectProjections(context, store, due.map((item) => item.sessionId))).map((item) => [item.doc.session.id, item]));
  const rendering: PendingProjections['rendering'] = [];
  for (const { sessionId, known } of due) {
    const item = collected.get(sessionId);
    if (!item) {
      settled.set(sessionId, { status: 'gone' });
      continue;
    }
    const counts = await store.countSessionTerms(item.terms);
    const withCounts = { ...item, counts };
    // A rendering failure is caught here and judged in finishProjections.
    const first = renderCollected(context, withCounts).then(
      () => null,
      (error: unknown) => ({ error }),
    );
    rendering.push({ item: withCounts, known, first });
  }
  return { order: sessions.map((item) => item.sessionId), settled, rendering };
}

/** Wait for the renders, retry a failed one once, mark the written ones projected, remember failures. */
export async function finishProjections(context: IngestContext, store: IngestPort, pending: PendingProjections): Promise<ProjectionResult[]> {
  for (const { item, known, first } of pending.rendering) {
    const sessionId = item.doc.session.id;
    const key = `projection:${sessionId}`;
    const path = projectionPathFor(context.paths, sessionId);
    let outcome = (await first) as { error: unknown } | null;
    if (outcome && isFatalError(outcome.error)) throw outcome.error;
    if (outcome) {
      outcome = await renderCollected(context, item).then(
        () => null,
        (error: unknown) => ({ error }),
      );
      if (outcome && isFatalError(outcome.error)) throw outcome.error;
    }
    if (!outcome) {
      await store.markProjected(sessionId, path);
      if (known) await store.clearFailure(key);
      pending.settled.set(sessionId, { status: 'written' });
      continue;
    }
    const last = outcome.error;
    const message = isMoonError(last) ? last.message : describeError(last);
    const reason = `${path}: cannot write the projection of session ${sessionId} (${message}); the session is indexed`;
    // An errno (a folder where the file should be, a permission) can be fixed without the session changing:
    // retried next run. Anything else (a rendering failure) would fail the same way again.
    if (errnoOf(last) === undefined) {
      await store.putFailure({ key, kind: 'projection', path, fingerprint: item.doc.contentHash, reason, failedAtMs: context.now() });
    }
    pending.settled.set(sessionId, { status: 'failed', path, reason });
  }
  return pending.order.map((sessionId) => pending.settled.get(sessionId) ?? { status: 'gone' });
}
