import { readFileSync } from 'node:fs';
import { errnoOf } from '../errors.js';
import { hashList } from './hashes.js';
import { writeFileAtomically } from './atomic-write.js';
import type { SegmentSummary } from './summary-local.js';

/**
 * Model answers kept by what was asked (seed 004 "caching"): the key is the provider, the model, the template
 * version and the segment's content hash, so the same segment asked of the same model is never paid for twice —
 * across incremental runs, full reindexes and moved segment boundaries alike. Only answers that parsed whole are
 * kept (a broken answer is asked again next run). The file sits beside the index (`<index>.cache.json`); it is a
 * cache: an unreadable one is reported and started afresh, never an error. At most MAX_ENTRIES, newest kept.
 */
export const MAX_CACHE_ENTRIES = 20_000;
const CACHE_VERSION = 1;

interface CacheEntry extends SegmentSummary {
  /** When it was last written or used (epoch ms): the oldest are dropped past MAX_ENTRIES. */
  at: number;
}

export interface SummaryCache {
  get(key: string): SegmentSummary | null;
  put(key: string, summary: SegmentSummary): void;
  /** Write the cache if anything changed. */
  save(): void;
  readonly size: number;
}

export function cachePathFor(indexPath: string): string {
  return `${indexPath}.cache.json`;
}

export function createCacheKey(provider: string, model: string, template: string, segmentHash: string): string {
  return hashList('summary-cache', [provider, model, template, segmentHash]);
}

/** The cache at `path` (null: a cache that lives in memory only). */
export function openSummaryCache(path: string | null, now: () => number = Date.now, onNotice?: (message: string) => void): SummaryCache {
  const entries = path ? readEntries(path, onNotice) : new Map<string, CacheEntry>();
  let dirty = false;
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return null;
      entry.at = now();
      dirty = true;
      const { at: _at, ...summary } = entry;
      return summary;
    },
    put(key, summary) {
      entries.set(key, { ...summary, at: now() });
      dirty = true;
    },
    save() {
      if (!path || !dirty) return;
      const kept = [...entries].sort((a, b) => b[1].at - a[1].at).slice(0, MAX_CACHE_ENTRIES);
      writeFileAtomically(path, `${JSON.stringify({ version: CACHE_VERSION, entries: Object.fromEntries(kept) })}\n`);
      dirty = false;
    },
    get size() {
      return entries.size;
    },
  };
}

function readEntries(path: string, onNotice?: (message: string) => void): Map<string, CacheEntry> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') onNotice?.(`summary cache ${path} is unreadable (${(error as Error).message}); starting a new one`);
    return new Map();
  }
  try {
    const value = JSON.parse(text) as { version?: unknown; entries?: unknown };
    if (value.version !== CACHE_VERSION || typeof value.entries !== 'object' || value.entries === null) throw new Error('not a summary cache of this version');
    const entries = new Map<string, CacheEntry>();
    for (const [key, entry] of Object.entries(value.entries as Record<string, unknown>)) {
      if (isEntry(entry)) entries.set(key, entry);
    }
    return entries;
  } catch (error) {
    onNotice?.(`summary cache ${path} is unreadable (${(error as Error).message}); starting a new one`);
    return new Map();
  }
}

function isEntry(value: unknown): value is CacheEntry {
  const entry = value as Partial<CacheEntry> | null;
  return (
    typeof entry === 'object' &&
    entry !== null &&
    typeof entry.summary === 'string' &&
    Array.isArray(entry.topics) &&
    entry.topics.every((topic) => typeof topic === 'string') &&
    Array.isArray(entry.keyEntities) &&
    entry.keyEntities.every((item) => typeof item === 'string') &&
    typeof entry.importanceScore === 'number' &&
    entry.importanceScore >= 0 &&
    entry.importanceScore <= 1 &&
    typeof entry.at === 'number'
  );
}
