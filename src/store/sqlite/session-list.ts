import type Database from 'better-sqlite3';
import type { SessionListFilter, SessionSummary, StoredSession } from '../store.js';
import { type SessionRow, toSession } from './rows.js';

/**
 * Sessions for `moon sessions`, newest first. The project filter reads like recall's `--project`: a name matches
 * exactly (case-insensitive), a value with a slash matches part of the cwd. A time bound keeps sessions that
 * overlap it, so a session that started before --since but ran into it is listed; `ids` keeps only those sessions.
 */
export function listSessionRecords(db: Database.Database, filter: SessionListFilter): StoredSession[] {
  return selectSessionRows(db, filter).map(toSession);
}

/** The same sessions with their message counts, tools and first prompts (three more queries over their entries). */
export function listSessionSummaries(db: Database.Database, filter: SessionListFilter): SessionSummary[] {
  const rows = selectSessionRows(db, filter);
  const ids = JSON.stringify(rows.map((row) => row.id));
  const tools = listTools(db, ids);
  const messages = new Map(
    db
      .prepare<[string], { session_id: string; count: number }>(
        `SELECT session_id, count(*) AS count FROM entries
         WHERE role IN ('user', 'assistant') AND kind IS NOT 'reasoning' AND session_id IN (SELECT value FROM json_each(?)) GROUP BY session_id`,
      )
      .all(ids)
      .map((row) => [row.session_id, row.count]),
  );
  const prompts = new Map(
    db
      .prepare<[string], { session_id: string; text: string }>(
        `SELECT e.session_id, substr(e.text, 1, ${PROMPT_CHARS}) AS text FROM entries e
         WHERE e.role = 'user' AND e.session_id IN (SELECT value FROM json_each(?))
           AND e.seq = (SELECT min(f.seq) FROM entries f WHERE f.session_id = e.session_id AND f.role = 'user')`,
      )
      .all(ids)
      .map((row) => [row.session_id, row.text]),
  );
  return rows.map((row) => ({
    ...toSession(row),
    messages: messages.get(row.id) ?? 0,
    tools: tools.get(row.id) ?? [],
    firstPrompt: prompts.get(row.id) ?? null,
  }));
}

function selectSessionRows(db: Database.Database, filter: SessionListFilter): SessionRow[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.projects && filter.projects.length > 0) {
    where.push(`(${filter.projects.map((project) => (project.includes('/') ? "cwd LIKE ? ESCAPE '\\'" : 'project = ? COLLATE NOCASE')).join(' OR ')})`);
    for (const project of filter.projects) params.push(project.includes('/') ? `%${escapeLike(project)}%` : project);
  }
  if (filter.ids) {
    where.push('id IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(filter.ids));
  }
  if (filter.sources && filter.sources.length > 0) {
    where.push(`source IN (${filter.sources.map(() => '?').join(', ')})`);
    params.push(...filter.sources);
  }
  if (filter.sinceMs !== undefined) {
    where.push('coalesce(end_ms, start_ms) >= ?');
    params.push(filter.sinceMs);
  }
  if (filter.untilMs !== undefined) {
    where.push('start_ms < ?');
    params.push(filter.untilMs);
  }
  const sql = `SELECT * FROM sessions ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY start_ms IS NULL, start_ms DESC, id ${filter.limit === undefined ? '' : 'LIMIT ?'}`;
  return db.prepare<unknown[], SessionRow>(sql).all(...params, ...(filter.limit === undefined ? [] : [filter.limit]));
}

const PROMPT_CHARS = 200;

/** Tool names and call counts of the sessions in `ids` (a JSON array), most used first. */
function listTools(db: Database.Database, ids: string): Map<string, { name: string; count: number }[]> {
  const bySession = new Map<string, { name: string; count: number }[]>();
  const rows = db
    .prepare<[string], { session_id: string; tool_name: string; count: number }>(
      `SELECT session_id, tool_name, count(*) AS count FROM entries
       WHERE tool_name IS NOT NULL AND session_id IN (SELECT value FROM json_each(?))
       GROUP BY session_id, tool_name ORDER BY session_id, count DESC, tool_name`,
    )
    .all(ids);
  for (const row of rows) {
    const list = bySession.get(row.session_id) ?? [];
    list.push({ name: row.tool_name, count: row.count });
    bySession.set(row.session_id, list);
  }
  return bySession;
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (char) => `\\${char}`);
}
