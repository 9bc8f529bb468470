import type { EmbeddingModel, PendingEmbedding } from '../types.js';
import type { PgClient } from './client.js';
import { ENTRY_COLUMNS, type EntryRow, toEntry } from './rows.js';
import { toVectorLiteral } from './search.js';

export async function getModel(db: PgClient): Promise<EmbeddingModel | null> {
  const row = (await db.query<{ value: string }>("SELECT value FROM moon.meta WHERE key = 'embedding_model'")).rows[0];
  return row ? (JSON.parse(row.value) as EmbeddingModel) : null;
}

/**
 * Switch the vector model (on a client inside a transaction): vectors of another model are dropped, the column
 * takes the new dimension, and an HNSW index (cosine) is built for it.
 */
export async function setModel(db: PgClient, model: EmbeddingModel): Promise<void> {
  const current = await getModel(db);
  if (current && current.id === model.id && current.dims === model.dims) return;
  await db.query('DELETE FROM moon.embeddings');
  await db.query('DROP INDEX IF EXISTS moon.embeddings_hnsw');
  await db.query(`ALTER TABLE moon.embeddings ALTER COLUMN vector TYPE public.vector(${Math.trunc(model.dims)})`);
  // HNSW indexes at most 2,000 dimensions; larger models are searched exactly.
  if (model.dims <= 2000) await db.query('CREATE INDEX embeddings_hnsw ON moon.embeddings USING hnsw (vector public.vector_cosine_ops)');
  await db.query(
    `INSERT INTO moon.meta (key, value) VALUES ('embedding_model', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    [JSON.stringify(model)],
  );
}

export async function listPending(db: PgClient, limit: number): Promise<PendingEmbedding[]> {
  const result = await db.query<EntryRow>(
    `SELECT ${ENTRY_COLUMNS} FROM moon.entries e WHERE NOT EXISTS (SELECT 1 FROM moon.embeddings v WHERE v.rowid = e.rowid)
     ORDER BY e.rowid LIMIT $1`,
    [limit],
  );
  return result.rows.map((row) => ({ rowid: row.rowid, entry: toEntry(row) }));
}

export async function putVectors(db: PgClient, items: { rowid: number; vector: Float32Array }[]): Promise<void> {
  if (items.length === 0) return;
  await db.query(
    `INSERT INTO moon.embeddings (rowid, namespace, vector)
     SELECT r.rowid, e.namespace, r.v::public.vector FROM unnest($1::bigint[], $2::text[]) AS r(rowid, v)
     JOIN moon.entries e ON e.rowid = r.rowid
     ON CONFLICT (rowid) DO UPDATE SET vector = excluded.vector`,
    [items.map((item) => item.rowid), items.map((item) => toVectorLiteral(item.vector))],
  );
}

export async function countVectors(db: PgClient): Promise<number> {
  return Number((await db.query<{ n: number }>('SELECT count(*) AS n FROM moon.embeddings')).rows[0]?.n ?? 0);
}
