import { type ArchiveRecord, type Entry, mergeEntryInto, mergeResultInto } from '../../model.js';
import { CONTEXT_RADIUS, type PreparedDocument, buildIndexDocument } from '../index-document.js';
import type { FileCommit, FileState, SessionWrite, StoredSession } from '../types.js';
import type { PgClient } from './client.js';
import { cleanText, toJsonParam } from './clean.js';
import { buildTrigramIndex, buildWordIndex } from './lexical.js';
import { addPostings, removePostings } from './postings.js';
import { buildHead, buildOwnPostings } from '../postings/entry-postings.js';
import { localNumbering } from '../postings/term-numbering.js';
import type { MarkerConfig } from '../../markers/extract.js';
import { replaceEntryMarkers } from './markers.js';
import { ENTRY_COLUMNS, ENTRY_RECORD_TYPE, type EntryRow, entryRecord, namespaceOf, toEntry } from './rows.js';

/**
 * One file's changes, applied on a client inside a transaction: the session row, its entries merged by key (the
 * one rule in model.ts), their index rows and those of their neighbours, their `@/` markers, anchors, usage, the file state and the
 * archived pair. A file's entries travel in one statement, not one per row.
 */
export async function applyFileCommit(client: PgClient, machine: string, change: FileCommit, markers: MarkerConfig): Promise<void> {
  if (change.session) await applySession(client, machine, { ...change, session: change.session }, markers);
  for (const write of change.sessions ?? []) {
    await applySession(client, machine, write, markers);
    if (write.archived) await putArchived(client, machine, write.archived, namespaceOf(write.session));
  }
  for (const id of change.dropSessions ?? []) await dropSession(client, id);
  if (change.forgetFile) await client.query('DELETE FROM moon.files WHERE machine = $1 AND path = $2', [machine, change.forgetFile]);
  // A file of several sessions is filed under its first one's namespace (they share the project).
  const owner = change.session ?? change.sessions?.[0]?.session ?? null;
  await putFile(client, machine, change.file, namespaceOf(owner));
  if (change.archived) await putArchived(client, machine, change.archived, namespaceOf(change.session));
}

async function applySession(client: PgClient, machine: string, write: SessionWrite, markers: MarkerConfig): Promise<void> {
  const session = write.session;
  const namespace = namespaceOf(session);
  if (write.reset) await deleteSessionContent(client, session.id);
  await putSession(client, machine, session, namespace);
  const { changed, inserted } = await upsertEntries(client, session.id, namespace, write);
  // A row this commit inserted has only this commit's data: the document prepared with it fits.
  const prepared = new Map<number, PreparedDocument>();
  for (const rowid of inserted) {
    const document = write.documents?.get(changed.get(rowid)!.key);
    if (document) prepared.set(rowid, document);
  }
  await refreshIndex(client, session.id, changed, { prepared });
  await replaceEntryMarkers(client, changed, inserted, session.project, markers);
  for (const anchor of write.anchors) {
    await client.query(
      `INSERT INTO moon.anchors (session_id, id, namespace, ts, line, note, origin_id) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (session_id, id) DO UPDATE SET ts = excluded.ts, line = excluded.line, note = excluded.note, origin_id = excluded.origin_id`,
      [anchor.sessionId, anchor.id, namespace, anchor.ts, anchor.line, cleanText(anchor.note), anchor.originId],
    );
  }
  for (const usage of write.usage) {
    await client.query(
      `INSERT INTO moon.usage (session_id, namespace, captured_s, used_tokens, max_tokens, usage_ratio, provider)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (session_id, captured_s, provider) DO UPDATE SET used_tokens = excluded.used_tokens,
         max_tokens = excluded.max_tokens, usage_ratio = excluded.usage_ratio`,
      [usage.session_id, namespace, usage.captured_at_epoch_secs, usage.used_tokens, usage.max_tokens, usage.usage_ratio, usage.provider],
    );
  }
  await client.query('UPDATE moon.sessions SET entry_count = (SELECT count(*) FROM moon.entries WHERE session_id = $1) WHERE id = $1', [session.id]);
}

