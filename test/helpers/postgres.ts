import { afterAll, beforeAll, describe } from 'vitest';
import { type TestPostgres, postgresChoice, startTestPostgres } from './postgres-target.js';

/** The vitest side of test/helpers/postgres-target.ts: a file's PostgreSQL, and cases only a server can run. */

export { type PostgresServer, type StartPostgresOptions, startPostgres } from '../../scripts/lib/postgres-server.mjs';
export { type PostgresChoice, type PostgresKind, type TestPostgres, choosePostgres, postgresChoice, startTestPostgres, withPgClient } from './postgres-target.js';

/**
 * This file's PostgreSQL, started before its first test and stopped after its last: a server when one was found,
 * else the embedded engine.
 */
export function usePostgres(): () => TestPostgres {
  let started: TestPostgres | null = null;
  beforeAll(async () => {
    started = await startTestPostgres();
  });
  afterAll(async () => {
    const current = started;
    started = null;
    await current?.stop();
  });
  return () => {
    if (!started) throw new Error('no PostgreSQL started for this file');
    return started;
  };
}

/** Why cases that need `what` of a server are skipped in this run, or null when they run. */
export function serverSkipReason(what: string): string | null {
  const choice = postgresChoice();
  return choice.kind === 'server' ? null : `needs a PostgreSQL server for ${what}; ${choice.reason}`;
}

/**
 * Cases that need a real server — several connections working at once, lock waits, terminated backends,
 * concurrent schema creation (`needs` says which): run on one when it exists, else declared skipped with the
 * reason, naming scripts/ci/install-postgres.sh, in the suite's name.
 */
export function describeOnServer(title: string, needs: string, body: (postgres: () => TestPostgres) => void): void {
  const reason = serverSkipReason(needs);
  if (reason === null) {
    describe(title, () => body(usePostgres()));
    return;
  }
  describe.skip(`${title} [skipped: ${reason}]`, () =>
    body(() => {
      throw new Error('skipped');
    }),
  );
}
