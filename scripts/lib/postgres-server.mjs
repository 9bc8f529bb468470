// A throwaway PostgreSQL server for tests and benches: initdb into a temp dir, a free loopback port, torn down by
// stop(). initdb refuses to run as root, so as root the server runs as the `postgres` user (via runuser). Missing
// binaries fail loudly: callers that need PostgreSQL never skip silently (scripts/ci/install-postgres.sh installs
// them). Plain ESM JavaScript so `.mjs` bench scripts can import it; test/helpers/postgres.ts re-exports it.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const INSTALL_HINT = 'scripts/ci/install-postgres.sh installs PostgreSQL 15 + pgvector (Debian, as root)';

/**
 * Where a PostgreSQL server with pgvector can be started from. MOON_TEST_PG_BIN, when set, is the only place
 * looked at; otherwise `pg_config --bindir`, then /usr/lib/postgresql/<version>/bin, newest first. A folder counts
 * only if initdb and postgres are there and the vector extension is installed for that server: a server
 * without pgvector is no server for moon. Synchronous (file checks and pg_config), so a test file can decide at
 * collection time which cases to run.
 *
 * @returns {{ bin: string } | { bin: null, reason: string }}
 */
export function findPostgresBin(env = process.env) {
  const explicit = env.MOON_TEST_PG_BIN?.trim();
  const candidates = explicit ? [explicit] : [...new Set([pgConfig('pg_config', '--bindir', env), ...debianBinDirs()].filter(Boolean))];
  if (candidates.length === 0) return { bin: null, reason: `no PostgreSQL server found (no pg_config on PATH, no /usr/lib/postgresql/*/bin): ${INSTALL_HINT}` };
  const refusals = [];
  for (const bin of candidates) {
    if (!existsSync(join(bin, 'initdb')) || !existsSync(join(bin, 'postgres'))) {
      refusals.push(`${bin} has no initdb`);
      continue;
    }
    const shareDirs = extensionShareDirs(bin, env);
    if (!shareDirs.some((dir) => existsSync(join(dir, 'extension', 'vector.control')))) {
      refusals.push(`the server in ${bin} has no pgvector (no vector.control in ${join(shareDirs[0], 'extension')})`);
      continue;
    }
    return { bin };
  }
  return { bin: null, reason: `no PostgreSQL server with pgvector found${explicit ? ' in MOON_TEST_PG_BIN' : ''}: ${refusals.join('; ')}. ${INSTALL_HINT}` };
}