async function putArchived(client: PgClient, machine: string, archived: ArchiveRecord, namespace: string): Promise<void> {
  await client.query(
    `INSERT INTO moon.archived (machine, session_id, content_hash, namespace, record) VALUES ($1, $2, $3, $4, $5::jsonb)
     ON CONFLICT (machine, session_id, content_hash) DO NOTHING`,
    [machine, archived.session_id, archived.content_hash, namespace, toJsonParam(archived)],
  );
}

/** A session its file no longer holds: everything it had goes (its archived pairs stay, as the ledger keeps them). */
async function dropSession(client: PgClient, id: string): Promise<void> {
  await deleteSessionContent(client, id);
  await client.query('DELETE FROM moon.fix_events WHERE session_id = $1', [id]);
  await client.query('DELETE FROM moon.sessions WHERE id = $1', [id]);
}

async function putSession(client: PgClient, machine: string, session: StoredSession, namespace: string): Promise<void> {
  await client.query(
    `INSERT INTO moon.sessions (id, namespace, machine, source, path, project, cwd, branch, parent_id, start_ms, end_ms, filtered_count,
       skipped, archive_path, projection_path, content_hash, projection_stale, title, agent_type, agent_description)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14, $15, $16, true, $17, $18, $19)
     ON CONFLICT (id) DO UPDATE SET namespace = excluded.namespace, machine = excluded.machine, source = excluded.source,
       path = excluded.path, project = excluded.project, cwd = excluded.cwd, branch = excluded.branch, parent_id = excluded.parent_id,
       start_ms = excluded.start_ms, end_ms = excluded.end_ms, filtered_count = excluded.filtered_count, skipped = excluded.skipped,
       archive_path = excluded.archive_path, content_hash = excluded.content_hash, projection_stale = true,
       title = coalesce(excluded.title, moon.sessions.title), agent_type = coalesce(excluded.agent_type, moon.sessions.agent_type),
       agent_description = coalesce(excluded.agent_description, moon.sessions.agent_description)`,
    [
      session.id, namespace, machine, session.source, cleanText(session.path), cleanText(session.project), cleanText(session.cwd),
      cleanText(session.branch), session.parentSessionId, session.startMs, session.endMs, session.filteredNoiseCount,
      toJsonParam(session.skipped), cleanText(session.archivePath), cleanText(session.projectionPath), session.contentHash,
      cleanText(session.title), cleanText(session.agentType), cleanText(session.agentDescription),
    ],
  );
}

export async function putFile(client: PgClient, machine: string, file: FileState, namespace: string): Promise<void> {
  await client.query(
    `INSERT INTO moon.files (machine, path, namespace, session_id, source, size, mtime_ms, prefix_hash, content_hash, "offset", line,
       carry, excluded, indexed_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14)
     ON CONFLICT (machine, path) DO UPDATE SET namespace = excluded.namespace, session_id = excluded.session_id,
       source = excluded.source, size = excluded.size, mtime_ms = excluded.mtime_ms, prefix_hash = excluded.prefix_hash,
       content_hash = excluded.content_hash, "offset" = excluded."offset", line = excluded.line, carry = excluded.carry,
       excluded = excluded.excluded, indexed_ms = excluded.indexed_ms`,
    [
      machine, file.path, namespace, file.sessionId, file.source, file.size, file.mtimeMs, file.prefixHash, file.contentHash, file.offset,
      file.line, file.carry === null || file.carry === undefined ? null : toJsonParam(file.carry), file.excluded, file.indexedAtMs,
    ],
  );
}

/** Drop everything a session holds but its row: entries (their index rows and vectors with them), anchors, usage, terms. */
export async function deleteSessionContent(client: PgClient, sessionId: string): Promise<void> {
  const gone = await client.query<{ rowid: number }>('DELETE FROM moon.entries WHERE session_id = $1 RETURNING rowid', [sessionId]);
  removePostings(client, gone.rows.map((row) => Number(row.rowid)));
  await client.query('DELETE FROM moon.anchors WHERE session_id = $1', [sessionId]);
  await client.query('DELETE FROM moon.usage WHERE session_id = $1', [sessionId]);
  await client.query('DELETE FROM moon.session_terms WHERE session_id = $1', [sessionId]);
}

