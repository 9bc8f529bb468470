import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real PostgreSQL server for the tests: initdb into a temp dir, a free loopback port, torn down after. initdb
 * refuses to run as root, so as root the server runs as the `postgres` user. Missing binaries fail loudly: the
 * PostgreSQL cases are never silently skipped (scripts/ci/install-postgres.sh installs them).
 */
export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:PORT/DB` for a database created for the caller. */
  url: string;
  createDatabase(name: string): string;
  stop(): void;
}

const PG_BIN = process.env.MOON_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';

export async function startPostgres(): Promise<PostgresServer> {
  if (!existsSync(join(PG_BIN, 'initdb'))) {
    throw new Error(`PostgreSQL binaries not found in ${PG_BIN}: run scripts/ci/install-postgres.sh (as root)`);
  }
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'moon-pg-'));
  chmodSync(dir, 0o700);
  const owner = root ? lookupPostgresUser() : null;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  const asOwner = (command: string, args: string[]): string[] => (root ? ['runuser', '-u', 'postgres', '--', command, ...args] : [command, ...args]);
  const run = (command: string, args: string[]): void => {
    const [file, ...rest] = asOwner(command, args);
    execFileSync(file!, rest, { stdio: 'pipe' });
  };
  run(join(PG_BIN, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  const port = await findFreePort();
  const [file, ...rest] = asOwner(join(PG_BIN, 'postgres'), [
    '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off',
    '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=50',
  ]);
  const server = spawn(file!, rest, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  server.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  await waitReady(port, () => log);
  const base = `postgres://postgres@127.0.0.1:${port}`;
  return {
    url: `${base}/postgres`,
    createDatabase(name) {
      execFileSync(join(PG_BIN, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-qc', `CREATE DATABASE "${name}"`], { stdio: 'pipe' });
      return `${base}/${name}`;
    },
    stop() {
      server.kill('SIGINT');
      const deadline = Date.now() + 10_000;
      while (server.exitCode === null && server.signalCode === null && Date.now() < deadline) {
        execFileSync('sleep', ['0.1']);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function lookupPostgresUser(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitReady(port: number, readLog: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      execFileSync(join(PG_BIN, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q'], { stdio: 'pipe' });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`PostgreSQL did not start on port ${port}:\n${readLog()}`);
}
