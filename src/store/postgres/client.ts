import { MoonError, describeError } from '../../errors.js';

export { maskUrlPassword as redactUrl } from '../../text/mask-url.js';

/** The little of node-postgres the engine uses: a query, on a pooled client or a pool. */
export interface PgClient {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}

export interface PgPoolClient extends PgClient {
  release(destroy?: boolean | Error): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
}

export interface PgPool extends PgClient {
  connect(): Promise<PgPoolClient>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * node-postgres, imported only when a PostgreSQL URL is configured: it is an optional dependency, and the
 * embedded engine never loads it.
 */
export async function createPool(url: string): Promise<PgPool> {
  let pg: typeof import('pg');
  try {
    pg = (await import('pg')).default as unknown as typeof import('pg');
  } catch (error) {
    throw new MoonError('store', `the PostgreSQL engine needs the "pg" package, which is not installed (${describeError(error)})`, {
      hint: 'run `npm install pg` in the moon folder, or remove store.url / MOON_DATABASE_URL to use the embedded SQLite index',
    });
  }
  // 64-bit integers (counts, sums, bigint columns) as numbers: every value moon stores fits in 2^53.
  const types = new pg.TypeOverrides();
  types.setTypeParser(20, (value: string) => Number(value));
  types.setTypeParser(1700, (value: string) => Number(value));
  const pool = new pg.Pool({
    connectionString: url,
    max: 4,
    types,
    connectionTimeoutMillis: 15_000,
    // Each new connection's settings, before the pool hands it out (a failure fails the connect). Not as startup
    // `options`: poolers and PostgreSQL-compatible servers may ignore those.
    onConnect: async (client) => {
      await client.query(SESSION_SETTINGS);
    },
  });
  // An idle client whose connection drops emits 'error' on the pool; without a listener that would crash the
  // process. The next query reports the failure instead.
  pool.on('error', () => undefined);
  return pool as unknown as PgPool;
}

/**
 * Every connection's settings. Tables are qualified with moon.; public holds the pg_trgm and pgvector operators.
 * With filters, pgvector's iterative scan keeps walking the HNSW graph in distance order until enough rows pass
 * (a custom setting: accepted before the extension is loaded, ignored by a pgvector without it).
 */
const SESSION_SETTINGS = "SELECT set_config('search_path', 'moon, public', false), set_config('hnsw.iterative_scan', 'strict_order', false)";

/** A failure talking to the server as a MoonError naming the database (never its password). */
export function toPgError(location: string, error: unknown): unknown {
  if (error instanceof MoonError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = describeError(error);
  if (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|EPIPE|57P0[1-3]|08\w{3})$/.test(code)) {
    return new MoonError('store', `lost the connection to ${location} (${message})`, {
      hint: 'check that the server is up and reachable; the file being indexed was rolled back and the next run completes it',
      cause: error,
    });
  }
  if (/Connection terminated|connection timeout|terminating connection/i.test(message)) {
    return new MoonError('store', `lost the connection to ${location} (${message})`, {
      hint: 'check that the server is up and reachable; the file being indexed was rolled back and the next run completes it',
      cause: error,
    });
  }
  if (code === '55P03' || /lock timeout/i.test(message)) {
    return new MoonError('store', `database ${location} is locked: another moon process has been writing to it too long`, {
      hint: 'wait for it to finish, or raise index.lock_timeout_ms',
      cause: error,
    });
  }
  return error;
}