interface Pending {
  rowid: number | null;
  entry: Entry;
}

/**
 * Merge the commit's entries and results into what the session holds, by key, and write the changed ones.
 * Returns the changed rows' ids with their merged entries.
 */
async function upsertEntries(
  client: PgClient,
  sessionId: string,
  namespace: string,
  change: Pick<SessionWrite, 'entries' | 'results'>,
): Promise<{ changed: Map<number, Entry>; inserted: number[] }> {
  const keys = [...new Set([...change.entries.map((entry) => entry.key), ...change.results.map((patch) => patch.key)])];
  const byKey = new Map<string, Pending>();
  if (keys.length > 0) {
    const existing = await client.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM moon.entries e WHERE e.session_id = $1 AND e.key = ANY ($2::text[])`, [
      sessionId,
      keys,
    ]);
    for (const row of existing.rows) byKey.set(row.key, { rowid: row.rowid, entry: toEntry(row) });
  }
  const touched = new Set<Pending>();
  for (const entry of change.entries) {
    const known = byKey.get(entry.key);
    if (known) mergeEntryInto(known.entry, entry);
    else byKey.set(entry.key, { rowid: null, entry: { ...entry } });
    touched.add(byKey.get(entry.key)!);
  }
  for (const patch of change.results) {
    const known = byKey.get(patch.key);
    if (!known) continue;
    mergeResultInto(known.entry, patch);
    touched.add(known);
  }
  const inserts = [...touched].filter((item) => item.rowid === null);
  const updates = [...touched].filter((item) => item.rowid !== null);
  if (inserts.length > 0) {
    const inserted = await client.query<{ rowid: number; key: string }>(
      `INSERT INTO moon.entries (namespace, session_id, key, id, seq, line, ts, role, text, tool_name, tool_target, priority, result,
         result_id, parent_id, sidechain, kind, exit_code, duration_ms, status)
       SELECT namespace, session_id, key, id, seq, line, ts, role, text, tool_name, tool_target, priority, result, result_id, parent_id,
         sidechain, kind, exit_code, duration_ms, status
       FROM jsonb_to_recordset($1::jsonb) AS r(${ENTRY_RECORD_TYPE})
       RETURNING rowid, key`,
      [toJsonParam(inserts.map((item) => entryRecord(item.entry, namespace)))],
    );
    for (const row of inserted.rows) byKey.get(row.key)!.rowid = row.rowid;
  }
  if (updates.length > 0) {
    await client.query(
      `UPDATE moon.entries e SET text = r.text, result = r.result, result_id = r.result_id, tool_target = r.tool_target,
         priority = r.priority, kind = r.kind, exit_code = r.exit_code, duration_ms = r.duration_ms, status = r.status
       FROM jsonb_to_recordset($1::jsonb) AS r(rowid bigint, ${ENTRY_RECORD_TYPE})
       WHERE e.rowid = r.rowid`,
      [toJsonParam(updates.map((item) => ({ rowid: item.rowid, ...entryRecord(item.entry, namespace) })))],
    );
  }
  return { changed: new Map([...touched].map((item) => [item.rowid!, item.entry])), inserted: inserts.map((item) => item.rowid!) };
}

/**
 * Rebuild the index rows of changed entries and of their neighbours (whose context column holds the changed
 * text) — the same rule as the SQLite engine's refreshIndex, with the document built by index-document.ts.
 * A changed entry's trigram body is rebuilt and its vector dropped (it is embedded again).
 */
export async function refreshIndex(
  client: PgClient,
  sessionId: string,
  changed: ReadonlyMap<number, Entry>,
  options: { wordsOnly?: boolean; postingsOnly?: boolean; prepared?: ReadonlyMap<number, PreparedDocument> } = {},
): Promise<void> {
  if (changed.size === 0) return;
  const order = (await client.query<{ rowid: number }>('SELECT rowid FROM moon.entries WHERE session_id = $1 ORDER BY seq, rowid', [sessionId])).rows.map(
    (row) => row.rowid,
  );
  const touched = new Set<number>();
  order.forEach((rowid, index) => {
    if (!changed.has(rowid)) return;
    for (let offset = -CONTEXT_RADIUS; offset <= CONTEXT_RADIUS; offset += 1) {
      const neighbour = order[index + offset];
      if (neighbour !== undefined) touched.add(neighbour);
    }
  });
  const needed = new Set<number>();
  order.forEach((rowid, index) => {
    if (!touched.has(rowid)) return;
    for (let offset = -CONTEXT_RADIUS; offset <= CONTEXT_RADIUS; offset += 1) {
      const neighbour = order[index + offset];
      if (neighbour !== undefined) needed.add(neighbour);
    }
  });
  const known = new Map(changed);
  const missing = [...needed].filter((rowid) => !known.has(rowid));
  if (missing.length > 0) {
    const rows = await client.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM moon.entries e WHERE e.rowid = ANY ($1::bigint[])`, [missing]);
    for (const row of rows.rows) known.set(row.rowid, toEntry(row));
  }
  const updates: Record<string, unknown>[] = [];
  // Each row's head (the part of its text its neighbours' context quotes), numbered once for all its neighbours.
  const heads = new Map<number, { numbering: string; head: Uint32Array }>();
  const headOf = (rowid: number) => {
    let found = heads.get(rowid);
    if (!found) {
      found = options.prepared?.get(rowid)?.postings ?? { numbering: localNumbering.id, head: buildHead(known.get(rowid)!.text) };
      heads.set(rowid, found);
    }
    return found;
  };
  order.forEach((rowid, index) => {
    if (!touched.has(rowid)) return;
    const entry = known.get(rowid)!;
    const before: string[] = [];
    const after: string[] = [];
    for (let offset = 1; offset <= CONTEXT_RADIUS; offset += 1) {
      const previous = order[index - offset];
      const next = order[index + offset];
      if (previous !== undefined) before.push(known.get(previous)!.text);
      if (next !== undefined) after.push(known.get(next)!.text);
    }
    const prepared = options.prepared?.get(rowid);
    const document = buildIndexDocument(prepared ?? entry, { before, after });
    const around: { numbering: string; head: Uint32Array }[] = [];
    for (let offset = 1; offset <= CONTEXT_RADIUS; offset += 1) {
      for (const neighbour of [order[index - offset], order[index + offset]]) if (neighbour !== undefined) around.push(headOf(neighbour));
    }
    addPostings(client, rowid, prepared?.postings ?? buildOwnPostings(document, entry), around);
    if (options.postingsOnly) return;
    const words = buildWordIndex(document, entry);
    const trigram = changed.has(rowid) && !options.wordsOnly ? buildTrigramIndex(prepared?.trigram ?? entry) : null;
    updates.push({ rowid, tv: words.tv, tool_tv: words.toolTv, doc_len: words.docLen, tri: trigram?.tri ?? null, tri_len: trigram?.triLen ?? null });
  });
  if (options.postingsOnly) return;
  await client.query(
    `UPDATE moon.entries e SET tv = r.tv::tsvector, tool_tv = r.tool_tv::tsvector, doc_len = r.doc_len, tri = coalesce(r.tri, e.tri),
       tri_len = coalesce(r.tri_len, e.tri_len)
     FROM jsonb_to_recordset($1::jsonb) AS r(rowid bigint, tv text, tool_tv text, doc_len integer, tri text, tri_len integer)
     WHERE e.rowid = r.rowid`,
    [toJsonParam(updates)],
  );
  if (!options.wordsOnly) await client.query('DELETE FROM moon.embeddings WHERE rowid = ANY ($1::bigint[])', [[...changed.keys()]]);
}
