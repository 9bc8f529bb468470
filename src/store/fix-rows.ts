import type { FixEvent, FixEventKind } from '../records/fixes.js';

/** A fix fact as both engines store it: the columns queried on, the rest in one JSON document. */
export interface FixEventRow {
  session_id: string;
  seq: number | string;
  namespace: string;
  repo: string | null;
  ts: number | string | null;
  kind: string;
  signature: string | null;
  target: string | null;
  message_id: string;
  data: string | FixEventData;
}

interface FixEventData {
  files: string[];
  fileHashes: Record<string, string | null>;
  commits: string[];
  text: string | null;
}

export function fixEventData(event: FixEvent): FixEventData {
  return { files: event.files, fileHashes: event.fileHashes, commits: event.commits, text: event.text };
}

export function toFixEvent(row: FixEventRow): FixEvent {
  const data: FixEventData = typeof row.data === 'string' ? (JSON.parse(row.data) as FixEventData) : row.data;
  return {
    sessionId: row.session_id,
    namespace: row.namespace,
    repo: row.repo,
    seq: Number(row.seq),
    ts: row.ts === null ? null : Number(row.ts),
    kind: row.kind as FixEventKind,
    signature: row.signature,
    target: row.target,
    messageId: row.message_id,
    files: data.files ?? [],
    fileHashes: data.fileHashes ?? {},
    commits: data.commits ?? [],
    text: data.text ?? null,
  };
}

/**
 * Whether a session's stored facts are these (in seq order): a put of the same facts is then left undone, so
 * indexing an unchanged session again (`moon index --force`, a rebuild) does not change its namespace's facts
 * version and drop the fold readers keep (FixPort.readFold).
 */
export function isSameFixEvents(stored: readonly FixEvent[], next: readonly FixEvent[]): boolean {
  if (stored.length !== next.length) return false;
  const bySeq = [...next].sort((a, b) => a.seq - b.seq);
  return stored.every((event, index) => describeFixEvent(event) === describeFixEvent(bySeq[index]!));
}

function describeFixEvent(event: FixEvent): string {
  const hashes = Object.entries(event.fileHashes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([
    event.sessionId,
    event.seq,
    event.namespace,
    event.repo,
    event.ts,
    event.kind,
    event.signature,
    event.target,
    event.messageId,
    event.files,
    hashes,
    event.commits,
    event.text,
  ]);
}
