import { extractErrorSignatures, normalizeErrorSignature } from './signature.js';
import type { EvidenceState, FixEvent, FixEvidence, FixPattern, PatternState } from '../records/fixes.js';

interface OpenFailure {
  signatures: Set<string>;
  sessionId: string;
  /** The failing calls. */
  messageIds: string[];
  /** Changes since, each with its session. */
  edits: { sessionId: string; messageId: string; files: string[]; fileHashes: Record<string, string | null> }[];
  changed: boolean;
}

/** Evidence lists stay short: the first changes say what the fix was. */
const MAX_EVIDENCE_ITEMS = 50;

/** A pattern while the walk gathers it (FoldedPattern with sets). */
type Group = Omit<FoldedPattern, 'targets' | 'sessions'> & { targets: Set<string>; sessions: Set<string> };

/**
 * Fix patterns from the facts of a set of sessions (any namespaces; each namespace is walked on its own, so
 * nothing of one is evidence in another). Chronological walk:
 *
 * - an error on a command opens a failure on that command (its target);
 * - every change after it (edit events) is gathered on the open failures of the namespace;
 * - the same command passing later, after at least one change, closes the failure: verified evidence — the pass's
 *   session, the failing call, the changes and the pass as message ids, the files changed;
 * - a claim ("fixed by …") is evidence for the errors of its session still without a fix: `claimed`, until the
 *   command passes after it or a commit it names shows up later (`verified`);
 * - commits shown after a fix in its session are the fix's commits; a later `git revert` of one makes it `stale`.
 *
 * `hashFile` reads a cited file's content hash now: a file that changed since it was indexed makes the evidence
 * stale. Patterns rank by verified fixes, then occurrences, then recency.
 */
export function buildFixPatterns(events: readonly FixEvent[], hashFile: (path: string) => string | null): FixPattern[] {
  return settleFixPatterns(foldFixPatterns(events), hashFile);
}

/**
 * A pattern as the facts alone make it, before the files its evidence cites are compared with the disk: plain
 * data (what a fact fold keeps, store/ports.ts FixPort.readFold), settled into a FixPattern by settleFixPatterns.
 */
export interface FoldedPattern {
  signature: string;
  namespace: string;
  repo: string | null;
  count: number;
  firstMs: number | null;
  lastMs: number | null;
  sample: string | null;
  targets: string[];
  sessions: string[];
  evidence: FixEvidence[];
}

/** The chronological walk over the facts (each namespace on its own); pure, and the expensive part. */
export function foldFixPatterns(events: readonly FixEvent[]): FoldedPattern[] {
  const byNamespace = new Map<string, FixEvent[]>();
  for (const event of events) {
    const list = byNamespace.get(event.namespace) ?? [];
    list.push(event);
    byNamespace.set(event.namespace, list);
  }
  const folded: FoldedPattern[] = [];
  for (const list of byNamespace.values()) folded.push(...walkNamespace(list));
  return folded;
}

/** Folded patterns with their evidence compared with the disk now (`hashFile`), ranked. The input is not changed. */
export function settleFixPatterns(folded: readonly FoldedPattern[], hashFile: (path: string) => string | null): FixPattern[] {
  const groups = folded.map((group) => ({ ...group, evidence: group.evidence.map((item) => ({ ...item })) }));
  markChangedFiles(
    groups.flatMap((group) => group.evidence),
    hashFile,
  );
  return groups
    .map(toPattern)
    .sort((a, b) => b.worked - a.worked || b.count - a.count || (b.last_seen_ms ?? 0) - (a.last_seen_ms ?? 0) || a.signature.localeCompare(b.signature));
}

