import { existsSync } from 'node:fs';
import { rawArchivePathFor } from '../archive/paths.js';
import { writeFileAtomic } from '../archive/write.js';
import type { IngestContext } from './context.js';

/**
 * Keep a verbatim, owner-only copy of the transcript and record it in the ledger. The copy is named by
 * session, so a growing session keeps one file (the latest content); the ledger keeps every distinct hash.
 * The same (session, hash) pair is idempotent: no second copy, no second ledger line.
 */
export function archiveRaw(
  context: IngestContext,
  input: { source: string; sessionId: string; buffer: Buffer; contentHash: string; filteredNoiseCount: number | null },
): string {
  const archivePath = rawArchivePathFor(context.paths, input.source, input.sessionId);
  if (context.ledger.has(input.sessionId, input.contentHash) && existsSync(archivePath)) return archivePath;
  writeFileAtomic(archivePath, input.buffer);
  context.ledger.append({
    session_id: input.sessionId,
    archive_path: archivePath,
    content_hash: input.contentHash,
    created_at_epoch_secs: Math.floor(context.now() / 1000),
    indexed_collection: 'moon',
    projection_filtered_noise_count: input.filteredNoiseCount,
  });
  return archivePath;
}
