import pg from 'pg';
import { expect, test } from 'vitest';
import { migratePostgres } from '../../src/store/postgres/schema.js';
import { describeOnServer } from '../helpers/postgres.js';

/**
 * Several processes opening one fresh database at once (two machines' first `moon index`, a hook beside a run):
 * every one of them finds the schema ready, and each migration is applied exactly once. Without one lock around
 * the whole bootstrap, two `CREATE … IF NOT EXISTS` race on PostgreSQL's catalogue and one of them fails.
 */
const OPENERS = 8;

describeOnServer('PostgreSQL schema bootstrap', 'eight connections creating one schema at once', (postgres) => {
  test.each([1, 2, 3])('%i: eight openers of a fresh database at once all succeed; each migration applied once', async (round) => {
    const url = await postgres().createDatabase(`schema_race_${round}`);
    const clients = Array.from({ length: OPENERS }, () => new pg.Client({ connectionString: url }));
    await Promise.all(clients.map((client) => client.connect()));
    try {
      const outcomes = await Promise.allSettled(clients.map((client) => migratePostgres(client)));
      const failures = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [String(outcome.reason)] : []));
      expect(failures).toEqual([]);
      const versions = (await clients[0]!.query<{ version: number }>('SELECT version FROM moon.migrations ORDER BY version')).rows;
      expect(versions.map((row) => row.version)).toEqual(versions.map((_, index) => index + 1));
      expect(versions.length).toBeGreaterThan(0);
      // Opening a database that is already current changes nothing.
      await migratePostgres(clients[1]!);
      expect((await clients[0]!.query('SELECT version FROM moon.migrations')).rows.length).toBe(versions.length);
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
  });
});
