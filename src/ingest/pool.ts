import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Entry } from '../model.js';
import type { RankedTerm } from '../normalize/keywords.js';
import type { SessionDoc } from '../project/doc.js';
import type { FileState } from '../store/types.js';
import { type SerializedError, reviveError } from './errors-across.js';
import type { IndexFileOptions, PreparedFile } from './index-file.js';
import type { IngestSettings } from './settings.js';
import type { WorkerJob } from './worker.js';
import type { Rendered } from './project-session.js';
import { fromBuild } from '../runtime/build-paths.js';
import { isBackground } from '../runtime/priority.js';
import { type TermDelta, receiveTerms } from '../store/postings/term-numbering.js';

/**
 * Ingest workers, one per core beside the writer's: the store's single writer stays on the main thread while files are read,
 * parsed, redacted and projected beside it. A job goes to the least busy worker. A worker that dies (a crash,
 * memory) fails only the jobs it held — each reported as that file's error — and is replaced; `close()` ends
 * them all, and the process's own exit ends them on SIGINT/SIGTERM.
 */
export class IngestPool {
  private readonly workers: Slot[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly settings: IngestSettings,
    readonly size: number,
    /** Per-worker heap limits (a test makes a worker run out of memory on purpose). */
    private readonly limits: { maxOldGenerationSizeMb?: number } = {},
  ) {
    for (let index = 0; index < size; index += 1) this.workers.push(this.spawn());
  }

  prepare(path: string, previous: FileState | null, options: Omit<IndexFileOptions, 'adoptFrom' | 'sessionId'>): Promise<PreparedFile> {
    return this.run<PreparedFile>({ kind: 'prepare', input: { path, previous, options } }).then((prepared) =>
      // A Buffer crosses as a Uint8Array: give it back its Buffer methods.
      prepared.kind === 'read' || prepared.kind === 'document'
        ? { ...prepared, buffer: Buffer.from(prepared.buffer.buffer, prepared.buffer.byteOffset, prepared.buffer.byteLength) }
        : prepared,
    );
  }

  rankTerms(entries: Entry[]): Promise<RankedTerm[]> {
    return this.run({ kind: 'terms', input: { entries } });
  }

  /** Render and write a projection, and make the session's fields; `corpus` holds the index-wide counts of the session's own terms. */
  render(doc: Omit<SessionDoc, 'corpus'>, corpus: { sessionCount: number; counts: ReadonlyMap<string, number> } | null): Promise<Rendered> {
    return this.run({ kind: 'render', input: { doc, corpus: corpus ? { sessionCount: corpus.sessionCount, counts: [...corpus.counts] } : null } });
  }

  /** End the workers, at once, in the middle of a job if need be: the jobs they held fail (a stop ends a run so). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const slot of this.workers) {
      const held = [...slot.pending.values()];
      slot.pending.clear();
      for (const job of held) job.reject(new Error('the ingest workers were stopped'));
    }
    await Promise.all(this.workers.map((slot) => slot.worker.terminate()));
  }

  private run<T>(job: WorkerJob): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the ingest workers are closed'));
    const slot = this.workers.reduce((best, candidate) => (candidate.pending.size < best.pending.size ? candidate : best));
    const id = this.nextId;
    this.nextId += 1;
    return new Promise<T>((resolve, reject) => {
      slot.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      slot.worker.postMessage({ id, ...job });
    });
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_URL, { workerData: { ...this.settings, background: isBackground() }, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB, ...this.limits } });
    const slot: Slot = { worker, pending: new Map(), dead: false };
    worker.unref();
    worker.on('message', (message: { id: number; result?: unknown; error?: SerializedError; terms?: TermDelta | null }) => {
      // Received in the order sent, whichever job is used first.
      if (message.terms) receiveTerms(message.terms);
      const job = slot.pending.get(message.id);
      if (!job) return;
      slot.pending.delete(message.id);
      if (message.error) job.reject(reviveError(message.error));
      else job.resolve(message.result);
    });
    const fail = (reason: string): void => {
      if (slot.dead) return;
      slot.dead = true;
      const failed = [...slot.pending.values()];
      slot.pending.clear();
      for (const job of failed) job.reject(new Error(`an ingest worker stopped (${reason}) while working on it`));
      if (this.closed) return;
      const index = this.workers.indexOf(slot);
      if (index !== -1) this.workers[index] = this.spawn();
    };
    worker.on('error', (error) => fail(error.message));
    worker.on('exit', (code) => {
      if (!this.closed) fail(`exit code ${code}`);
    });
    return slot;
  }
}

interface Slot {
  worker: Worker;
  dead: boolean;
  pending: Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>;
}

/**
 * The worker's compiled module. Under a TypeScript test runner this file is the .ts source and there is no
 * compiled worker beside it: `workersAvailable()` says so and ingest runs on one thread.
 */
const WORKER_URL = fromBuild('ingest/worker.js');

/**
 * A worker's young generation: V8's default lets a worker's heap hold tens of MB of short-lived garbage (parsed
 * records) before collecting it. 8 MB takes ~30 MB off the peak RSS for ~8 % more wall time (100k corpus, three
 * interleaved pairs; 16 or 24 MB save nothing): it keeps a million-message run under 300 MB (docs/benchmarks.md).
 */
const WORKER_YOUNG_MB = 8;

export function workersAvailable(): boolean {
  return import.meta.url.endsWith('.js');
}

/**
 * Workers for a run: `index.workers`, or one per core beside the writer's (none on a single core: the main
 * thread does it all). The writer keeps its core busy, so a worker more than that only adds memory: on two
 * cores one worker indexes within ~10 % of two's wall time at ~65 MB less peak RSS (docs/benchmarks.md).
 */
export function chooseWorkerCount(configured: number | undefined): number {
  if (!workersAvailable()) return 0;
  if (configured !== undefined) return configured;
  return Math.min(availableParallelism() - 1, 8);
}
