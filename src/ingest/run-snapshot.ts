import { describeError, isMoonError } from '../errors.js';
import type { IngestContext } from './context.js';
import { archiveRaw, copyDocumentArchive, describeArchive } from './archive-raw.js';
import { discoverFiles } from './discover.js';
import { sha256 } from '../text/hash.js';
import { docFromChunk, writeProjection } from './project-session.js';
import { readRegularFile } from './read-file.js';
import { readTranscript } from './read-transcript.js';
import { type DocumentRead, readDocumentFile } from './read-document.js';
import { hashDocumentSession } from './prepare-document.js';

export interface SnapshotReport {
  files: number;
  archived: { sessionId: string; source: string; archivePath: string; projectionPath: string; contentHash: string }[];
  excluded: { path: string; reason: string }[];
  errors: { path: string; reason: string }[];
  warnings: string[];
}

/** `moon snapshot`: raw copy + ledger + v2 projection for each transcript, without touching the index. */
export function runSnapshot(context: IngestContext, roots: string[]): SnapshotReport {
  const discovery = discoverFiles(roots, [context.paths.home]);
  const report: SnapshotReport = { files: discovery.files.length, archived: [], excluded: [], errors: [], warnings: [...discovery.warnings] };
  for (const path of discovery.files) {
    try {
      const { buffer } = readRegularFile(discovery.fsPaths.get(path) ?? path, path);
      const contentHash = sha256(buffer);
      const document = readDocumentFile(path, buffer);
      if (document) {
        snapshotDocument(context, report, path, buffer, contentHash, document);
        continue;
      }
      const { source, normalized, warnings } = readTranscript(context, path, buffer, null);
      for (const warning of warnings) report.warnings.push(warning);
      const chunk = normalized.chunk;
      if (chunk.fork) {
        report.excluded.push({ path, reason: 'fork session (first record is a queue-operation)' });
        continue;
      }
      if (context.excludeSessionIds.has(chunk.session.id)) {
        report.excluded.push({ path, reason: 'current session' });
        continue;
      }
      const archivePath = archiveRaw(context, {
        source: source.name,
        sessionId: chunk.session.id,
        buffer,
        contentHash,
        filteredNoiseCount: normalized.filtered,
      });
      const projectionPath = writeProjection(
        context,
        docFromChunk(context, chunk, { filteredNoiseCount: normalized.filtered, archivePath, contentHash }),
      );
      report.archived.push({ sessionId: chunk.session.id, source: source.name, archivePath, projectionPath, contentHash });
    } catch (error) {
      report.errors.push({ path, reason: isMoonError(error) ? error.message : `${path}: ${describeError(error)}` });
    }
  }
  return report;
}

/** A whole-file document: one raw copy, and a ledger record and a projection per session it holds. */
function snapshotDocument(context: IngestContext, report: SnapshotReport, path: string, buffer: Buffer, contentHash: string, document: DocumentRead): void {
  const source = document.source.name;
  for (const reason of document.parsed.skipped) report.warnings.push(`${path}: skipped ${reason}`);
  let archivePath: string | null = null;
  for (const session of document.parsed.sessions) {
    const normalized = context.normalize(session.chunk);
    const chunk = normalized.chunk;
    if (context.excludeSessionIds.has(chunk.session.id)) continue;
    archivePath ??= copyDocumentArchive(context, source, path, buffer);
    context.ledger.append(describeArchive(context, archivePath, { source, sessionId: chunk.session.id, buffer, contentHash, filteredNoiseCount: normalized.filtered }));
    // A conversation's projection carries its own hash (as the index's does), so an unchanged one keeps it.
    const sessionHash = hashDocumentSession(session);
    const projectionPath = writeProjection(context, docFromChunk(context, chunk, { filteredNoiseCount: normalized.filtered, archivePath, contentHash: sessionHash }));
    report.archived.push({ sessionId: chunk.session.id, source, archivePath, projectionPath, contentHash });
  }
}
