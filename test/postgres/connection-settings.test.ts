import { describe, expect, test } from 'vitest';
import { createPool } from '../../src/store/postgres/client.js';
import { usePostgres } from '../helpers/postgres.js';

/**
 * Every connection of the engine's pool carries the engine's settings (search path, pgvector's iterative scan),
 * set as its first query rather than as startup options, which poolers and PostgreSQL-compatible servers may
 * ignore — the embedded test engine among them.
 */
const postgres = usePostgres();

describe('PostgreSQL connection settings', () => {
  test('each pooled connection has them before its first query', async () => {
    const url = await postgres().createDatabase('connection_settings');
    const pool = await createPool(url);
    try {
      await pool.query('CREATE EXTENSION IF NOT EXISTS vector');
      const clients = await Promise.all([pool.connect(), pool.connect()]);
      try {
        for (const client of clients) {
          const shown = await client.query<{ search_path: string; iterative: string }>(
            "SELECT current_setting('search_path') AS search_path, current_setting('hnsw.iterative_scan') AS iterative",
          );
          expect(shown.rows[0]).toEqual({ search_path: 'moon, public', iterative: 'strict_order' });
        }
      } finally {
        for (const client of clients) client.release();
      }
    } finally {
      await pool.end();
      await postgres().dropDatabase(url);
    }
  });
});
