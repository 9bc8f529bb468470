import type { Ledger } from '../archive/ledger.js';
import { removeHomeFile } from '../archive/remove-in-home.js';
import { requireSessionIds } from '../browse/resolve-session-id.js';
import { MoonError } from '../errors.js';
import { parseTimeBound, toList } from '../search/options.js';
import type { StoreEngine } from '../store/ports.js';
import type { ForgottenSession } from '../store/types.js';

/** `moon forget` / moon.upkeep.forget(): which sessions to take back. At least one criterion; they narrow each other. */
export interface ForgetRequest {
  /** Session ids or unique prefixes of 8 characters or more (resolve-session-id.ts). */
  sessions?: string | string[];
  project?: string;
  /** ISO date or date-time: sessions that ended before it (a date alone is read in the residential zone). */
  before?: string;
  /** List what would be forgotten, change nothing. */
  dryRun?: boolean;
}

export interface ForgetReport {
  dryRun: boolean;
  /** Sessions removed from the index (or that would be, in a dry run). */
  forgotten: ForgottenSession[];
  /**
   * Named full-length ids (resolve-session-id.ts) this index does not hold: tombstoned anyway, so no later index
   * (here or elsewhere) adds them. A prefix that matches nothing is an error instead, and forgets nothing.
   */
  unknown: string[];
  /** Raw archives and projections deleted. */
  removedFiles: string[];
  /**
   * Files the index or ledger named that were not deleted because they lie outside this home (another home's
   * copy, a path an index written elsewhere recorded): moon deletes only inside its own home.
   */
  skippedFiles: SkippedFile[];
}

export interface SkippedFile {
  path: string;
  reason: string;
}

/**
 * Take sessions back: their entries, index rows, vectors, projections and raw archives go; a tombstone stays in
 * the index and in the ledger, so no later `moon index` — on this machine or another sharing the index — brings
 * them back. The transcripts themselves are the agent's files and are left alone.
 */
export async function forgetSessions(
  engine: StoreEngine,
  ledger: Ledger,
  request: ForgetRequest,
  options: { zone: string; nowMs: number },
): Promise<ForgetReport> {
  const named = toList(request.sessions) ?? [];
  if (named.length === 0 && request.project === undefined && request.before === undefined) {
    throw new MoonError('bad_usage', 'moon forget needs session ids, --project or --before', { hint: 'add --dry-run to see what would go' });
  }
  const beforeMs = request.before === undefined ? undefined : parseTimeBound('before', request.before, options.zone, options.nowMs);
  // Every named id or prefix is resolved before anything is forgotten: one that fails forgets none.
  const resolved = named.length > 0 ? await requireSessionIds(engine.browse, named, { keepUnknownFull: true }) : null;
  const unknown = resolved?.unknown ?? [];
  // Named ids none of which is indexed select nothing (an empty list would not narrow --project or --before).
  const ids =
    resolved !== null && resolved.ids.length === 0
      ? []
      : await engine.forget.findSessions({ sessionIds: resolved?.ids, project: request.project, beforeMs });
  if (request.dryRun) {
    const forgotten: ForgottenSession[] = [];
    for (const id of ids) {
      const session = await engine.ingest.getSession(id);
      if (session) forgotten.push({ id, project: session.project, archivePath: session.archivePath, projectionPath: session.projectionPath });
    }
    return { dryRun: true, forgotten, unknown, removedFiles: [], skippedFiles: [] };
  }
  const reason = describeSelector(request);
  const forgotten = await engine.forget.forget([...ids, ...unknown], reason, options.nowMs);
  // A run digest quotes the session: it goes with it.
  await engine.digests.remove({ sessionIds: [...ids, ...unknown] });
  const removedFiles: string[] = [];
  const skippedFiles: SkippedFile[] = [];
  for (const session of forgotten) {
    for (const path of [session.archivePath, session.projectionPath]) {
      if (!path) continue;
      const outcome = removeHomeFile(ledger.home, path);
      if (outcome === 'removed' || outcome === 'absent') removedFiles.push(path);
      else skippedFiles.push({ path, reason: describeSkip(outcome, ledger.home) });
    }
  }
  for (const id of [...ids, ...unknown]) {
    ledger.appendTombstone({ session_id: id, tombstone: true, reason, forgotten_at_epoch_secs: Math.floor(options.nowMs / 1000) });
  }
  return { dryRun: false, forgotten, unknown, removedFiles, skippedFiles };
}

function describeSkip(outcome: 'outside-home' | 'not-a-file', home: string): string {
  return outcome === 'outside-home' ? `outside this home (${home}): left alone` : 'a folder, not a file: left alone';
}

/**
 * Bring the ledger's and the engine's tombstones together before a run. Tombstones the ledger holds but the
 * index does not (a rebuilt index, a new engine) go into the index, so the run refuses those sessions too.
 * Tombstones the engine holds but this home's ledger does not were left by another machine sharing the
 * database: what this home keeps of those sessions — raw archive copies and projections — is removed, and the
 * ledger records the tombstone. Returns how many tombstones moved each way.
 */
export async function syncTombstones(
  engine: StoreEngine,
  ledger: Ledger,
  projectionPathOf: (sessionId: string) => string,
  nowMs: number,
): Promise<{ toEngine: number; toHome: number }> {
  const inEngine = await engine.forget.listTombstones();
  const known = new Set(inEngine.map((tombstone) => tombstone.sessionId));
  const inLedger = ledger.tombstones();
  const missing = inLedger.filter((tombstone) => !known.has(tombstone.session_id));
  if (missing.length > 0) {
    await engine.forget.forget(
      missing.map((tombstone) => tombstone.session_id),
      'ledger tombstone',
      nowMs,
    );
    await engine.digests.remove({ sessionIds: missing.map((tombstone) => tombstone.session_id) });
  }
  const local = new Set(inLedger.map((tombstone) => tombstone.session_id));
  const fromElsewhere = inEngine.filter((tombstone) => !local.has(tombstone.sessionId));
  if (fromElsewhere.length > 0) {
    const archived = ledger.records();
    for (const tombstone of fromElsewhere) {
      // Only files inside this home go, whatever the ledger names (removeHomeFile).
      for (const record of archived) if (record.session_id === tombstone.sessionId) removeHomeFile(ledger.home, record.archive_path);
      removeHomeFile(ledger.home, projectionPathOf(tombstone.sessionId));
      ledger.appendTombstone({
        session_id: tombstone.sessionId,
        tombstone: true,
        reason: tombstone.reason,
        forgotten_at_epoch_secs: Math.floor(tombstone.forgottenAtMs / 1000),
      });
    }
  }
  return { toEngine: missing.length, toHome: fromElsewhere.length };
}

function describeSelector(request: ForgetRequest): string {
  const parts = [
    ...(toList(request.sessions)?.length ? ['named'] : []),
    ...(request.project !== undefined ? [`project ${request.project}`] : []),
    ...(request.before !== undefined ? [`before ${request.before}`] : []),
  ];
  return `moon forget (${parts.join(', ')})`;
}
