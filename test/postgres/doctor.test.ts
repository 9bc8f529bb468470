import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { describeOnServer, withPgClient } from '../helpers/postgres.js';

/**
 * `moon doctor` against a PostgreSQL store: the extensions moon needs, the schema against this build, and the
 * health of its indexes — checked on a real server, before the first index, after it, and with an index broken
 * the way a failed concurrent build leaves one (then repaired by the fix doctor prints).
 */
interface Report {
  ok: boolean;
  checks: { id: string; status: string; detail: string; fix?: string }[];
}

let temp: { path: string; cleanup: () => void };
beforeAll(() => {
  temp = makeTempDir('moon-pg-doctor-');
  cpSync(join(REPO, 'examples'), join(temp.path, 'sources'), { recursive: true });
});
afterAll(() => temp?.cleanup());

describeOnServer('moon doctor on PostgreSQL', 'catalog state only a server has (pg_available_extensions, an index marked invalid)', (postgres) => {
  test('extensions, schema and index health: reported before and after the first index, an invalid index failed with its REINDEX', async () => {
    const url = await postgres().createDatabase('doctor');
    const env = { HOME: join(temp.path, 'home'), MOON_HOME: join(temp.path, 'moon'), MOON_SOURCES: join(temp.path, 'sources'), MOON_DATABASE_URL: url, MOON_INDEX_WORKERS: '0' };
    const doctor = async (): Promise<{ code: number; report: Report }> => {
      const run = await spawnMoon(['doctor', '--json'], env);
      return { code: run.code ?? -1, report: JSON.parse(run.stdout) as Report };
    };
    const check = (report: Report, id: string) => report.checks.find((item) => item.id === id);

    const fresh = await doctor();
    expect(check(fresh.report, 'engine')?.status).toBe('ok');
    expect(check(fresh.report, 'pg:schema')).toMatchObject({ status: 'warn', fix: 'run `moon index` (its first write creates it)' });
    expect(check(fresh.report, 'pg:extensions')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/^vector [\d.]+ available, not installed, pg_trgm [\d.]+ available, not installed, rum /) });

    const index = await spawnMoon(['index'], env);
    expect(index.code, index.stderr).toBe(0);
    await withPgClient(url, (client) => client.query('ANALYZE'));
    const indexed = await doctor();
    expect(indexed.code).toBe(0);
    expect(check(indexed.report, 'pg:extensions')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^vector [\d.]+, pg_trgm [\d.]+, rum /) });
    expect(check(indexed.report, 'pg:schema')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^all \d+ migrations applied$/) });
    expect(check(indexed.report, 'pg:indexes')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^\d+ indexes valid; entries: [\d,]+ rows, /) });
    expect(check(indexed.report, 'pg:postings')).toEqual({ id: 'pg:postings', status: 'ok', detail: 'word lists ranked from postings (pruned top-k)' });

    // What a CREATE INDEX CONCURRENTLY that failed half-way leaves behind: an index queries do not use.
    await withPgClient(url, (client) => client.query("UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'moon.fix_events_namespace'::regclass"));
    const broken = await doctor();
    expect(broken.code).toBe(1);
    expect(check(broken.report, 'pg:indexes')).toEqual({
      id: 'pg:indexes',
      status: 'fail',
      detail: 'invalid (a failed or unfinished build; queries do not use them): moon.fix_events_namespace on fix_events',
      fix: 'REINDEX INDEX CONCURRENTLY moon.fix_events_namespace;',
    });
    await withPgClient(url, (client) => client.query(check(broken.report, 'pg:indexes')!.fix!));
    const repaired = await doctor();
    expect(repaired.code).toBe(0);
    expect(check(repaired.report, 'pg:indexes')?.status).toBe('ok');
  }, 180_000);
});
