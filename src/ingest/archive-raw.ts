import { existsSync } from 'node:fs';
import { rawArchivePathFor, rawDocumentArchivePathFor } from '../archive/paths.js';
import { writeFileAtomic } from '../archive/write.js';
import type { ArchiveRecord } from '../model.js';
import type { IngestContext } from './context.js';

export interface RawArchiveInput {
  source: string;
  sessionId: string;
  buffer: Buffer;
  contentHash: string;
  filteredNoiseCount: number | null;
}

/**
 * Keep a verbatim, owner-only copy of the transcript and return the ArchiveRecord that describes it, without
 * writing the ledger. The copy is named by session, so a growing session keeps one file (the latest content).
 * `moon index` records the pair in the index's transaction and appends the ledger line only after the commit
 * (Store.flushLedger); a copy written before a commit that then fails is simply rewritten by the next run.
 */
export function copyRawArchive(context: IngestContext, input: RawArchiveInput): { archivePath: string; record: ArchiveRecord } {
  const archivePath = rawArchivePathFor(context.paths, input.source, input.sessionId);
  if (!(context.ledger.has(input.sessionId, input.contentHash) && existsSync(archivePath))) {
    writeFileAtomic(archivePath, input.buffer);
  }
  return { archivePath, record: describeArchive(context, archivePath, input) };
}

/** The ledger record of a raw copy at `archivePath` (for a rebuild, the file being read is its own copy). */
export function describeArchive(context: IngestContext, archivePath: string, input: RawArchiveInput): ArchiveRecord {
  return {
    session_id: input.sessionId,
    archive_path: archivePath,
    content_hash: input.contentHash,
    created_at_epoch_secs: Math.floor(context.now() / 1000),
    indexed_collection: 'moon',
    projection_filtered_noise_count: input.filteredNoiseCount,
  };
}

/**
 * The copy and its ledger line at once, for `moon snapshot` (no index, so no transaction to wait for).
 * The same (session, hash) pair is idempotent: no second copy, no second ledger line.
 */
export function archiveRaw(context: IngestContext, input: RawArchiveInput): string {
  const { archivePath, record } = copyRawArchive(context, input);
  context.ledger.append(record);
  return archivePath;
}

/**
 * The raw copy of a whole-file document (a Puffin history), one for all its sessions, written whenever one of
 * them changed; its ledger records are the sessions' (describeArchive). Returns where it is.
 */
export function copyDocumentArchive(context: IngestContext, source: string, path: string, buffer: Buffer): string {
  const archivePath = rawDocumentArchivePathFor(context.paths, source, path);
  writeFileAtomic(archivePath, buffer);
  return archivePath;
}
