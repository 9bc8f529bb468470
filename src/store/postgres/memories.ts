import type { LongTermMemory, MemoryVersion } from '../../records/long-term.js';
import { mergeProvenance, sameProvenance, searchWords } from '../../records/long-term.js';
import type { MemoryPort, MemoryQuery } from '../ports.js';
import type { LongTermMemory as Stored } from '../../records/long-term.js';
import type { PgClient } from './client.js';
import { type MemoryColumns, memoryFromColumns } from '../row-mapping.js';
import { Params, escapeLike } from './filters.js';

/** pg returns BIGINT columns as strings. */
type MemoryRow = Omit<MemoryColumns, 'version' | 'created_ms' | 'updated_ms' | 'expires_ms'> & {
  version: number | string;
  created_ms: number | string;
  updated_ms: number | string;
  expires_ms: number | string | null;
};

const toMemory = (row: MemoryRow): LongTermMemory =>
  memoryFromColumns({
    ...row,
    version: Number(row.version),
    created_ms: Number(row.created_ms),
    updated_ms: Number(row.updated_ms),
    expires_ms: row.expires_ms === null ? null : Number(row.expires_ms),
  });

/**
 * The long-term memory port on PostgreSQL: the SQLite engine's rules (sqlite/memories.ts) in PostgreSQL's words.
 * `transaction` runs a read-modify-write on one client, the row locked FOR UPDATE.
 */