/** `pg_config <flag>` of the given executable (looked up on env's PATH), or null when there is none or it fails. */
function pgConfig(executable, flag, env) {
  try {
    return execFileSync(executable, [flag], { env, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8', timeout: 10_000 }).trim() || null;
  } catch {
    return null;
  }
}

/** Debian's and Ubuntu's server folders, newest version first. */
function debianBinDirs() {
  try {
    return readdirSync('/usr/lib/postgresql')
      .filter((version) => /^\d+$/.test(version))
      .sort((a, b) => Number(b) - Number(a))
      .map((version) => join('/usr/lib/postgresql', version, 'bin'));
  } catch {
    return [];
  }
}

/** Where the server in `bin` keeps its extensions' control files: its own pg_config's answer, else the usual layouts. */
function extensionShareDirs(bin, env) {
  const own = existsSync(join(bin, 'pg_config')) ? pgConfig(join(bin, 'pg_config'), '--sharedir', env) : null;
  const debian = /^\/usr\/lib\/postgresql\/(\d+)\/bin\/?$/.exec(bin);
  return [...new Set([own, debian ? `/usr/share/postgresql/${debian[1]}` : null, join(bin, '..', 'share', 'postgresql'), join(bin, '..', 'share')].filter(Boolean))];
}

/**
 * Settings every throwaway server gets. Durability is off (fsync, synchronous_commit, full_page_writes): the data
 * dir is deleted at the end, and a crash loses nothing anyone wants.
 */
export const BASE_SETTINGS = Object.freeze({
  listen_addresses: '127.0.0.1',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  max_connections: '50',
});

/**
 * Extra settings for benchmark servers: memory and WAL sized so checkpoints and a 128 MB buffer pool do not
 * dominate what is measured. The planner settings (work_mem, jit, random_page_cost, ...) stay at PostgreSQL's
 * defaults, so recall runs the plans a stock server would choose.
 */
export const BENCH_SETTINGS = Object.freeze({
  shared_buffers: '1GB',
  effective_cache_size: '4GB',
  maintenance_work_mem: '512MB',
  max_wal_size: '8GB',
  min_wal_size: '1GB',
  checkpoint_timeout: '30min',
  wal_level: 'minimal',
  max_wal_senders: '0',
  autovacuum: 'on',
});

/** How long initdb, and then startup, may each take before it is called a failure: MOON_TEST_PG_START_TIMEOUT_MS, else 90 s. */
const DEFAULT_START_TIMEOUT_MS = Number(process.env.MOON_TEST_PG_START_TIMEOUT_MS) > 0 ? Number(process.env.MOON_TEST_PG_START_TIMEOUT_MS) : 90_000;
/** How long stop() waits for a fast shutdown before an immediate one, and then before SIGKILL. */
const STOP_TIMEOUT_S = 60;

/**
 * Start a server. `options.profile` 'bench' adds BENCH_SETTINGS; `options.settings` adds or overrides any
 * setting (name → value). Resolves once the server accepts connections.
 *
 * @param {import('./postgres-server.d.mts').StartPostgresOptions} [options]
 * @returns {Promise<import('./postgres-server.d.mts').PostgresServer>}
 */
export async function startPostgres(options = {}) {
  let bin = options.bin;
  if (!bin) {
    const found = findPostgresBin();
    if (!found.bin) throw new Error(found.reason);
    bin = found.bin;
  }
  if (!existsSync(join(bin, 'initdb')) || !existsSync(join(bin, 'postgres'))) {
    throw new Error(`PostgreSQL binaries not found in ${bin}: ${INSTALL_HINT}, or set MOON_TEST_PG_BIN`);
  }
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const settings = { ...BASE_SETTINGS, ...(options.profile === 'bench' ? BENCH_SETTINGS : {}), ...(options.settings ?? {}) };
  const root = process.getuid?.() === 0;
  const owner = root ? lookupPostgresUser() : null;
  const asOwner = (command, args) => (root ? ['runuser', '-u', 'postgres', '--', command, ...args] : [command, ...args]);
  const runSync = (command, args, timeout) => {
    const [file, ...rest] = asOwner(command, args);
    return execFileSync(file, rest, { stdio: 'pipe', timeout, encoding: 'utf8' });
  };

  const dir = mkdtempSync(join(tmpdir(), 'moon-pg-'));
  const data = join(dir, 'data');
  let server = null;
  let port = 0;
  let log = '';
  let stopped = false;

  /** The postmaster's pid from its pid file (the spawned process is runuser when running as root). */
  const postmasterPid = () => {
    try {
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      return Number.isInteger(pid) && pid > 0 ? pid : null;
    } catch {
      return null;
    }
  };
  const alive = (pid) => {
    try {
      process.kill(pid, 0);
      // A zombie still answers signal 0: look at its state where /proc exists.
      try {
        return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
      } catch {
        return true;
      }
    } catch (error) {
      return error.code === 'EPERM';
    }
  };
  const sleepSync = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

  /**
   * Synchronous, so it also works from an 'exit' handler and from an afterAll that does not await: a fast
   * shutdown through pg_ctl (which waits until the server has removed its pid file), an immediate one if that
   * times out, SIGKILL as the last resort; then wait for the postmaster process to be gone, then remove the dir.
   */
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', stop);
    try {
      const pid = postmasterPid();
      if (pid !== null && alive(pid)) {
        for (const mode of ['fast', 'immediate']) {
          try {
            runSync(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', mode, '-w', '-t', String(STOP_TIMEOUT_S)], (STOP_TIMEOUT_S + 10) * 1000);
            break;
          } catch {
            // Timed out, or the server went away by itself meanwhile: the checks below decide.
          }
        }
        const deadline = Date.now() + 10_000;
        while (alive(pid) && Date.now() < deadline) sleepSync(50);
        if (alive(pid)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Gone after all.
          }
          const killDeadline = Date.now() + 10_000;
          while (alive(pid) && Date.now() < killDeadline) sleepSync(50);
        }
      }
      // The spawned wrapper (runuser, or postgres itself) exits with the postmaster; make sure of it.
      if (server && server.exitCode === null && server.signalCode === null && server.pid && alive(server.pid)) {
        try {
          server.kill('SIGKILL');
        } catch {
          // Already gone.
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  try {
    chmodSync(dir, 0o700);
    if (owner) chownSync(dir, owner.uid, owner.gid);
    try {
      runSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'], startTimeoutMs);
    } catch (error) {
      throw new Error(`initdb failed in ${data}: ${error.stderr?.toString().trim() || error.message}`);
    }
    // A free port can be taken between the probe and the bind: a few tries with a fresh port each.
    for (let attempt = 1; ; attempt++) {
      port = await findFreePort();
      const args = ['-D', data, '-p', String(port), '-k', dir, ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
      const [file, ...rest] = asOwner(join(bin, 'postgres'), args);
      log = '';
      server = spawn(file, rest, { stdio: ['ignore', 'ignore', 'pipe'] });
      server.stderr?.on('data', (chunk) => {
        log = (log + chunk.toString()).slice(-8000);
      });
      server.on('error', (error) => {
        log += `\nspawn error: ${error.message}`;
      });
      process.on('exit', stop);
      const outcome = await waitReady(bin, port, server, startTimeoutMs);
      if (outcome === 'ready') break;
      process.removeListener('exit', stop);
      const portTaken = /could not bind|Address already in use/i.test(log);
      if (outcome === 'exited' && portTaken && attempt < 3) continue;
      throw new Error(
        outcome === 'exited'
          ? `PostgreSQL exited during startup on port ${port}:\n${log.trim()}`
          : `PostgreSQL did not accept connections on port ${port} within ${Math.round(startTimeoutMs / 1000)} s (set MOON_TEST_PG_START_TIMEOUT_MS to wait longer):\n${log.trim()}`,
      );
    }
  } catch (error) {
    stop();
    throw error;
  }

  const base = `postgres://postgres@127.0.0.1:${port}`;
  return {
    url: `${base}/postgres`,
    bin,
    port,
    dir,
    settings,
    createDatabase(name) {
      if (stopped) throw new Error('createDatabase: the server was stopped');
      const quoted = `"${String(name).replace(/"/g, '""')}"`;
      try {
        execFileSync(join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-X', '-v', 'ON_ERROR_STOP=1', '-qc', `CREATE DATABASE ${quoted}`], {
          stdio: 'pipe',
          timeout: startTimeoutMs,
        });
      } catch (error) {
        throw new Error(`CREATE DATABASE ${quoted} failed: ${error.stderr?.toString().trim() || error.message}`);
      }
      return `${base}/${encodeURIComponent(name)}`;
    },
    version() {
      try {
        const shown = execFileSync(join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-X', '-Atc', 'SHOW server_version'], {
          stdio: 'pipe',
          encoding: 'utf8',
          timeout: 15_000,
        });
        return `PostgreSQL ${shown.trim()}`;
      } catch {
        return 'PostgreSQL (version unknown)';
      }
    },
    stop,
    log: () => log,
  };
}

function lookupPostgresUser() {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  } catch {
    throw new Error('running as root, but there is no `postgres` user to run the server as (initdb refuses root): run scripts/ci/install-postgres.sh');
  }
}

function findFreePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** 'ready' once pg_isready says so, 'exited' if the server process ends first, 'timeout' after timeoutMs. */
async function waitReady(bin, port, server, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let delay = 50;
  while (Date.now() < deadline) {
    if (server.exitCode !== null || server.signalCode !== null) return 'exited';
    try {
      execFileSync(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q', '-t', '5'], { stdio: 'pipe', timeout: 15_000 });
      return 'ready';
    } catch {
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 500);
    }
  }
  return server.exitCode !== null || server.signalCode !== null ? 'exited' : 'timeout';
}
