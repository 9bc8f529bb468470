import { choosePostgres } from './helpers/postgres-target.js';

/**
 * Once per run, before any test file: which PostgreSQL the PostgreSQL cases run on, said in one line on stderr.
 * With MOON_TEST_POSTGRES=server and no server found, the run fails here, before anything else runs.
 */
export default function setup(): void {
  const choice = choosePostgres();
  const line =
    choice.kind === 'server'
      ? `PostgreSQL cases: on a server (${choice.url ? 'MOON_TEST_DATABASE_URL' : choice.bin}); none skipped`
      : `PostgreSQL cases: on the embedded engine (PGlite); the cases that need a server are skipped — ${choice.reason}`;
  process.stderr.write(`${line}\n`);
}
