import { describeError } from '../../errors.js';
import { maskUrlPassword } from '../../text/mask-url.js';
import type { PostgresHealth } from '../types.js';
import { createPool } from './client.js';
import { inspectPostgres } from './health.js';

/**
 * The configured database accepts a connection and answers (for `moon doctor`), with its extensions, schema and
 * index health (inspectPostgres) when it does.
 */
export async function probePostgres(url: string, timeoutMs = 10_000): Promise<{ ok: true; detail: string; health: PostgresHealth | null } | { ok: false; error: string }> {
  let pool: Awaited<ReturnType<typeof createPool>> | null = null;
  let timer: NodeJS.Timeout | undefined;
  try {
    pool = await createPool(url);
    const answer = pool.query<{ version: string }>('SELECT version() AS version');
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    });
    const { rows } = await Promise.race([answer, timeout]);
    const detail = (rows[0]?.version ?? 'PostgreSQL').split(' ').slice(0, 2).join(' ');
    // The catalogs are readable by any role; should they not be, the database still answered.
    const health = await Promise.race([inspectPostgres(pool).catch(() => null), timeout]);
    return { ok: true, detail, health };
  } catch (error) {
    return { ok: false, error: describeError(error).split(url).join(maskUrlPassword(url)) };
  } finally {
    clearTimeout(timer);
    void pool?.end().catch(() => undefined);
  }
}
