import type { RecordEnvelope } from './envelope.js';

/**
 * A run digest (plane B, seed 003 §5.3): what one finished agent session set out to do, how it ended, what it
 * changed, decided and tripped over, and what is left — every line pointing back at its evidence.
 */

/** One digest line and the evidence it stands on: entry (message) ids, and commits or PRs the text names. */
export interface DigestLine {
  text: string;
  message_ids: string[];
  commits: string[];
  prs: string[];
}

/** A file the session wrote, or a command it ran, with how it ended. */
export interface DigestChange extends DigestLine {
  kind: 'file' | 'command';
  target: string;
  /** `ok` (exit 0 / no error), `failed`, or `unknown` when the transcript does not say. */
  status: 'ok' | 'failed' | 'unknown';
}

export interface DigestOutcome extends DigestLine {
  status: 'succeeded' | 'failed' | 'unknown';
}

export interface DigestBody {
  intent: DigestLine | null;
  outcome: DigestOutcome;
  changes: DigestChange[];
  decisions: DigestLine[];
  gotchas: DigestLine[];
  next_steps: DigestLine[];
}

/** `heuristic` (moon's own rules, no network) or the name of the LLM provider that wrote it. */
export type DigestProducer = string;

export interface RunDigest extends RecordEnvelope {
  record_kind: 'run_digest';
  session_id: string;
  /** The session's content hash when digested: the same session and hash digest to the same record. */
  content_hash: string;
  produced_by: DigestProducer;
  title: string;
  body: DigestBody;
}

/** A digest as searched: the record and its rank among the matches (higher is better, engine-specific scale). */
export interface DigestHit {
  digest: RunDigest;
  score: number;
}

/** Every line of a digest as plain text: what the engines' full-text indexes hold. */
export function digestSearchText(digest: Pick<RunDigest, 'title' | 'body'>): string {
  const { body } = digest;
  const lines = [
    digest.title,
    body.intent?.text,
    body.outcome.text,
    ...body.changes.map((change) => `${change.target} ${change.text}`),
    ...body.decisions.map((line) => line.text),
    ...body.gotchas.map((line) => line.text),
    ...body.next_steps.map((line) => line.text),
  ];
  return lines.filter((line): line is string => typeof line === 'string' && line !== '').join('\n');
}
