import { Ledger } from '../archive/ledger.js';
import { resolvePaths } from '../archive/paths.js';
import { normalizeChunk } from '../normalize/index.js';
import { createRedactor } from '../normalize/redact.js';
import type { IngestContext } from './context.js';
import { createOptOut } from './opt-out.js';

/**
 * Everything an IngestContext is built from, as plain data: the composition root builds the main thread's
 * context from it, and each ingest worker builds its own, so both sides clean, redact and filter alike.
 */
export interface IngestSettings {
  home: string;
  redact: { enabled: boolean; extraPatterns: string[] };
  minMessageChars: number;
  timezone: string;
  maxLineBytes: number;
  /** `sources.exclude` globs. */
  exclude: string[];
  /** Sessions never indexed (the current one). */
  excludeSessionIds: string[];
  /**
   * Build each entry's index document beside the parse (`prepareFile`). Worth it on two or more ingest workers;
   * with one, the writer waits for the worker and has the time to build them itself (docs/benchmarks.md).
   */
  prepareDocuments?: boolean;
}

export function createIngestContext(settings: IngestSettings, now: () => number = Date.now): IngestContext {
  const paths = resolvePaths(settings.home);
  const redact = createRedactor({ enabled: settings.redact.enabled, extraPatterns: settings.redact.extraPatterns });
  return {
    paths,
    ledger: new Ledger(paths.ledger),
    normalize: (chunk) => normalizeChunk(chunk, { redact, minLength: settings.minMessageChars }),
    timezone: settings.timezone,
    maxLineBytes: settings.maxLineBytes,
    excludeSessionIds: new Set(settings.excludeSessionIds),
    optOut: createOptOut(settings.exclude),
    prepareDocuments: settings.prepareDocuments ?? false,
    redact,
    now,
  };
}
