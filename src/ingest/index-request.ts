import type { EmbedProgress } from '../embed/pipeline.js';
import type { IndexReport } from './run-index.js';

/** What `moon index`, the watcher and a hook's capture ask the index stage for. */
export interface IndexRequest {
  /** Files or folders; empty: the configured source roots, else the default locations. */
  roots?: string[];
  force?: boolean;
  reproject?: boolean;
  excludeSessions?: string[];
  onProgress?: (done: number, total: number, path: string) => void;
  /** Skip the embedding step even when a provider is configured. */
  noEmbed?: boolean;
  onEmbedProgress?: (progress: EmbedProgress) => void;
  /** Asked between files and a large file's pieces: true stops after what is committed (the watcher's SIGTERM). */
  shouldStop?: () => boolean;
  /** Aborted: the run stops as soon as it can, its ingest workers terminated (the watcher's stop); no embedding. */
  signal?: AbortSignal;
  /** Worker threads for this run, overriding index.workers (a watcher indexing one grown file needs none). */
  workers?: number;
}

export type IndexResult = IndexReport & { embeddings: EmbedProgress | null };
