import { createHash } from 'node:crypto';
import { mergeByKey } from '../model.js';
import { type RankedTerm, rankSessionTerms } from '../normalize/keywords.js';
import { isObject } from '../sources/json-value.js';
import type { DocumentSession } from '../sources/source.js';
import { type PreparedDocument, prepareMergedDocuments } from '../store/index-document.js';
import type { IngestContext, NormalizedChunk } from './context.js';
import { inSessionOrder } from './project-session.js';
import type { DocumentRead } from './read-document.js';

/**
 * What a whole-file document's file state carries between runs (FileState.carry): per session, the hash of what
 * it gave moon and the hash of each of its parts (seed 004's per-prompt hashes for a Puffin history). A
 * rewritten document is compared with it session by session: only sessions whose hash changed are normalized
 * and written again; parts tell what changed (added, modified, removed).
 */
export interface DocumentCarry {
  v: 1;
  kind: 'document';
  sessions: CarriedSession[];
}

export interface CarriedSession {
  /** The session's id as the document gives it. */
  id: string;
  /** The id it is stored under (a suffixed one when another file held the id), or null when it is not stored. */
  stored: string | null;
  hash: string;
  /** [part id, part hash] in session order. */
  parts: [string, string][];
}

/** A session of the document that changed, ready to commit. */
export interface ChangedSession {
  normalized: NormalizedChunk;
  hash: string;
  parts: [string, string][];
  /** The id it was stored under before, when it was. */
  stored: string | null;
  documents?: Map<string, PreparedDocument>;
  ranked?: RankedTerm[];
}

export interface PartCounts {
  added: number;
  modified: number;
  removed: number;
}

export interface DocumentChanges {
  changed: ChangedSession[];
  unchanged: CarriedSession[];
  removed: CarriedSession[];
  parts: PartCounts;
  /** `path: reason` per malformed entry skipped. */
  warnings: string[];
}

/** The carry of a document's last read, when the file state holds one. */
export function readDocumentCarry(carry: unknown): DocumentCarry | null {
  if (!isObject(carry) || carry.v !== 1 || carry.kind !== 'document' || !Array.isArray(carry.sessions)) return null;
  return carry as unknown as DocumentCarry;
}

/**
 * The hash of everything a session gives moon before normalizing: equal hashes, nothing to write. Entry by
 * entry (each JSON object delimits itself), so a long conversation never becomes one string.
 */
export function hashDocumentSession(session: DocumentSession): string {
  const { chunk } = session;
  const hash = createHash('sha256').update(JSON.stringify([chunk.session, chunk.results, chunk.anchors, chunk.usage, chunk.skipped]));
  for (const entry of chunk.entries) hash.update(JSON.stringify(entry));
  return hash.digest('hex');
}

/** Malformed entries named per file; the first few name their entries, the rest are counted. */
const MAX_SKIP_WARNINGS = 20;

/**
 * Compare a read document with the carry of the last one: sessions whose hash is unchanged are left as they are
 * (not normalized, not written); changed and new ones are normalized, with their index documents and keyword
 * terms when the context prepares them; sessions the document no longer holds are listed for removal. Takes the
 * read's sessions over (it is left with none).
 */
export function compareDocument(context: IngestContext, path: string, read: DocumentRead, carry: DocumentCarry | null): DocumentChanges {
  const before = new Map((carry?.sessions ?? []).map((session) => [session.id, session]));
  const seen = new Set<string>();
  const changes: DocumentChanges = { changed: [], unchanged: [], removed: [], parts: { added: 0, modified: 0, removed: 0 }, warnings: [] };
  // Taken over from the read: each session's raw form is let go once it is compared (and normalized).
  const sessions: (DocumentSession | null)[] = read.parsed.sessions;
  read.parsed.sessions = [];
  for (let index = 0; index < sessions.length; index += 1) {
    const session = sessions[index]!;
    sessions[index] = null;
    const id = session.chunk.session.id;
    if (seen.has(id)) continue;
    seen.add(id);
    const hash = hashDocumentSession(session);
    const parts = session.parts.map((part): [string, string] => [part.id, part.hash]);
    const old = before.get(id);
    if (old && old.hash === hash) {
      changes.unchanged.push({ ...old, parts });
      continue;
    }
    const normalized = context.normalize(session.chunk);
    const changed: ChangedSession = { normalized, hash, parts, stored: old?.stored ?? null };
    const merged = mergeByKey(normalized.chunk.entries, normalized.chunk.results);
    if (context.prepareDocuments) changed.documents = prepareMergedDocuments(merged);
    changed.ranked = rankSessionTerms(inSessionOrder(merged));
    changes.changed.push(changed);
  }
  for (const old of carry?.sessions ?? []) if (!seen.has(old.id)) changes.removed.push(old);
  changes.parts = countParts(
    (carry?.sessions ?? []).flatMap((session) => session.parts),
    [...changes.unchanged, ...changes.changed].flatMap((session) => session.parts),
  );
  const skipped = read.parsed.skipped;
  for (const reason of skipped.slice(0, MAX_SKIP_WARNINGS)) changes.warnings.push(`${path}: skipped ${reason}`);
  if (skipped.length > MAX_SKIP_WARNINGS) changes.warnings.push(`${path}: ${skipped.length - MAX_SKIP_WARNINGS} more malformed entries skipped`);
  return changes;
}

/** Parts added, modified and removed between two readings of a document, by part id (wherever a part sits). */
function countParts(before: readonly [string, string][], after: readonly [string, string][]): PartCounts {
  const counts: PartCounts = { added: 0, modified: 0, removed: 0 };
  const old = new Map(before);
  const now = new Set<string>();
  for (const [id, hash] of after) {
    now.add(id);
    const was = old.get(id);
    if (was === undefined) counts.added += 1;
    else if (was !== hash) counts.modified += 1;
  }
  for (const [id] of before) if (!now.has(id)) counts.removed += 1;
  return counts;
}
