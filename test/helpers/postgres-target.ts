import pg from 'pg';
import { findPostgresBin, startPostgres } from '../../scripts/lib/postgres-server.mjs';

/**
 * Which PostgreSQL the tests run on, and the databases they get from it.
 *
 * - A real server when one is found: MOON_TEST_DATABASE_URL (an existing server the tests may create databases
 *   in), else a throwaway cluster (initdb in a temp dir, a free loopback port, torn down after) from
 *   MOON_TEST_PG_BIN alone when set, else `pg_config --bindir` or /usr/lib/postgresql/<version>/bin — each only
 *   with pgvector installed (scripts/lib/postgres-server.mjs, findPostgresBin).
 * - Otherwise the embedded one (PGlite behind a loopback socket, test/helpers/embedded-postgres.ts): every
 *   contract and parity case runs on it, through the engine's own client and SQL; the cases that need several
 *   real connections (describeOnServer) are skipped with the reason.
 *
 * MOON_TEST_POSTGRES: `server` — a missing server fails the run instead (CI sets it); `embedded` — PGlite even
 * when a server exists; unset or `auto` — as above.
 */

export type PostgresKind = 'server' | 'embedded';

export interface PostgresChoice {
  readonly kind: PostgresKind;
  /** For the embedded engine: why not a server (names scripts/ci/install-postgres.sh when none was found). */
  readonly reason: string | null;
  /** The server's binaries, for a throwaway cluster. */
  readonly bin?: string;
  /** An existing server (MOON_TEST_DATABASE_URL). */
  readonly url?: string;
}

const MODES = ['auto', 'server', 'embedded'] as const;

/** Decide from the environment (synchronous: test files decide at collection time which cases to declare). */
export function choosePostgres(env: NodeJS.ProcessEnv = process.env): PostgresChoice {
  const mode = env.MOON_TEST_POSTGRES?.trim() || 'auto';
  if (!(MODES as readonly string[]).includes(mode)) {
    throw new Error(`MOON_TEST_POSTGRES must be one of ${MODES.join(', ')} (got "${mode}")`);
  }
  if (mode === 'embedded') return { kind: 'embedded', reason: 'MOON_TEST_POSTGRES=embedded' };
  const url = env.MOON_TEST_DATABASE_URL?.trim();
  if (url) return { kind: 'server', reason: null, url };
  const found = findPostgresBin(env);
  if (found.bin !== null) return { kind: 'server', reason: null, bin: found.bin };
  if (mode === 'server') throw new Error(`MOON_TEST_POSTGRES=server, but ${found.reason}`);
  return { kind: 'embedded', reason: found.reason };
}

let chosen: PostgresChoice | null = null;

/** This process's choice, made once. */
export function postgresChoice(): PostgresChoice {
  chosen ??= choosePostgres();
  return chosen;
}

/** Databases for tests, on whichever PostgreSQL was chosen. */
export interface TestPostgres {
  readonly kind: PostgresKind;
  /** A new, empty database; its URL. Names are unique within one TestPostgres. */
  createDatabase(name: string): Promise<string>;
  /** Done with a database: an embedded one is shut down, one on an existing server dropped. */
  dropDatabase(url: string): Promise<void>;
  /** Every database and the throwaway server gone. Idempotent. */
  stop(): Promise<void>;
}

/** Start what `choice` names (nothing for an existing server but a client when a database is made). */
export async function startTestPostgres(choice: PostgresChoice = postgresChoice()): Promise<TestPostgres> {
  if (choice.kind === 'embedded') return startEmbedded();
  if (choice.url) return useExistingServer(choice.url);
  const server = await startPostgres({ bin: choice.bin });
  return {
    kind: 'server',
    createDatabase: async (name) => server.createDatabase(name),
    // The whole cluster goes at stop().
    dropDatabase: async () => undefined,
    stop: async () => server.stop(),
  };
}

async function startEmbedded(): Promise<TestPostgres> {
  // Imported here, so a run on a server never loads PGlite.
  const { startEmbeddedDatabase } = await import('./embedded-postgres.js');
  const open = new Map<string, { stop(): Promise<void> }>();
  return {
    kind: 'embedded',
    async createDatabase(name) {
      const database = await startEmbeddedDatabase(name);
      open.set(database.url, database);
      return database.url;
    },
    async dropDatabase(url) {
      const database = open.get(url);
      open.delete(url);
      await database?.stop();
    },
    async stop() {
      const all = [...open.values()];
      open.clear();
      await Promise.all(all.map((database) => database.stop()));
    },
  };
}

/** An existing server: each database gets a name of its own (other runs may share the server), dropped after. */
function useExistingServer(base: string): TestPostgres {
  const created = new Set<string>();
  const suffix = `${process.pid}_${Date.now().toString(36)}`;
  const drop = async (url: string) => {
    const name = decodeURIComponent(new URL(url).pathname.slice(1));
    await withPgClient(base, (client) => client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`));
  };
  return {
    kind: 'server',
    async createDatabase(name) {
      const unique = `${name}_${suffix}`.slice(0, 63);
      await withPgClient(base, (client) => client.query(`CREATE DATABASE ${quoteIdentifier(unique)}`));
      const url = new URL(base);
      url.pathname = `/${encodeURIComponent(unique)}`;
      created.add(url.toString());
      return url.toString();
    },
    async dropDatabase(url) {
      if (!created.delete(url)) return;
      await drop(url);
    },
    async stop() {
      const all = [...created];
      created.clear();
      for (const url of all) await drop(url);
    },
  };
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

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
