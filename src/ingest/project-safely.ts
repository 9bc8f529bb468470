import { projectionPathFor } from '../archive/paths.js';
import { describeError, errnoOf, isMoonError } from '../errors.js';
import type { IngestPort } from '../store/ports.js';
import type { FailureRecord, SessionFieldDoc } from '../store/types.js';
import type { IngestContext } from './context.js';
import { isFatalError } from './index-file.js';
import type { RankedTerm } from '../normalize/keywords.js';
import { type CollectedProjection, IN_FLIGHT, type Rendered, collectProjections, mapLimited, renderCollected, termsOf } from './project-session.js';

/** A session to project; `ranked`: its keyword terms, when ranked at its parse (a session written from the start). */
export interface ProjectionRequest {
  sessionId: string;
  known: FailureRecord | null;
  ranked?: RankedTerm[] | null;
}

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
  sessions: readonly ProjectionRequest[],
  stopped?: () => boolean,
): Promise<ProjectionResult[]> {
  return finishProjections(context, store, await startProjections(context, store, sessions), stopped);
}

/** Projections under way: rendering (on workers) while the caller goes on; `finishProjections` completes them. */
export interface PendingProjections {
  order: string[];
  settled: Map<string, ProjectionResult>;
  due: { item: CollectedProjection & { counts: { sessionCount: number; counts: Map<string, number> } }; known: FailureRecord | null; contentHash: string }[];
  /** Each due session's first render: its path and fields (null: the session is gone), or the error it failed with. */
  first: Promise<({ rendered: Rendered | null } | { error: unknown })[]>;
}

/**
 * Everything that writes the store before rendering — keyword terms, then corpus counts — and then the renders
 * are started, a few at a time; they read their sessions again and, with workers, run while the caller commits
 * the next batch.
 */
export async function startProjections(
  context: IngestContext,
  store: IngestPort,
  sessions: readonly ProjectionRequest[],
): Promise<PendingProjections> {
  const wanted: (ProjectionRequest & { contentHash: string })[] = [];
  const settled = new Map<string, ProjectionResult>();
  for (const { sessionId, known, ranked } of sessions) {
    const session = await store.getSession(sessionId);
    if (!session) {
      settled.set(sessionId, { status: 'gone' });
      continue;
    }
    const contentHash = session.contentHash ?? '';
    if (known && known.fingerprint === contentHash) {
      settled.set(sessionId, { status: 'failed-before', path: projectionPathFor(context.paths, sessionId), reason: known.reason, failedAtMs: known.failedAtMs });
      continue;
    }
    wanted.push({ sessionId, known, contentHash, ranked });
  }
  const collected = new Map((await collectProjections(context, store, wanted)).map((item) => [item.sessionId, item]));
  const due: PendingProjections['due'] = [];
  // One count for the batch: each session looks up only its own terms in it.
  const counts = await store.countSessionTerms([...collected.values()].flatMap(termsOf));
  for (const { sessionId, known, contentHash } of wanted) {
    const item = collected.get(sessionId);
    if (!item) {
      settled.set(sessionId, { status: 'gone' });
      continue;
    }
    due.push({ item: { ...item, counts }, known, contentHash });
  }
  // A rendering failure is caught here and judged in finishProjections.
  const first = mapLimited(due, IN_FLIGHT, ({ item }) =>
    renderCollected(context, store, item).then(
      (rendered) => ({ rendered }),
      (error: unknown) => ({ error }),
    ),
  );
  return { order: sessions.map((item) => item.sessionId), settled, due, first };
}

/**
 * Wait for the renders, retry a failed one once, mark the written ones projected, remember failures. Once
 * `stopped` says so, a failed render is neither retried nor remembered (the stop ended the workers rendering
 * it): its session stays stale, for the next run.
 */
export async function finishProjections(
  context: IngestContext,
  store: IngestPort,
  pending: PendingProjections,
  stopped?: () => boolean,
): Promise<ProjectionResult[]> {
  const firsts = await pending.first;
  // The fields of the sessions written, stored together at the end.
  const fields: SessionFieldDoc[] = [];
  for (const [index, { item, known, contentHash }] of pending.due.entries()) {
    const sessionId = item.sessionId;
    const key = `projection:${sessionId}`;
    const path = projectionPathFor(context.paths, sessionId);
    let outcome = firsts[index]!;
    if ('error' in outcome && stopped?.()) continue;
    if ('error' in outcome && isFatalError(outcome.error)) throw outcome.error;
    if ('error' in outcome) {
      outcome = await renderCollected(context, store, item).then(
        (rendered) => ({ rendered }),
        (error: unknown) => ({ error }),
      );
      if ('error' in outcome && isFatalError(outcome.error)) throw outcome.error;
    }
    if (!('error' in outcome)) {
      if (outcome.rendered === null) {
        pending.settled.set(sessionId, { status: 'gone' });
        continue;
      }
      fields.push(outcome.rendered.fields);
      await store.markProjected(sessionId, outcome.rendered.path);
      if (known) await store.clearFailure(key);
      pending.settled.set(sessionId, { status: 'written' });
      continue;
    }
    const last = outcome.error;
    const message = isMoonError(last) ? last.message : describeError(last);
    const reason = `${path}: cannot write the projection of session ${sessionId} (${message}); the session is indexed`;
    // An errno (a folder where the file should be, a permission) can be fixed without the session changing:
    // retried next run. Anything else (a rendering failure) would fail the same way again.
    if (errnoOf(last) === undefined) await store.putFailure({ key, kind: 'projection', path, fingerprint: contentHash, reason, failedAtMs: context.now() });
    pending.settled.set(sessionId, { status: 'failed', path, reason });
  }
  await store.putSessionFields(fields);
  return pending.order.map((sessionId) => pending.settled.get(sessionId) ?? { status: 'gone' });
}
