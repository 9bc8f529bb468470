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
