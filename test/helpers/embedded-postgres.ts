import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * PostgreSQL without a server, for the tests only: PGlite (PostgreSQL compiled to WebAssembly, with pgvector and
 * pg_trgm) behind a loopback socket that speaks PostgreSQL's wire protocol, so the engine runs exactly as in
 * production — node-postgres, its pool, the engine's own SQL — against it.
 *
 * What it is not: PGlite is one backend. The socket multiplexes every connection onto it, one query at a time, and
 * a transaction keeps it until it ends; so there are no concurrent writers, no lock waits, no
 * pg_terminate_backend. Cases that need those run on a real server (test/helpers/postgres.ts).
 */

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const EXTENSIONS = { vector, pg_trgm };

/** One embedded database: its URL, and how to shut it down. */
export interface EmbeddedDatabase {
  readonly url: string;
  stop(): Promise<void>;
}

let template: Promise<Blob> | null = null;

/**
 * A freshly initialised cluster's data directory, made once per PGlite version and kept under
 * node_modules/.cache: initdb in WebAssembly takes seconds, loading its result a fraction of one. Several test
 * processes may make it at once; each writes its own file and renames it into place, so a reader never sees half
 * of one.
 */
function loadTemplate(): Promise<Blob> {
  template ??= (async () => {
    const version = (JSON.parse(readFileSync(join(REPO, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')) as { version: string }).version;
    const path = join(REPO, 'node_modules', '.cache', 'moon-test', `pglite-${version}-datadir.tar`);
    try {
      return new Blob([readFileSync(path)]);
    } catch {
      const db = await PGlite.create({ extensions: EXTENSIONS });
      try {
        const dump = await db.dumpDataDir('none');
        const bytes = Buffer.from(await dump.arrayBuffer());
        mkdirSync(dirname(path), { recursive: true });
        const partial = `${path}.${process.pid}.partial`;
        writeFileSync(partial, bytes);
        renameSync(partial, path);
        return new Blob([bytes]);
      } finally {
        await db.close();
      }
    }
  })();
  template.catch(() => {
    template = null;
  });
  return template;
}

/**
 * A new, empty embedded database on a free loopback port. `name` is only the URL's database name (PGlite has one
 * database; each call is its own instance).
 */
export async function startEmbeddedDatabase(name: string): Promise<EmbeddedDatabase> {
  const db = await PGlite.create({ loadDataDir: await loadTemplate(), extensions: EXTENSIONS });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 64 });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  let stopped: Promise<void> | null = null;
  return {
    url: `postgres://postgres@${server.getServerConn()}/${encodeURIComponent(name)}`,
    stop() {
      stopped ??= (async () => {
        await server.stop();
        await db.close();
      })();
      return stopped;
    },
  };
}
