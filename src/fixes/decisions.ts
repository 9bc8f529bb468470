import { isTestRun } from '../normalize/decisions.js';
import { markChangedFiles, sameCommit } from './patterns.js';
import type { EvidenceState, FixEvent } from '../records/fixes.js';
import type { RecordEnvelope } from '../records/envelope.js';

/**
 * Decisions verified against outcomes (seed 003 part 4): a choice stated in a session ("let's keep WAL mode",
 * "switched to pnpm") is followed to what happened next, the way fix patterns are.
 *
 * - Its implementation is the change made after it in the same session, up to the next decision.
 * - `verified` when that change landed in a commit shown later in the session, when a commit the decision names
 *   is shown landed in any session, or when a check passed after the change: a test run, or a command that had
 *   failed earlier in the session (a build, a type check).
 * - `stale` when one of its commits is reverted later, or a file of its change differs on disk from when the
 *   session was indexed.
 * - `claimed` otherwise: what the writer said, with nothing yet to back it.
 *
 * Folded from the facts indexing recorded (`decision`, `edit`, `commit`, `revert`, `pass`) by the pure
 * foldDecisions, then settled against the disk by settleDecisions (`hashFile` reads a file's hash now).
 */
export interface DecisionRecord extends RecordEnvelope {
  record_kind: 'decision';
  text: string;
  session_id: string;
  message_id: string;
  ts: number | null;
  state: EvidenceState;
  /** Files its change touched (the edits after it in its session). */
  files: string[];
  /** Commits that landed it, or that it names. */
  commits: string[];
  verified_by: { session_id: string; message_id: string; how: 'commit_landed' | 'passing_run' } | null;
  stale_reason: string | null;
}

interface Tracked {
  record: DecisionRecord;
  file_hashes: Record<string, string | null>;
  /** Still collecting its change (no later decision in its session yet). */
  open: boolean;
  /** The messages of its change, so a commit after them can land it. */
  changeIds: string[];
}

export function buildDecisionRecords(events: readonly FixEvent[], hashFile: (path: string) => string | null): DecisionRecord[] {
  return settleDecisions(foldDecisions(events), hashFile);
}

/**
 * A decision as the facts alone make it, with the hashes its change's files had when indexed: plain data (what a
 * fact fold keeps), settled into a DecisionRecord by settleDecisions.
 */
export interface FoldedDecision {
  record: DecisionRecord;
  file_hashes: Record<string, string | null>;
}

/** Decisions with their states compared with the disk now (`hashFile`). The input is not changed. */
export function settleDecisions(folded: readonly FoldedDecision[], hashFile: (path: string) => string | null): DecisionRecord[] {
  const probes = folded.map((item) => ({ state: item.record.state, stale_reason: item.record.stale_reason, file_hashes: item.file_hashes }));
  markChangedFiles(probes, hashFile);
  return folded.map((item, index) => ({ ...item.record, state: probes[index]!.state, stale_reason: probes[index]!.stale_reason }));
}

/** The chronological walk over the facts; pure, and the expensive part. */
export function foldDecisions(events: readonly FixEvent[]): FoldedDecision[] {
  const ordered = [...events].sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0) || a.sessionId.localeCompare(b.sessionId) || a.seq - b.seq);
  const all: Tracked[] = [];
  /** Per session, its latest decision (the one edits belong to). */
  const current = new Map<string, Tracked>();
  /** Commands that failed in a session (session and target): one passing later is a check passing. */
  const failedChecks = new Set<string>();
  const verify = (tracked: Tracked, event: FixEvent, how: 'commit_landed' | 'passing_run'): void => {
    if (tracked.record.state !== 'claimed') return;
    tracked.record.state = 'verified';
    tracked.record.verified_by = { session_id: event.sessionId, message_id: event.messageId, how };
  };
  for (const event of ordered) {
    const latest = current.get(event.sessionId);
    switch (event.kind) {
      case 'decision': {
        if (latest) latest.open = false;
        const tracked: Tracked = {
          record: {
            record_kind: 'decision',
            namespace_id: event.namespace,
            repo: event.repo,
            security_scope: 'project',
            trust_class: 'derived',
            created_at_ms: event.ts ?? 0,
            expires_at_ms: null,
            run_ref: { session_id: event.sessionId, message_ids: [event.messageId], archive_path: null, commits: [...event.commits] },
            text: event.text ?? '',
            session_id: event.sessionId,
            message_id: event.messageId,
            ts: event.ts,
            state: 'claimed',
            files: [],
            commits: [...event.commits],
            verified_by: null,
            stale_reason: null,
          },
          file_hashes: {},
          open: true,
          changeIds: [],
        };
        all.push(tracked);
        current.set(event.sessionId, tracked);
        break;
      }
      case 'edit':
        if (latest?.open) {
          for (const file of event.files) if (!latest.record.files.includes(file)) latest.record.files.push(file);
          Object.assign(latest.file_hashes, event.fileHashes);
          latest.changeIds.push(event.messageId);
        }
        break;
      case 'commit':
        // The change after the latest decision, committed: it landed.
        if (latest && latest.changeIds.length > 0) {
          for (const commit of event.commits) if (!latest.record.commits.includes(commit)) latest.record.commits.push(commit);
          verify(latest, event, 'commit_landed');
        }
        // A decision naming a commit that is shown landed, here or in any later session.
        for (const tracked of all) {
          if (tracked.record.state === 'claimed' && tracked.record.run_ref!.commits.some((named) => event.commits.some((shown) => sameCommit(named, shown)))) {
            verify(tracked, event, 'commit_landed');
          }
        }
        break;
      case 'error':
        if (event.target !== null) failedChecks.add(`${event.sessionId}\u0000${event.target}`);
        break;
      case 'pass':
        // A test run, or a check that failed earlier in the session (a build, a type check), passing after the change.
        if (latest && latest.changeIds.length > 0 && event.target !== null && (isTestRun(event.target) || failedChecks.has(`${event.sessionId}\u0000${event.target}`))) {
          verify(latest, event, 'passing_run');
        }
        break;
      case 'revert':
        for (const tracked of all) {
          const reverted = tracked.record.commits.find((commit) => event.commits.some((shown) => sameCommit(commit, shown)));
          if (reverted && tracked.record.state !== 'stale') {
            tracked.record.state = 'stale';
            tracked.record.stale_reason = `commit ${reverted} reverted in session ${event.sessionId}`;
          }
        }
        break;
      default:
        break;
    }
  }
  for (const tracked of all) tracked.record.run_ref!.message_ids.push(...tracked.changeIds.filter((id) => !tracked.record.run_ref!.message_ids.includes(id)));
  return all.map((tracked) => ({ record: tracked.record, file_hashes: tracked.file_hashes }));
}

const STATE_RANK: Record<EvidenceState, number> = { verified: 0, claimed: 1, stale: 2 };

/**
 * Decisions a query selects — every word of it in the decision's text (case-insensitive); all when there is no
 * query — verified first, then claimed, then stale; newest first within a state.
 */
export function selectDecisions(records: readonly DecisionRecord[], query: string | null): DecisionRecord[] {
  const words = (query ?? '').toLowerCase().split(/\s+/).filter((word) => word !== '');
  const chosen = words.length === 0 ? [...records] : records.filter((record) => words.every((word) => record.text.toLowerCase().includes(word)));
  return chosen.sort((a, b) => STATE_RANK[a.state] - STATE_RANK[b.state] || (b.ts ?? 0) - (a.ts ?? 0));
}
