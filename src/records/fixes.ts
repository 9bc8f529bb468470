import type { RecordEnvelope } from './envelope.js';

/**
 * What indexing a session records for fix patterns: facts in the order they happened, each tied to the entry it
 * came from. Patterns are built from them when asked (patterns.ts), so a later session — indexed in any order —
 * can verify, or make stale, what an earlier one did; indexing only ever replaces one session's facts.
 *
 * - `error`: a failing tool call (exit code ≠ 0, error status) or a message quoting an error: its signature and,
 *   for a call, the normalised command (`target`) that failed.
 * - `pass`: a command that exited 0 (`target` normalised the same way).
 * - `edit`: a change — an edit, patch or write tool call — with the files it touched and their content hashes on
 *   disk when the session was indexed.
 * - `claim`: an assistant message asserting a fix ("fixed by …"), with the commits it names.
 * - `commit`: commit ids a command's output shows (`git commit`, `git log`).
 * - `revert`: commit ids a `git revert` reverted.
 * - `decision`: a choice stated in a message ("let's use WAL mode instead of …"), with the commits it names
 *   (src/fixes/decisions.ts follows it to its outcome).
 */
export const FIX_EVENT_KINDS = ['error', 'pass', 'edit', 'claim', 'commit', 'revert', 'decision'] as const;
export type FixEventKind = (typeof FIX_EVENT_KINDS)[number];

export interface FixEvent {
  sessionId: string;
  namespace: string;
  repo: string | null;
  /** Order within the session (the entry's seq, then a sub-index). */
  seq: number;
  ts: number | null;
  kind: FixEventKind;
  /** error: the signature (signature.ts). */
  signature: string | null;
  /** error / pass: the normalised command; null for an error quoted in a message. */
  target: string | null;
  /** The entry's own id (recall's message ids). */
  messageId: string;
  /** edit: the files touched, absolute when the session's cwd was known. */
  files: string[];
  /** edit: each file's sha256 on disk when indexed, or null when it was not there. */
  fileHashes: Record<string, string | null>;
  /** commit / revert: the commit ids; claim: the ids it names. */
  commits: string[];
  /** error: the error line as printed (shortened); claim and decision: the sentence. */
  text: string | null;
}

export const EVIDENCE_STATES = ['claimed', 'verified', 'stale'] as const;
export type EvidenceState = (typeof EVIDENCE_STATES)[number];
/** A pattern's state: its best evidence's, or `open` while nothing has fixed it yet. */
export type PatternState = EvidenceState | 'open';

export interface FixEvidence {
  /** The session where the fix happened (the passing re-run, or the claim). */
  session_id: string;
  /** The failing call, the changes and the passing run (or the claim), in order. */
  message_ids: string[];
  /** The files the change touched. */
  files: string[];
  /** Commits that landed the fix (seen after it in the same session) or that a claim names. */
  commits: string[];
  state: EvidenceState;
  /** The passing re-run or the commit that verified it, or null while only claimed. */
  verified_by: { session_id: string; message_id: string; how: 'passing_run' | 'commit_landed' } | null;
  /** Why it is stale: a cited file changed since, or its commit was reverted. */
  stale_reason: string | null;
  /** The command that failed and then passed, or null for a claim. */
  target: string | null;
  ts: number | null;
  /** Internal to staleness: each file's hash when indexed. */
  file_hashes: Record<string, string | null>;
}

export interface FixPattern extends RecordEnvelope {
  signature: string;
  /** How many times the error was seen in the namespace. */
  count: number;
  /** How many fixes verified it (not stale): the rank. */
  worked: number;
  state: PatternState;
  first_seen_ms: number | null;
  last_seen_ms: number | null;
  /** One error line as printed. */
  sample: string | null;
  /** The commands it failed in. */
  targets: string[];
  /** Sessions the error occurred in. */
  sessions: string[];
  evidence: Omit<FixEvidence, 'file_hashes'>[];
}

export interface FixEventFilter {
  /** Only these namespaces; null for every namespace. */
  namespaces: readonly string[] | null;
}

/**
 * What a namespace's facts fold to (the decisions and patterns walks, before the disk is compared), memoized in
 * the store: `version` names the namespace's facts as they are — it changes whenever a fact of the namespace is
 * written or removed, or a session with facts there is added or forgotten — and `body` is the fold saved for
 * exactly that version by this `build` of the fold, null when there is none.
 */
export interface FactFoldState {
  version: string;
  body: string | null;
}

export interface FactFold {
  /** The version read before the facts were (FactFoldState.version): a fold of newer facts is then never kept as older ones. */
  version: string;
  /** The fold's code: a fold saved by another build of it is not read. */
  build: string;
  body: string;
}