function walkNamespace(events: FixEvent[]): FoldedPattern[] {
  const ordered = [...events].sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0) || a.sessionId.localeCompare(b.sessionId) || a.seq - b.seq);
  const groups = new Map<string, Group>();
  const open = new Map<string, OpenFailure>();
  /** Per session: signatures seen there not yet fixed (what a claim speaks of). */
  const unfixed = new Map<string, Set<string>>();
  /** Per session: changes since its first error (what a claim cites). */
  const sessionChanges = new Map<string, { files: string[]; hashes: Record<string, string | null>; messageIds: string[] }>();
  const pendingClaims: { evidence: FixEvidence; signatures: string[]; atSeq: number }[] = [];
  const all: FixEvidence[] = [];

  const group = (event: FixEvent, signature: string): Group => {
    let found = groups.get(signature);
    if (!found) {
      found = { signature, namespace: event.namespace, repo: event.repo, count: 0, firstMs: null, lastMs: null, sample: null, targets: new Set(), sessions: new Set(), evidence: [] };
      groups.set(signature, found);
    }
    return found;
  };

  for (const event of ordered) {
    switch (event.kind) {
      case 'error': {
        const signature = event.signature!;
        const target = group(event, signature);
        target.count += 1;
        target.sessions.add(event.sessionId);
        if (event.ts !== null) {
          target.firstMs = target.firstMs === null ? event.ts : Math.min(target.firstMs, event.ts);
          target.lastMs = target.lastMs === null ? event.ts : Math.max(target.lastMs, event.ts);
        }
        target.sample ??= event.text;
        const pending = unfixed.get(event.sessionId) ?? new Set<string>();
        pending.add(signature);
        unfixed.set(event.sessionId, pending);
        if (!sessionChanges.has(event.sessionId)) sessionChanges.set(event.sessionId, { files: [], hashes: {}, messageIds: [] });
        if (event.target !== null) {
          target.targets.add(event.target);
          const failure = open.get(event.target) ?? { signatures: new Set<string>(), sessionId: event.sessionId, messageIds: [], edits: [], changed: false };
          failure.signatures.add(signature);
          if (!failure.messageIds.includes(event.messageId)) failure.messageIds.push(event.messageId);
          open.set(event.target, failure);
        }
        break;
      }
      case 'edit': {
        for (const failure of open.values()) {
          failure.changed = true;
          if (failure.edits.length < MAX_EVIDENCE_ITEMS * 4) failure.edits.push({ sessionId: event.sessionId, messageId: event.messageId, files: event.files, fileHashes: event.fileHashes });
        }
        const changes = sessionChanges.get(event.sessionId);
        if (changes && changes.messageIds.length < MAX_EVIDENCE_ITEMS) {
          changes.messageIds.push(event.messageId);
          for (const file of event.files) if (!changes.files.includes(file)) changes.files.push(file);
          Object.assign(changes.hashes, event.fileHashes);
        }
        break;
      }
      case 'pass': {
        const failure = event.target === null ? undefined : open.get(event.target);
        if (!failure) break;
        open.delete(event.target!);
        // Passing again with nothing changed says the check is flaky, not that something fixed it.
        if (!failure.changed) break;
        // The change that fixed it: what the failing session did after the failure and what the passing session
        // did before the pass — not every edit of the sessions in between, which were about other things.
        const edits = failure.edits.filter((edit) => edit.sessionId === failure.sessionId || edit.sessionId === event.sessionId);
        const files = [...new Set(edits.flatMap((edit) => edit.files))].slice(0, MAX_EVIDENCE_ITEMS);
        const fileHashes: Record<string, string | null> = {};
        for (const edit of edits) Object.assign(fileHashes, edit.fileHashes);
        const messageIds = [...failure.messageIds.slice(0, 5), ...edits.map((edit) => edit.messageId)].slice(0, MAX_EVIDENCE_ITEMS - 1);
        for (const signature of failure.signatures) {
          const evidence: FixEvidence = {
            session_id: event.sessionId,
            message_ids: [...messageIds, event.messageId],
            files,
            commits: [],
            state: 'verified',
            verified_by: { session_id: event.sessionId, message_id: event.messageId, how: 'passing_run' },
            stale_reason: null,
            target: event.target,
            ts: event.ts,
            file_hashes: Object.fromEntries(files.map((file) => [file, fileHashes[file] ?? null])),
          };
          groups.get(signature)?.evidence.push(evidence);
          all.push(evidence);
          for (const pending of unfixed.values()) pending.delete(signature);
          // A claim made for this error is borne out by the passing run.
          for (const claim of pendingClaims) {
            if (claim.evidence.state === 'claimed' && claim.signatures.includes(signature)) {
              claim.evidence.state = 'verified';
              claim.evidence.verified_by = { session_id: event.sessionId, message_id: event.messageId, how: 'passing_run' };
            }
          }
        }
        break;
      }
      case 'claim': {
        const signatures = [...(unfixed.get(event.sessionId) ?? [])];
        if (signatures.length === 0) break;
        const changes = sessionChanges.get(event.sessionId) ?? { files: [], hashes: {}, messageIds: [] };
        for (const signature of signatures) {
          const evidence: FixEvidence = {
            session_id: event.sessionId,
            message_ids: [...changes.messageIds, event.messageId],
            files: [...changes.files],
            commits: [...event.commits],
            state: 'claimed',
            verified_by: null,
            stale_reason: null,
            target: null,
            ts: event.ts,
            file_hashes: { ...changes.hashes },
          };
          groups.get(signature)?.evidence.push(evidence);
          all.push(evidence);
          pendingClaims.push({ evidence, signatures: [signature], atSeq: event.seq });
        }
        break;
      }
      case 'commit': {
        // Commits shown in the session of a fix, after it, landed that fix.
        for (const evidence of all) {
          if (evidence.session_id === event.sessionId && evidence.state === 'verified' && evidence.commits.length === 0) evidence.commits.push(...event.commits);
        }
        // A claimed fix naming one of these commits has landed.
        for (const claim of pendingClaims) {
          const evidence = claim.evidence;
          if (evidence.state !== 'claimed' || !evidence.commits.some((named) => event.commits.some((shown) => sameCommit(named, shown)))) continue;
          if (evidence.session_id === event.sessionId && event.seq < claim.atSeq) continue;
          evidence.state = 'verified';
          evidence.verified_by = { session_id: event.sessionId, message_id: event.messageId, how: 'commit_landed' };
        }
        break;
      }
      case 'revert': {
        for (const evidence of all) {
          const reverted = evidence.commits.find((commit) => event.commits.some((shown) => sameCommit(commit, shown)));
          if (reverted && evidence.state !== 'stale') {
            evidence.state = 'stale';
            evidence.stale_reason = `commit ${reverted} reverted in session ${event.sessionId}`;
          }
        }
        break;
      }
    }
  }

  return [...groups.values()].map((found) => ({ ...found, targets: [...found.targets], sessions: [...found.sessions] }));
}

