import { DOC_COLUMNS, type DocRow, docFromRow, docQueryWords, docToValues } from '../doc-rows.js';
import type { DocFile, DocHit, DocQuery, DocSection } from '../types.js';
import type { PgClient } from './client.js';

/** The documents plane on PostgreSQL: moon.docs with a stored tsvector (schema.ts migration 8). */
export async function listDocFiles(db: PgClient, namespaceId: string): Promise<DocFile[]> {
  const result = await db.query<{ path: string; content_hash: string; sections: string }>(
    'SELECT path, content_hash, count(*) AS sections FROM moon.docs WHERE namespace_id = $1 GROUP BY path, content_hash ORDER BY path',
    [namespaceId],
  );
  return result.rows.map((row) => ({ path: row.path, content_hash: row.content_hash, sections: Number(row.sections) }));
}

export async function replaceDocFiles(
  client: PgClient,
  namespaceId: string,
  files: readonly { path: string; sections: readonly DocSection[] }[],
): Promise<void> {
  const placeholders = DOC_COLUMNS.split(', ')
    .map((_, index) => `$${index + 1}`)
    .join(', ');
  for (const file of files) {
    await client.query('DELETE FROM moon.docs WHERE namespace_id = $1 AND path = $2', [namespaceId, file.path]);
    for (const section of file.sections) {
      await client.query(`INSERT INTO moon.docs (${DOC_COLUMNS}) VALUES (${placeholders})`, docToValues(namespaceId, section));
    }
  }
}

export async function searchDocs(db: PgClient, query: DocQuery): Promise<DocHit[]> {
  const words = docQueryWords(query.text);
  if (words.length === 0 || query.limit <= 0) return [];
  const scoped = query.namespace_id !== null;
  const params: unknown[] = [words.join(' | '), query.nowMs, query.limit];
  if (scoped) params.push(query.namespace_id);
  const result = await db.query<DocRow & { rank: number }>(
    `SELECT ${DOC_COLUMNS}, ts_rank(body, q) AS rank
     FROM moon.docs, to_tsquery('english', $1) q
     WHERE body @@ q ${scoped ? 'AND namespace_id = $4' : ''} AND (expires_at_ms IS NULL OR expires_at_ms > $2)
     ORDER BY rank DESC, path, section LIMIT $3`,
    params,
  );
  return result.rows.map((row) => ({ section: docFromRow(row), score: Number(row.rank) }));
}

export async function readDocs(db: PgClient, namespaceId: string | null): Promise<DocSection[]> {
  const result = await db.query<DocRow>(
    `SELECT ${DOC_COLUMNS} FROM moon.docs ${namespaceId === null ? '' : 'WHERE namespace_id = $1'} ORDER BY namespace_id, path, section`,
    namespaceId === null ? [] : [namespaceId],
  );
  return result.rows.map(docFromRow);
}
