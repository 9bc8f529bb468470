import pg from 'pg';

/**
 * A real PostgreSQL server for the tests: initdb into a temp dir, a free loopback port, torn down after. initdb
 * refuses to run as root, so as root the server runs as the `postgres` user. Missing binaries fail loudly: the
 * PostgreSQL cases are never silently skipped (scripts/ci/install-postgres.sh installs them).
 *
 * The implementation lives in scripts/lib/postgres-server.mjs, shared with the benches (bench/*.mjs).
 */
export { type PostgresServer, type StartPostgresOptions, startPostgres } from '../../scripts/lib/postgres-server.mjs';

/** One client on `url` for the length of `work`, then closed. */
export async function withPgClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
