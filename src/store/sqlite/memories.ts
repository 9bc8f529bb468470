import type { LongTermMemory, MemoryProvenance, MemoryVersion } from '../../records/long-term.js';
import { mergeProvenance, sameProvenance, searchWords } from '../../records/long-term.js';
import type { MemoryDump, MemoryPort, MemoryQuery } from '../ports.js';
import type { PlaneHandle } from './sqlite-store.js';
import { type MemoryColumns, memoryFromColumns } from '../row-mapping.js';

/** The row as SQLite stores it: provenance as JSON text, the flag as 0/1. */
type MemoryRow = Omit<MemoryColumns, 'provenance' | 'agent_loaded'> & { provenance: string; agent_loaded: number };

const toMemory = (row: MemoryRow): LongTermMemory =>
  memoryFromColumns({ ...row, provenance: JSON.parse(row.provenance) as MemoryProvenance[], agent_loaded: row.agent_loaded === 1 });

const LIVE = '(expires_ms IS NULL OR expires_ms > ?)';

/** The long-term memory port over the SQLite file (its `memories` and `memory_versions` tables). */
export function sqliteMemoryPort(access: () => PlaneHandle): MemoryPort {
  const get = (id: string, nowMs: number): LongTermMemory | null => {
    const row = access().db.prepare<[string, number], MemoryRow>(`SELECT * FROM memories WHERE id = ? AND ${LIVE}`).get(id, nowMs);
    return row ? toMemory(row) : null;
  };
  const select = (query: MemoryQuery, extra: string[], extraParams: unknown[]): LongTermMemory[] => {
    const where = [LIVE, ...extra];
    const params: unknown[] = [query.nowMs, ...extraParams];
    if (query.namespaceId !== null && query.shared) {
      const team = query.shared.teamPrefix;
      where.push(`(namespace_id = ? OR scope = 'user'${team === null ? '' : " OR (scope = 'team' AND substr(namespace_id, 1, ?) = ?)"})`);
      params.push(query.namespaceId, ...(team === null ? [] : [team.length, team]));
    } else if (query.namespaceId !== null) {
      where.push('namespace_id = ?');
      params.push(query.namespaceId);
    }
    if (query.states) {
      where.push('review_state IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(query.states));
    }
    params.push(query.limit ?? -1);
    return access()
      .db.prepare<unknown[], MemoryRow>(`SELECT * FROM memories WHERE ${where.join(' AND ')} ORDER BY updated_ms DESC, id LIMIT ?`)
      .all(...params)
      .map(toMemory);
  };
  const run = async <T>(work: () => T): Promise<T> => work();
  /** One row as stored; OR IGNORE keeps a row already there (restore). */
  const insert = (memory: LongTermMemory, orIgnore: boolean): number =>
    access()
      .db.prepare(
        `INSERT ${orIgnore ? 'OR IGNORE ' : ''}INTO memories (id, namespace_id, repo, scope, review_state, text, provenance, agent_loaded, version, created_ms, updated_ms, expires_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        memory.id,
        memory.namespace_id,
        memory.repo,
        memory.scope,
        memory.review_state,
        memory.text,
        JSON.stringify(memory.provenance),
        memory.agent_loaded ? 1 : 0,
        memory.version,
        memory.created_at_ms,
        memory.updated_at_ms,
        memory.expires_at_ms,
      ).changes;
  return {
    add: (memory) =>
      run(() => {
        access().write(() => insert({ ...memory, record_kind: 'long_term', version: 1, updated_at_ms: memory.created_at_ms }, false));
        return get(memory.id, Number.NEGATIVE_INFINITY)!;
      }),
    addOrMerge: (memory, pick) =>
      run(() => {
        const { db, write } = access();
        const atMs = memory.created_at_ms;
        return write(() => {
          const match = pick(select({ namespaceId: memory.namespace_id, states: ['draft', 'approved'], nowMs: atMs }, [], []));
          if (!match) {
            insert({ ...memory, record_kind: 'long_term', version: 1, updated_at_ms: atMs }, false);
            return { memory: get(memory.id, Number.NEGATIVE_INFINITY)!, outcome: 'created' as const };
          }
          const merged = mergeProvenance(match.provenance, memory.provenance);
          // What the agent loads by itself stays out of packs, whichever source said it first.
          const loaded = match.agent_loaded || memory.agent_loaded;
          if (sameProvenance(merged, match.provenance) && loaded === match.agent_loaded) return { memory: match, outcome: 'unchanged' as const };
          db.prepare('UPDATE memories SET provenance = ?, agent_loaded = ?, updated_ms = ? WHERE id = ?').run(JSON.stringify(merged), loaded ? 1 : 0, atMs, match.id);
          return { memory: get(match.id, atMs)!, outcome: 'merged' as const };
        });
      }),
    dump: () =>
      run((): MemoryDump => {
        const { db } = access();
        return {
          memories: db.prepare<[], MemoryRow>('SELECT * FROM memories ORDER BY created_ms, id').all().map(toMemory),
          versions: db
            .prepare<[], { memory_id: string; version: number; text: string; replaced_ms: number }>('SELECT * FROM memory_versions ORDER BY memory_id, version')
            .all()
            .map((row) => ({ memory_id: row.memory_id, version: row.version, text: row.text, replaced_at_ms: row.replaced_ms })),
        };
      }),
    restore: (dump) =>
      run(() => {
        const { db, write } = access();
        return write(() => {
          let added = 0;
          for (const memory of dump.memories) added += insert(memory, true);
          const version = db.prepare('INSERT OR IGNORE INTO memory_versions (memory_id, version, text, replaced_ms) VALUES (?, ?, ?, ?)');
          for (const row of dump.versions) version.run(row.memory_id, row.version, row.text, row.replaced_at_ms);
          return added;
        });
      }),
    get: (id, nowMs) => run(() => get(id, nowMs)),
    edit: (id, text, atMs) =>
      run(() => {
        const { db, write } = access();
        return write(() => {
          const current = get(id, atMs);
          if (!current) return null;
          db.prepare('INSERT INTO memory_versions (memory_id, version, text, replaced_ms) VALUES (?, ?, ?, ?)').run(id, current.version, current.text, atMs);
          db.prepare('UPDATE memories SET text = ?, version = version + 1, updated_ms = ? WHERE id = ?').run(text, atMs, id);
          return get(id, atMs);
        });
      }),
    setState: (id, state, atMs) =>
      run(() => {
        const { db, write } = access();
        return write(() => {
          if (!get(id, atMs)) return null;
          db.prepare('UPDATE memories SET review_state = ?, updated_ms = ? WHERE id = ?').run(state, atMs, id);
          return get(id, atMs);
        });
      }),
    addProvenance: (id, provenance, atMs) =>
      run(() => {
        const { db, write } = access();
        return write(() => {
          const current = get(id, atMs);
          if (!current) return null;
          const merged = mergeProvenance(current.provenance, provenance);
          db.prepare('UPDATE memories SET provenance = ?, updated_ms = ? WHERE id = ?').run(JSON.stringify(merged), atMs, id);
          return get(id, atMs);
        });
      }),
    list: (query) => run(() => select(query, [], [])),
    search: (text, query) =>
      run(() => {
        const words = searchWords(text);
        if (words.length === 0) return [];
        return select(
          query,
          words.map(() => "lower(text) LIKE ? ESCAPE '\\'"),
          words.map((word) => `%${word.replace(/[\\%_]/g, (char) => `\\${char}`)}%`),
        );
      }),
    versions: (id) =>
      run(() =>
        access()
          .db.prepare<[string], { memory_id: string; version: number; text: string; replaced_ms: number }>(
            'SELECT * FROM memory_versions WHERE memory_id = ? ORDER BY version',
          )
          .all(id)
          .map((row): MemoryVersion => ({ memory_id: row.memory_id, version: row.version, text: row.text, replaced_at_ms: row.replaced_ms })),
      ),
    purgeExpired: (nowMs) =>
      run(() => {
        const { db, write } = access();
        return write(() => {
          db.prepare('DELETE FROM memory_versions WHERE memory_id IN (SELECT id FROM memories WHERE expires_ms IS NOT NULL AND expires_ms <= ?)').run(nowMs);
          return db.prepare('DELETE FROM memories WHERE expires_ms IS NOT NULL AND expires_ms <= ?').run(nowMs).changes;
        });
      }),
  };
}