export function postgresMemoryPort(db: PgClient, transaction: <T>(work: (client: PgClient) => Promise<T>) => Promise<T>): MemoryPort {
  const get = async (client: PgClient, id: string, nowMs: number, lock = false): Promise<LongTermMemory | null> => {
    const result = await client.query<MemoryRow>(
      `SELECT * FROM moon.memories WHERE id = $1 AND (expires_ms IS NULL OR expires_ms > $2)${lock ? ' FOR UPDATE' : ''}`,
      [id, nowMs],
    );
    return result.rows[0] ? toMemory(result.rows[0]) : null;
  };
  const select = async (query: MemoryQuery, words: string[], client: PgClient = db): Promise<LongTermMemory[]> => {
    const params = new Params();
    const where = [`(expires_ms IS NULL OR expires_ms > ${params.add(query.nowMs)})`];
    if (query.namespaceId !== null && query.shared) {
      const team = query.shared.teamPrefix;
      const own = `namespace_id = ${params.add(query.namespaceId)}`;
      where.push(`(${own} OR scope = 'user'${team === null ? '' : ` OR (scope = 'team' AND starts_with(namespace_id, ${params.add(team)}))`})`);
    } else if (query.namespaceId !== null) where.push(`namespace_id = ${params.add(query.namespaceId)}`);
    if (query.states) where.push(`review_state = ANY (${params.add([...query.states])}::text[])`);
    for (const word of words) where.push(`lower(text) LIKE ${params.add(`%${escapeLike(word)}%`)}`);
    const limit = query.limit === undefined ? '' : ` LIMIT ${params.add(query.limit)}`;
    const result = await client.query<MemoryRow>(`SELECT * FROM moon.memories WHERE ${where.join(' AND ')} ORDER BY updated_ms DESC, id${limit}`, params.values);
    return result.rows.map(toMemory);
  };
  /** One row as stored; `ignore` keeps a row already there (restore). Returns 1 when written. */
  const insert = async (client: PgClient, memory: Stored, ignore: boolean): Promise<number> =>
    (
      await client.query(
        `INSERT INTO moon.memories (id, namespace_id, repo, scope, review_state, text, provenance, agent_loaded, version, created_ms, updated_ms, expires_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12)${ignore ? ' ON CONFLICT (id) DO NOTHING' : ''}`,
        [
          memory.id,
          memory.namespace_id,
          memory.repo,
          memory.scope,
          memory.review_state,
          memory.text,
          JSON.stringify(memory.provenance),
          memory.agent_loaded,
          memory.version,
          memory.created_at_ms,
          memory.updated_at_ms,
          memory.expires_at_ms,
        ],
      )
    ).rowCount ?? 0;
  return {
    async add(memory) {
      await insert(db, { ...memory, record_kind: 'long_term', version: 1, updated_at_ms: memory.created_at_ms }, false);
      return (await get(db, memory.id, Number.MIN_SAFE_INTEGER))!;
    },
    addOrMerge: (memory, pick) =>
      transaction(async (client) => {
        const atMs = memory.created_at_ms;
        // One writer per namespace at a time: two processes adding the same text make one entry.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`moon.memories:${memory.namespace_id}`]);
        const match = pick(await select({ namespaceId: memory.namespace_id, states: ['draft', 'approved'], nowMs: atMs }, [], client));
        if (!match) {
          await insert(client, { ...memory, record_kind: 'long_term', version: 1, updated_at_ms: atMs }, false);
          return { memory: (await get(client, memory.id, Number.MIN_SAFE_INTEGER))!, outcome: 'created' as const };
        }
        const merged = mergeProvenance(match.provenance, memory.provenance);
        // What the agent loads by itself stays out of packs, whichever source said it first.
        const loaded = match.agent_loaded || memory.agent_loaded;
        if (sameProvenance(merged, match.provenance) && loaded === match.agent_loaded) return { memory: match, outcome: 'unchanged' as const };
        await client.query('UPDATE moon.memories SET provenance = $1::jsonb, agent_loaded = $2, updated_ms = $3 WHERE id = $4', [
          JSON.stringify(merged),
          loaded,
          atMs,
          match.id,
        ]);
        return { memory: (await get(client, match.id, atMs))!, outcome: 'merged' as const };
      }),
    async dump() {
      const memories = (await db.query<MemoryRow>('SELECT * FROM moon.memories ORDER BY created_ms, id')).rows.map(toMemory);
      const versions = (
        await db.query<{ memory_id: string; version: number; text: string; replaced_ms: number }>('SELECT * FROM moon.memory_versions ORDER BY memory_id, version')
      ).rows.map((row): MemoryVersion => ({ memory_id: row.memory_id, version: Number(row.version), text: row.text, replaced_at_ms: Number(row.replaced_ms) }));
      return { memories, versions };
    },
    restore: (dump) =>
      transaction(async (client) => {
        let added = 0;
        for (const memory of dump.memories) added += await insert(client, memory, true);
        for (const row of dump.versions) {
          await client.query('INSERT INTO moon.memory_versions (memory_id, version, text, replaced_ms) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
            row.memory_id,
            row.version,
            row.text,
            row.replaced_at_ms,
          ]);
        }
        return added;
      }),
    get: (id, nowMs) => get(db, id, nowMs),
    edit: (id, text, atMs) =>
      transaction(async (client) => {
        const current = await get(client, id, atMs, true);
        if (!current) return null;
        await client.query('INSERT INTO moon.memory_versions (memory_id, version, text, replaced_ms) VALUES ($1, $2, $3, $4)', [
          id,
          current.version,
          current.text,
          atMs,
        ]);
        await client.query('UPDATE moon.memories SET text = $1, version = version + 1, updated_ms = $2 WHERE id = $3', [text, atMs, id]);
        return get(client, id, atMs);
      }),
    setState: (id, state, atMs) =>
      transaction(async (client) => {
        if (!(await get(client, id, atMs, true))) return null;
        await client.query('UPDATE moon.memories SET review_state = $1, updated_ms = $2 WHERE id = $3', [state, atMs, id]);
        return get(client, id, atMs);
      }),
    addProvenance: (id, provenance, atMs) =>
      transaction(async (client) => {
        const current = await get(client, id, atMs, true);
        if (!current) return null;
        const merged = mergeProvenance(current.provenance, provenance);
        await client.query('UPDATE moon.memories SET provenance = $1::jsonb, updated_ms = $2 WHERE id = $3', [JSON.stringify(merged), atMs, id]);
        return get(client, id, atMs);
      }),
    list: (query) => select(query, []),
    search: async (text, query) => {
      const words = searchWords(text);
      return words.length === 0 ? [] : select(query, words);
    },
    async versions(id) {
      const result = await db.query<{ memory_id: string; version: number; text: string; replaced_ms: number }>(
        'SELECT * FROM moon.memory_versions WHERE memory_id = $1 ORDER BY version',
        [id],
      );
      return result.rows.map((row): MemoryVersion => ({ memory_id: row.memory_id, version: Number(row.version), text: row.text, replaced_at_ms: Number(row.replaced_ms) }));
    },
    purgeExpired: (nowMs) =>
      transaction(async (client) => {
        await client.query(
          'DELETE FROM moon.memory_versions WHERE memory_id IN (SELECT id FROM moon.memories WHERE expires_ms IS NOT NULL AND expires_ms <= $1)',
          [nowMs],
        );
        return (await client.query('DELETE FROM moon.memories WHERE expires_ms IS NOT NULL AND expires_ms <= $1', [nowMs])).rowCount ?? 0;
      }),
  };
}
