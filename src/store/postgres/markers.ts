import type { Entry } from '../../model.js';
import { type MarkerConfig, requiredMarkerText } from '../../markers/extract.js';
import type { MarkerQuery, MarkerSync, StoredMarker } from '../../markers/types.js';
import { MARKER_META_KEY, MARKER_ORDER, type MarkerRow, buildMarkerRows, toStoredMarker } from '../marker-rows.js';
import { cleanText } from './clean.js';
import type { PgClient } from './client.js';
import { Params, escapeLike } from './filters.js';
import { ENTRY_COLUMNS, type EntryRow, toEntry } from './rows.js';

/**
 * The markers table on PostgreSQL. Rows are written by the file commit that changed their entries (on its
 * client, inside its transaction) and go with their entries (ON DELETE CASCADE): a session re-read from the
 * start or forgotten leaves none behind. `namespace` is the session's project, as on every row here.
 */

/** Replace the markers of the entries a commit changed (rowid → the merged entry); rows it inserted had none. */
export async function replaceEntryMarkers(
  client: PgClient,
  changed: ReadonlyMap<number, Entry>,
  inserted: readonly number[],
  project: string | null,
  config: MarkerConfig,
): Promise<void> {
  if (changed.size === 0) return;
  const fresh = new Set(inserted);
  const updated = [...changed.keys()].filter((rowid) => !fresh.has(rowid));
  if (updated.length > 0) await client.query('DELETE FROM moon.markers WHERE entry_rowid = ANY ($1::bigint[])', [updated]);
  const rows = [...changed].flatMap(([rowid, entry]) => buildMarkerRows(rowid, entry, project, config));
  await insertMarkerRows(client, rows);
}

/** Every entry's markers derived again when the stored ones are not current; `locked` runs its work in the ingest transaction. */
export async function syncMarkers(
  db: PgClient,
  config: MarkerConfig,
  fingerprint: string,
  locked: <T>(work: (client: PgClient) => Promise<T>) => Promise<T>,
): Promise<MarkerSync> {
  if ((await readFingerprint(db)) === fingerprint) return { rederived: false, markers: await countMarkers(db) };
  return locked(async (client) => {
    // Another writer may have synced while this one waited for the lock.
    if ((await readFingerprint(client)) === fingerprint) return { rederived: false, markers: await countMarkers(client) };
    await client.query('DELETE FROM moon.markers');
    if (config.patterns.length > 0) {
      const tag = requiredMarkerText(config);
      for (let after = 0; ; ) {
        const page = await client.query<EntryRow & { project: string | null }>(
          `SELECT ${ENTRY_COLUMNS}, s.project AS project FROM moon.entries e LEFT JOIN moon.sessions s ON s.id = e.session_id
           WHERE e.rowid > $1 ${tag === null ? '' : "AND (strpos(e.text, $2) > 0 OR strpos(coalesce(e.result, ''), $2) > 0)"}
           ORDER BY e.rowid LIMIT 500`,
          tag === null ? [after] : [after, tag],
        );
        if (page.rows.length === 0) break;
        await insertMarkerRows(
          client,
          page.rows.flatMap((row) => buildMarkerRows(Number(row.rowid), toEntry(row), row.project, config)),
        );
        after = Number(page.rows[page.rows.length - 1]!.rowid);
      }
    }
    await client.query('INSERT INTO moon.meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [MARKER_META_KEY, fingerprint]);
    return { rederived: true, markers: await countMarkers(client) };
  });
}

export async function listMarkers(db: PgClient, query: MarkerQuery): Promise<StoredMarker[]> {
  const params = new Params();
  const where = renderMarkerFilters(query, params, true);
  const rows = await db.query<MarkerRow>(
    `SELECT *, nullif(namespace, '') AS project FROM moon.markers ${where} ORDER BY ${MARKER_ORDER} LIMIT ${params.add(query.limit)}`,
    params.values,
  );
  return rows.rows.map(toStoredMarker);
}

export async function countMarkersByType(db: PgClient, query: Omit<MarkerQuery, 'limit' | 'types'>): Promise<Record<string, number>> {
  const params = new Params();
  const where = renderMarkerFilters(query, params, false);
  const rows = await db.query<{ type: string; n: number }>(`SELECT type, count(*) AS n FROM moon.markers ${where} GROUP BY type ORDER BY type`, params.values);
  return Object.fromEntries(rows.rows.map((row) => [row.type, Number(row.n)]));
}

async function insertMarkerRows(client: PgClient, rows: readonly MarkerRow[]): Promise<void> {
  if (rows.length === 0) return;
  // One statement: parallel arrays unnested together.
  await client.query(
    `INSERT INTO moon.markers (entry_rowid, ordinal, session_id, entry_id, seq, ts, namespace, type, content, priority, source_field, line,
       context_before, context_after)
     SELECT * FROM unnest($1::bigint[], $2::integer[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::text[], $9::text[],
       $10::integer[], $11::text[], $12::integer[], $13::text[], $14::text[])
     ON CONFLICT (entry_rowid, ordinal) DO NOTHING`,
    [
      rows.map((row) => row.entry_rowid),
      rows.map((row) => row.ordinal),
      rows.map((row) => row.session_id),
      rows.map((row) => cleanText(row.entry_id)),
      rows.map((row) => row.seq),
      rows.map((row) => row.ts),
      rows.map((row) => cleanText(row.project) ?? ''),
      rows.map((row) => row.type),
      rows.map((row) => cleanText(row.content)),
      rows.map((row) => row.priority),
      rows.map((row) => row.source_field),
      rows.map((row) => row.line),
      rows.map((row) => cleanText(row.context_before)),
      rows.map((row) => cleanText(row.context_after)),
    ],
  );
}

async function readFingerprint(db: PgClient): Promise<string | null> {
  return (await db.query<{ value: string }>('SELECT value FROM moon.meta WHERE key = $1', [MARKER_META_KEY])).rows[0]?.value ?? null;
}

async function countMarkers(db: PgClient): Promise<number> {
  return Number((await db.query<{ n: number }>('SELECT count(*) AS n FROM moon.markers')).rows[0]?.n ?? 0);
}

function renderMarkerFilters(query: Omit<MarkerQuery, 'limit'>, params: Params, withTypes: boolean): string {
  const where: string[] = [];
  if (withTypes && query.types && query.types.length > 0) where.push(`type = ANY (${params.add([...query.types])}::text[])`);
  if (query.sessionIds) where.push(`session_id = ANY (${params.add([...query.sessionIds])}::text[])`);
  if (query.sinceMs !== undefined) where.push(`ts >= ${params.add(query.sinceMs)}`);
  if (query.untilMs !== undefined) where.push(`ts < ${params.add(query.untilMs)}`);
  for (const word of query.words ?? []) where.push(`lower(content) LIKE ${params.add(`%${escapeLike(word.toLowerCase())}%`)}`);
  return where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
}
