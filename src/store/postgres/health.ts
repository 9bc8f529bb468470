import type { PostgresHealth } from '../types.js';
import type { PgPool } from './client.js';
import { hasAllPostings } from './postings.js';
import { POSTGRES_MIGRATIONS, appliedCount } from './schema.js';

/**
 * What `moon doctor` reports of a PostgreSQL database beyond "it answers": the extensions moon needs (`vector`,
 * `pg_trgm`) and the optional ones (`rum`), installed in the database or only available on the server; how far
 * its schema is migrated against this build; and the health of moon's indexes and tables — an index left invalid
 * (a failed concurrent build), a table with rows the planner has never analysed. Read-only: catalog queries only.
 */
const EXTENSIONS = ['vector', 'pg_trgm', 'rum'] as const;

export async function inspectPostgres(pool: PgPool): Promise<PostgresHealth> {
  const extensions = await pool.query<{ name: string; installed: string | null; available: string | null }>(
    `SELECT n.name, e.extversion AS installed, a.default_version AS available
     FROM unnest($1::text[]) AS n(name)
     LEFT JOIN pg_extension e ON e.extname = n.name
     LEFT JOIN pg_available_extensions a ON a.name = n.name
     ORDER BY array_position($1::text[], n.name)`,
    [[...EXTENSIONS]],
  );
  // The migrations table is made in the transaction of the first migration: none applied means no schema yet.
  const applied = await appliedCount(pool);
  const indexes = await pool.query<{ name: string; table: string; valid: boolean; ready: boolean; bytes: string }>(
    `SELECT c.relname AS name, t.relname AS table, i.indisvalid AS valid, i.indisready AS ready, pg_relation_size(c.oid)::text AS bytes
     FROM pg_index i
     JOIN pg_class c ON c.oid = i.indexrelid
     JOIN pg_class t ON t.oid = i.indrelid
     JOIN pg_namespace s ON s.oid = t.relnamespace
     WHERE s.nspname = 'moon'
     ORDER BY t.relname, c.relname`,
  );
  const tables = await pool.query<{ name: string; rows: string; analyzed: boolean; bytes: string }>(
    `SELECT t.relname AS name, greatest(coalesce(st.n_live_tup, 0), t.reltuples::bigint, 0)::text AS rows,
            (st.last_analyze IS NOT NULL OR st.last_autoanalyze IS NOT NULL) AS analyzed,
            pg_total_relation_size(t.oid)::text AS bytes
     FROM pg_class t
     JOIN pg_namespace s ON s.oid = t.relnamespace
     LEFT JOIN pg_stat_user_tables st ON st.relid = t.oid
     WHERE s.nspname = 'moon' AND t.relkind = 'r'
     ORDER BY t.relname`,
  );
  const postings = await readPostingsState(pool, new Set(tables.rows.map((row) => row.name)));
  return {
    postings,
    extensions: extensions.rows.map((row) => ({ name: row.name, installed: row.installed, available: row.available, required: row.name !== 'rum' })),
    migrations: applied === 0 ? null : { applied, known: POSTGRES_MIGRATIONS },
    indexes: indexes.rows.map((row) => ({ name: row.name, table: row.table, valid: row.valid && row.ready, bytes: Number(row.bytes) })),
    tables: tables.rows.map((row) => ({ name: row.name, rows: Number(row.rows), analyzed: row.analyzed, bytes: Number(row.bytes) })),
  };
}

/** Whether the word lists are ranked from postings yet; counted only while a migrated database fills them. */
async function readPostingsState(pool: PgPool, tables: ReadonlySet<string>): Promise<PostgresHealth['postings']> {
  if (!tables.has('entry_terms') || !tables.has('meta')) return null;
  const pending = !(await hasAllPostings(pool));
  if (!pending) return { pending, entries: 0, filled: 0 };
  const counts = await pool.query<{ entries: string; filled: string }>(
    'SELECT (SELECT count(*) FROM moon.entries)::text AS entries, (SELECT count(*) FROM moon.entry_terms)::text AS filled',
  );
  return { pending, entries: Number(counts.rows[0]?.entries ?? 0), filled: Number(counts.rows[0]?.filled ?? 0) };
}
