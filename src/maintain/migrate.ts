import type { FixEvent } from '../records/fixes.js';
import type { DocSection } from '../store/types.js';
import type { StoreEngine } from '../store/ports.js';
import type { FileState, StoredSession } from '../store/types.js';

/** `moon migrate --to URL`: what was copied, and what a resumed run found already there. */
export interface MigrateReport {
  from: string;
  to: string;
  sessions: number;
  /** Sessions copied in this run (the rest were there from an earlier, interrupted one). */
  copied: number;
  skipped: number;
  entries: number;
  files: number;
  vectors: number;
  tombstones: number;
  failures: number;
  runs: number;
  /** Long-term memories added to the target (one already there, by id, is left as it is). */
  memories: number;
  /** Doc sections copied (the documents plane; a file already in the target is replaced whole). */
  docs: number;
  durationMs: number;
}

export interface MigrateOptions {
  onProgress?: (done: number, total: number, sessionId: string) => void;
  now?: () => number;
}

/**
 * Copy a whole index into another engine without reading a transcript again: sessions with their entries,
 * anchors, usage, keyword terms, vectors and archived pairs; file states (so the next `moon index` against the
 * target skips unchanged transcripts); tombstones, remembered failures, run records and long-term memories. Each session is copied
 * in one transaction and then marked copied (with its content hash), so an interrupted run resumes where it
 * stopped and a session that changed since is copied again.
 */
export async function migrateIndex(source: StoreEngine, target: StoreEngine, options: MigrateOptions = {}): Promise<MigrateReport> {
  const now = options.now ?? Date.now;
  const startedAtMs = now();
  const report: MigrateReport = {
    from: source.location,
    to: target.location,
    sessions: 0,
    copied: 0,
    skipped: 0,
    entries: 0,
    files: 0,
    vectors: 0,
    tombstones: 0,
    failures: 0,
    runs: 0,
    memories: 0,
    docs: 0,
    durationMs: 0,
  };
  const model = await source.vectors.getModel();
  if (model) await target.vectors.setModel(model);
  // Markers are derived by the target's commits from the copied entries; brought current first (cheap when the
  // target is empty), so its next index does not read every entry again.
  await target.markers.sync();
  const files = await source.ingest.listFiles();
  const owners = new Map<string, FileState>();
  for (const file of files) if (file.sessionId && !file.excluded) owners.set(`${file.sessionId}\n${file.path}`, file);
  const copied = await target.copy.listCopied(source.location);
  const sessions = await source.ingest.listSessions();
  report.sessions = sessions.length;
  const used = new Set<FileState>();
  // Fix facts are copied as they are: their file hashes are from when the session was indexed (what staleness
  // compares against), which indexing the session again on the target would take anew.
  const facts = new Map<string, FixEvent[]>();
  for (const fact of await source.fixes.listEvents({ namespaces: null })) {
    const list = facts.get(fact.sessionId) ?? [];
    list.push(fact);
    facts.set(fact.sessionId, list);
  }
  for (const [index, session] of sessions.entries()) {
    const owner = owners.get(`${session.id}\n${session.path}`) ?? null;
    if (owner) used.add(owner);
    if (copied.has(session.id) && copied.get(session.id) === session.contentHash) {
      report.skipped += 1;
    } else {
      const counts = await copySession(source, target, session, owner ?? placeholderFile(session, now()), facts.get(session.id) ?? []);
      report.copied += 1;
      report.entries += counts.entries;
      report.vectors += counts.vectors;
    }
    options.onProgress?.(index + 1, sessions.length, session.id);
  }
  // Files that own no session: excluded ones (forks, opt-outs, copies, forgotten), and states a session left.
  const rest = files.filter((file) => !used.has(file));
  await target.ingest.transaction(async (tx) => {
    for (const file of rest) await tx.commitFile({ file, session: null, reset: false, entries: [], results: [], anchors: [], usage: [] });
  });
  report.files = files.length;
  const known = new Set((await target.forget.listTombstones()).map((tombstone) => tombstone.sessionId));
  for (const tombstone of await source.forget.listTombstones()) {
    if (known.has(tombstone.sessionId)) continue;
    await target.forget.forget([tombstone.sessionId], tombstone.reason, tombstone.forgottenAtMs);
    report.tombstones += 1;
  }
  for (const failure of await source.ingest.listFailures()) {
    await target.ingest.putFailure(failure);
    report.failures += 1;
  }
  // Run records once: a resumed copy finds them there.
  if ((await target.copy.listRuns()).length === 0) {
    for (const run of await source.copy.listRuns()) {
      await target.stats.recordRun(run);
      report.runs += 1;
    }
  }
  // Long-term memories and their versions: curated, in no transcript; ids already in the target are kept.
  report.memories = await target.memories.restore(await source.memories.dump());
  // Doc records, namespace by namespace, each file replaced whole (a resumed copy writes the same rows again).
  const byNamespace = new Map<string, Map<string, DocSection[]>>();
  for (const section of await source.docs.readDocs(null)) {
    const files = byNamespace.get(section.namespace_id) ?? new Map<string, DocSection[]>();
    files.set(section.path, [...(files.get(section.path) ?? []), section]);
    byNamespace.set(section.namespace_id, files);
    report.docs += 1;
  }
  for (const [namespaceId, files] of byNamespace) {
    await target.docs.replaceDocFiles(namespaceId, [...files].map(([path, sections]) => ({ path, sections })));
  }
  report.durationMs = now() - startedAtMs;
  return report;
}

async function copySession(
  source: StoreEngine,
  target: StoreEngine,
  session: StoredSession,
  file: FileState,
  facts: readonly FixEvent[],
): Promise<{ entries: number; vectors: number }> {
  const entries = await source.ingest.listEntries(session.id);
  const anchors = await source.ingest.listAnchors(session.id);
  const extras = await source.copy.readSessionExtras(session.id);
  await target.ingest.transaction(async (tx) => {
    await tx.commitFile({ file, session, reset: true, entries, results: [], anchors, usage: extras.usage });
  });
  await target.copy.writeSessionExtras(session.id, { terms: extras.terms, vectors: extras.vectors, archived: extras.archived });
  // The projection on disk is the same file: keep it current rather than rendering it again.
  if (!session.projectionStale && session.projectionPath) await target.ingest.markProjected(session.id, session.projectionPath);
  await target.fixes.putSessionEvents(session.id, facts);
  await target.copy.markCopied(source.location, session.id, session.contentHash);
  return { entries: entries.length, vectors: extras.vectors.length };
}

/** A session with no file state (read from a raw archive that is gone): the next index reads its file again. */
function placeholderFile(session: StoredSession, nowMs: number): FileState {
  return {
    path: session.path,
    sessionId: session.id,
    source: session.source,
    size: -1,
    mtimeMs: 0,
    prefixHash: '',
    contentHash: session.contentHash ?? '',
    offset: 0,
    line: 0,
    carry: null,
    excluded: null,
    indexedAtMs: nowMs,
  };
}
