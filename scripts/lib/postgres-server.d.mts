/** Types of scripts/lib/postgres-server.mjs: a throwaway PostgreSQL server for tests and benches. */

export interface StartPostgresOptions {
  /** Folder holding initdb, postgres, pg_ctl, pg_isready and psql. Default: findPostgresBin()'s. */
  bin?: string;
  /** 'test' (default): BASE_SETTINGS only. 'bench': BASE_SETTINGS plus BENCH_SETTINGS (memory and WAL sizing). */
  profile?: 'test' | 'bench';
  /** Server settings (name → value) added to, or overriding, the profile's. */
  settings?: Record<string, string>;
  /** How long initdb and startup may take. Default: MOON_TEST_PG_START_TIMEOUT_MS, else 90 000 ms (within vitest's 120 s hook timeout). */
  startTimeoutMs?: number;
}

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`, the server's default database. */
  url: string;
  /** Creates a database and returns `postgres://postgres@127.0.0.1:PORT/<name>`. */
  createDatabase(name: string): string;
  /**
   * Synchronous and idempotent: shuts the server down (fast, then immediate, then SIGKILL), waits until its
   * process is gone, then removes the temp dir. Also runs on process exit if not called.
   */
  stop(): void;
  /** The folder of the server's binaries (psql among them). */
  bin: string;
  /** The loopback port the server listens on. */
  port?: number;
  /** The temp dir holding the data dir and the socket. */
  dir?: string;
  /** The settings the server was started with. */
  settings?: Readonly<Record<string, string>>;
  /** `PostgreSQL 15.x …` as the server reports it, best effort. */
  version(): string;
  /** The last few KB the server wrote to stderr. */
  log?(): string;
}

/**
 * Where a server with pgvector can be started from: MOON_TEST_PG_BIN alone when set, else `pg_config --bindir`
 * and /usr/lib/postgresql/<version>/bin. `reason` says why none counts.
 */
export declare function findPostgresBin(env?: NodeJS.ProcessEnv): { bin: string } | { bin: null; reason: string };
export declare const BASE_SETTINGS: Readonly<Record<string, string>>;
export declare const BENCH_SETTINGS: Readonly<Record<string, string>>;

export declare function startPostgres(options?: StartPostgresOptions): Promise<PostgresServer>;
