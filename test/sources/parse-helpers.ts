import { fileURLToPath } from 'node:url';
import type { CompactionAnchor, Entry, Role, Session, UsageSnapshot } from '../../src/model.js';
import { addCount, mergeEntryInto, mergeResultInto } from '../../src/model.js';
import { readJsonl } from '../../src/sources/jsonl.js';
import type { ParsedChunk, RawRecord, Source } from '../../src/sources/source.js';

export function fixturePath(relative: string): string {
  return fileURLToPath(new URL(`../fixtures/${relative}`, import.meta.url));
}

export function loadRecords(relative: string): RawRecord[] {
  // Fixtures are finished files: a last line without a newline is complete, not still being written.
  return readJsonl(fixturePath(relative), { acceptUnterminated: true }).records;
}

export function parseFixture(source: Source, relative: string): ParsedChunk {
  return source.parse(loadRecords(relative), { path: fixturePath(relative), carry: null });
}

export function countRoles(entries: readonly Entry[]): Partial<Record<Role, number>> {
  const counts: Partial<Record<Role, number>> = {};
  for (const entry of entries) counts[entry.role] = (counts[entry.role] ?? 0) + 1;
  return counts;
}

export function entryByKey(entries: readonly Entry[], key: string): Entry {
  const entry = entries.find((candidate) => candidate.key === key);
  if (!entry) throw new Error(`no entry with key ${key}`);
  return entry;
}

export interface MergedParse {
  session: Session;
  entries: Entry[];
  anchors: CompactionAnchor[];
  lastUsage: UsageSnapshot | null;
  skipped: Record<string, number>;
  duplicates: number;
  fork: boolean;
}

/**
 * Parse records the way the indexer does for a growing file: chunk by chunk, each with the carry the previous
 * chunk returned (round-tripped through JSON, as the store persists it). Entries are merged the way the store
 * does (SqliteStore.upsertEntry): an entry whose key is already stored continues it — its text is appended after
 * a blank line, everything else stays — and ResultPatches fill in results of stored calls.
 */
export function parseInChunks(source: Source, records: readonly RawRecord[], path: string, cuts: number[]): MergedParse {
  const bounds = [0, ...cuts.filter((cut) => cut > 0 && cut < records.length).sort((a, b) => a - b), records.length];
  const stored = new Map<string, Entry>();
  const anchors: CompactionAnchor[] = [];
  const skipped: Record<string, number> = {};
  let carry: unknown = null;
  let duplicates = 0;
  let lastUsage: UsageSnapshot | null = null;
  let last: ParsedChunk | null = null;
  for (let index = 0; index < bounds.length - 1; index += 1) {
    const chunk = source.parse(records.slice(bounds[index], bounds[index + 1]), { path, carry });
    for (const patch of chunk.results) {
      const call = stored.get(patch.key);
      if (!call) throw new Error(`ResultPatch for unknown key ${patch.key}`);
      if (call.result !== null && patch.result !== null && !patch.append) {
        throw new Error(`ResultPatch for ${patch.key}, which already has a result`);
      }
      mergeResultInto(call, patch);
    }
    for (const entry of chunk.entries) {
      const existing = stored.get(entry.key);
      if (existing) mergeEntryInto(existing, entry);
      else stored.set(entry.key, { ...entry });
    }
    anchors.push(...chunk.anchors);
    for (const [kind, count] of Object.entries(chunk.skipped)) addCount(skipped, kind, count);
    duplicates += chunk.duplicates;
    lastUsage = chunk.usage.at(-1) ?? lastUsage;
    carry = JSON.parse(JSON.stringify(chunk.carry)) as unknown;
    last = chunk;
  }
  if (!last) throw new Error('no chunks');
  return {
    session: last.session,
    entries: [...stored.values()].sort((a, b) => a.seq - b.seq),
    anchors,
    lastUsage,
    skipped,
    duplicates,
    fork: last.fork,
  };
}

export function mergeWhole(chunk: ParsedChunk): MergedParse {
  return {
    session: chunk.session,
    entries: [...chunk.entries].sort((a, b) => a.seq - b.seq),
    anchors: chunk.anchors,
    lastUsage: chunk.usage.at(-1) ?? null,
    skipped: chunk.skipped,
    duplicates: chunk.duplicates,
    fork: chunk.fork,
  };
}
