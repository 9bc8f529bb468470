import type { SessionListFilter, SessionMatch, SessionSummary, StoredSession } from '../types.js';
import type { PgClient } from './client.js';
import { Params, escapeLike } from './filters.js';
import { type SessionRow, toSession } from './rows.js';

const PROMPT_CHARS = 200;

/**
 * Sessions for `moon sessions`, newest first, by the same rules as the SQLite engine's session-list.ts: a project
 * name matches exactly (any case), a value with a slash part of the cwd; a time bound keeps overlapping sessions.
 */
export async function listSessionRecords(db: PgClient, filter: SessionListFilter): Promise<StoredSession[]> {
  return (await selectSessionRows(db, filter)).map(toSession);
}

/** The same sessions with their message counts, tools and first prompts. */
export async function listSessionSummaries(db: PgClient, filter: SessionListFilter): Promise<SessionSummary[]> {
  const rows = await selectSessionRows(db, filter);
  const ids = rows.map((row) => row.id);
  if (ids.length === 0) return [];
  const tools = new Map<string, { name: string; count: number }[]>();
  const toolRows = await db.query<{ session_id: string; tool_name: string; count: number }>(
    `SELECT session_id, tool_name, count(*)::integer AS count FROM moon.entries
     WHERE tool_name IS NOT NULL AND session_id = ANY ($1::text[])
     GROUP BY session_id, tool_name ORDER BY session_id, count DESC, tool_name`,
    [ids],
  );
  for (const row of toolRows.rows) {
    const list = tools.get(row.session_id) ?? [];
    list.push({ name: row.tool_name, count: row.count });
    tools.set(row.session_id, list);
  }
  const messages = new Map(
    (
      await db.query<{ session_id: string; count: number }>(
        `SELECT session_id, count(*)::integer AS count FROM moon.entries
         WHERE role IN ('user', 'assistant') AND kind IS DISTINCT FROM 'reasoning' AND session_id = ANY ($1::text[]) GROUP BY session_id`,
        [ids],
      )
    ).rows.map((row) => [row.session_id, row.count]),
  );
  const prompts = new Map(
    (
      await db.query<{ session_id: string; text: string }>(
        `SELECT DISTINCT ON (session_id) session_id, substr(text, 1, ${PROMPT_CHARS}) AS text FROM moon.entries
         WHERE role = 'user' AND session_id = ANY ($1::text[]) ORDER BY session_id, seq, rowid`,
        [ids],
      )
    ).rows.map((row) => [row.session_id, row.text]),
  );
  return rows.map((row) => ({
    ...toSession(row),
    messages: messages.get(row.id) ?? 0,
    tools: tools.get(row.id) ?? [],
    firstPrompt: prompts.get(row.id) ?? null,
  }));
}

async function selectSessionRows(db: PgClient, filter: SessionListFilter): Promise<SessionRow[]> {
  const params = new Params();
  const where: string[] = [];
  if (filter.projects && filter.projects.length > 0) {
    where.push(
      `(${filter.projects
        .map((project) => (project.includes('/') ? `cwd LIKE ${params.add(`%${escapeLike(project)}%`)}` : `lower(project) = lower(${params.add(project)})`))
        .join(' OR ')})`,
    );
  }
  if (filter.ids) where.push(`id = ANY (${params.add([...filter.ids])}::text[])`);
  if (filter.sources && filter.sources.length > 0) where.push(`source = ANY (${params.add(filter.sources)}::text[])`);
  if (filter.sinceMs !== undefined) where.push(`coalesce(end_ms, start_ms) >= ${params.add(filter.sinceMs)}`);
  if (filter.untilMs !== undefined) where.push(`start_ms < ${params.add(filter.untilMs)}`);
  const limit = filter.limit === undefined ? '' : `LIMIT ${params.add(filter.limit)}`;
  const result = await db.query<SessionRow>(
    `SELECT * FROM moon.sessions ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY start_ms IS NULL, start_ms DESC, id ${limit}`,
    params.values,
  );
  return result.rows;
}

export async function findSessionsByPrefix(db: PgClient, prefix: string, limit: number): Promise<SessionMatch[]> {
  const result = await db.query<{ id: string; source: SessionMatch['source']; project: string | null; title: string | null; start_ms: number | null; parent_id: string | null }>(
    `SELECT id, source, project, title, start_ms, parent_id FROM moon.sessions WHERE id LIKE $2
     ORDER BY id = $1 DESC, id COLLATE "C" LIMIT $3`,
    [prefix, `${escapeLike(prefix)}%`, limit],
  );
  return result.rows.map((row) => ({
    id: row.id,
    source: row.source,
    project: row.project,
    title: row.title,
    startMs: row.start_ms,
    parentSessionId: row.parent_id,
  }));
}