function toPattern(group: FoldedPattern): FixPattern {
  const evidence = [...group.evidence].sort((a, b) => stateRank(a.state) - stateRank(b.state) || (b.ts ?? 0) - (a.ts ?? 0));
  const worked = evidence.filter((item) => item.state === 'verified').length;
  const state: PatternState = evidence.length === 0 ? 'open' : evidence[0]!.state;
  const best = evidence[0];
  return {
    record_kind: 'fix_pattern',
    namespace_id: group.namespace,
    repo: group.repo,
    security_scope: 'project',
    trust_class: 'derived',
    created_at_ms: group.firstMs ?? 0,
    expires_at_ms: null,
    run_ref: best ? { session_id: best.session_id, message_ids: best.message_ids, archive_path: null, commits: best.commits } : null,
    signature: group.signature,
    count: group.count,
    worked,
    state,
    first_seen_ms: group.firstMs,
    last_seen_ms: group.lastMs,
    sample: group.sample,
    targets: [...group.targets],
    sessions: [...group.sessions],
    evidence: evidence.map(({ file_hashes: _hashes, ...rest }) => rest),
  };
}

function stateRank(state: FixEvidence['state']): number {
  return state === 'verified' ? 0 : state === 'claimed' ? 1 : 2;
}

/** Evidence that cites a file whose content differs from when it was indexed is stale: it may no longer be what is there. */
export function markChangedFiles(
  evidence: Iterable<{ state: EvidenceState; stale_reason: string | null; file_hashes: Record<string, string | null> }>,
  hashFile: (path: string) => string | null,
): void {
  for (const item of evidence) {
    if (item.state === 'stale') continue;
    for (const [file, then] of Object.entries(item.file_hashes)) {
      if (then === null) continue;
      if (hashFile(file) !== then) {
        item.state = 'stale';
        item.stale_reason = `${file} changed since`;
        break;
      }
    }
  }
}

/** The same commit, one id possibly abbreviated (at least 7 hex digits). */
export function sameCommit(a: string, b: string): boolean {
  return a.length >= 7 && b.length >= 7 && (a.startsWith(b) || b.startsWith(a));
}

/**
 * Patterns a query selects: an error text or a signature matches its signature exactly; otherwise every word of
 * the query must occur in the signature, its sample or its commands (case-insensitive).
 */
export function selectPatterns(patterns: readonly FixPattern[], query: string | null): FixPattern[] {
  if (query === null || query.trim() === '') return [...patterns];
  const exact = new Set([query.trim(), normalizeErrorSignature(query), ...extractErrorSignatures(query)]);
  const matched = patterns.filter((pattern) => exact.has(pattern.signature));
  if (matched.length > 0) return matched;
  const words = query.toLowerCase().split(/\s+/).filter((word) => word !== '');
  return patterns.filter((pattern) => {
    const haystack = [pattern.signature, pattern.sample ?? '', ...pattern.targets].join('\n').toLowerCase();
    return words.every((word) => haystack.includes(word));
  });
}
