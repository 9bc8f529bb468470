import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeError } from '../errors.js';
import { createEntry, type Entry, type Role, type Session } from '../model.js';
import { parseProjection } from '../project/parse.js';
import type { IngestContext } from './context.js';
import { sha256 } from '../text/hash.js';
import { docFromChunk, writeProjection } from './project-session.js';
import { readTranscript } from './read-transcript.js';

/**
 * Rewrite projections in archives/mlib that the index does not know (v1 files from an older moon) as v2:
 * from their raw archive when it still exists, else from the v1 signal list itself.
 */
export function reprojectLegacy(context: IngestContext): { rewritten: number; warnings: string[] } {
  const warnings: string[] = [];
  let rewritten = 0;
  if (!existsSync(context.paths.mlib)) return { rewritten, warnings };
  for (const name of readdirSync(context.paths.mlib).filter((file) => file.endsWith('.md')).sort()) {
    const path = join(context.paths.mlib, name);
    try {
      const parsed = parseProjection(readFileSync(path, 'utf8'));
      const sessionId = String(parsed.frontmatter.session_id ?? name.replace(/\.md$/, ''));
      // v2 files are either the index's own (already rewritten above) or a snapshot's: both are current.
      if (parsed.version === 2) continue;
      const archivePath = typeof parsed.frontmatter.archive_jsonl_path === 'string' ? parsed.frontmatter.archive_jsonl_path : '';
      if (archivePath && existsSync(archivePath)) {
        const buffer = readFileSync(archivePath);
        const { normalized } = readTranscript(context, archivePath, buffer, null);
        const chunk = { ...normalized.chunk, session: { ...normalized.chunk.session, id: sessionId } };
        writeProjection(
          context,
          docFromChunk(context, chunk, { filteredNoiseCount: normalized.filtered, archivePath, contentHash: sha256(buffer) }),
        );
      } else {
        writeProjection(context, docFromSignals(context, sessionId, archivePath, parsed));
      }
      rewritten += 1;
    } catch (error) {
      warnings.push(`${path}: cannot reproject (${describeError(error)})`);
    }
  }
  return { rewritten, warnings };
}

function docFromSignals(
  context: IngestContext,
  sessionId: string,
  archivePath: string,
  parsed: ReturnType<typeof parseProjection>,
) {
  const createdMs = typeof parsed.frontmatter.created_at_epoch_secs === 'number' ? parsed.frontmatter.created_at_epoch_secs * 1000 : null;
  const session: Session = {
    id: sessionId,
    source: 'claude-code',
    path: archivePath,
    project: null,
    cwd: null,
    branch: null,
    parentSessionId: null,
    title: null,
    agentType: null,
    agentDescription: null,
    startMs: createdMs,
    endMs: createdMs,
  };
  const entries: Entry[] = (parsed.signals ?? []).map((signal, index) =>
    createEntry({
      id: `S${index + 1}`,
      key: `signal:${index + 1}`,
      sessionId,
      seq: (index + 1) * 1000,
      line: index + 1,
      ts: null,
      role: toRole(signal.role),
      text: signal.text,
    }),
  );
  return {
    session,
    entries,
    anchors: [],
    filteredNoiseCount: 0,
    archivePath,
    contentHash: typeof parsed.frontmatter.content_hash === 'string' ? parsed.frontmatter.content_hash : '',
    timezone: context.timezone,
  };
}

function toRole(role: string): Role {
  return role === 'user' || role === 'assistant' || role === 'system' ? role : 'tool';
}
