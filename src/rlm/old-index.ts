import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { MoonError, type MoonErrorCode } from '../errors.js';
import { readIndex } from './serializer.js';
import type { HistoryIndex, IndexGeneratorInfo, IndexSegment } from './types.js';

/**
 * The index already at the output, read — and validated: an invalid one is an error, never used — while the
 * history's first pass runs. In the built package the reading is done on a worker thread: parsing and validating
 * a 15 MB index is a quarter of an incremental run's work, and the main thread needs only a digest of it (the
 * prompts' hashes and token counts, the segments' summaries), not its 60 MB of objects. Under a TypeScript test
 * runner (no compiled worker) it is read in-process, by the same function.
 */
export type OldSegment = Omit<IndexSegment, 'promptIds' | 'overlapPromptIds'>;

export interface OldIndex {
  generator: IndexGeneratorInfo;
  /** Segments without their prompt lists: what an incremental plan compares and carries over. */
  segments: OldSegment[];
  prompts: OldPromptRows;
}

/**
 * The prompts' rows, in the index's order, packed: every id in one string, every hash in another, the counts in a
 * typed array — three values to hand between threads instead of 300k, and none of them a string per prompt.
 */
export interface OldPromptRows {
  count: number;
  /** The ids joined; row r's is `ids.slice(idStarts[r], idStarts[r + 1])`. */
  ids: string;
  idStarts: Uint32Array;
  /** The hashes joined: row r's is the 64 characters from `r * 64` (the schema checked they are 64 hex digits). */
  hashes: string;
  tokens: Float64Array;
}

export const HASH_CHARS = 64;

/** What was at the output: nothing, an index (its digest, when asked for), or an error. */
export interface OldIndexReading {
  exists: boolean;
  digest: OldIndex | null;
}

export interface OldIndexRequest {
  path: string;
  /** Whether the digest is wanted (an incremental run); otherwise the index is only validated. */
  digest: boolean;
}

type WorkerAnswer = { reading: OldIndexReading } | { error: { code: MoonErrorCode; message: string; hint: string | undefined } };

const WORKER_URL = new URL('./old-index-worker.js', import.meta.url);

/** Read the index at `path` in-process: validated, then digested when asked. Throws as readIndex throws. */
export function readOldIndex(request: OldIndexRequest): OldIndexReading {
  const index = readIndex(request.path);
  if (!index) return { exists: false, digest: null };
  return { exists: true, digest: request.digest ? digestIndex(index) : null };
}

/** The reading, on a worker when the package is built; the promise rejects as readOldIndex throws. */
export function startReadingOldIndex(request: OldIndexRequest): Promise<OldIndexReading> {
  // No thread for no file (a first run): readIndex says so at once.
  const onWorker = import.meta.url.endsWith('.js') && existsSync(request.path);
  const reading = onWorker ? readOnWorker(request) : Promise.resolve().then(() => readOldIndex(request));
  // Awaited later; never an unhandled rejection meanwhile.
  reading.catch(() => undefined);
  return reading;
}

function readOnWorker(request: OldIndexRequest): Promise<OldIndexReading> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const worker = new Worker(WORKER_URL, { workerData: request });
    worker.once('message', (answer: WorkerAnswer) => {
      settled = true;
      void worker.terminate();
      if ('reading' in answer) resolve(answer.reading);
      else reject(new MoonError(answer.error.code, answer.error.message, answer.error.hint === undefined ? {} : { hint: answer.error.hint }));
    });
    worker.once('error', (error) => {
      if (settled) return;
      settled = true;
      reject(new MoonError('internal', `reading the history index ${request.path} failed: ${error.message}`, { cause: error }));
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new MoonError('internal', `reading the history index ${request.path} failed: its thread exited (${code})`));
    });
  });
}

/** The worker's answer for a request: the reading, or the error as the main thread rebuilds it. */
export function answerOldIndexRequest(request: OldIndexRequest): WorkerAnswer {
  try {
    return { reading: readOldIndex(request) };
  } catch (error) {
    if (error instanceof MoonError) return { error: { code: error.code, message: error.message, hint: error.hint } };
    return { error: { code: 'internal', message: (error as Error).message, hint: undefined } };
  }
}

function digestIndex(index: HistoryIndex): OldIndex {
  const count = index.prompts.length;
  const idStarts = new Uint32Array(count + 1);
  const tokens = new Float64Array(count);
  let at = 0;
  index.prompts.forEach((prompt, row) => {
    idStarts[row] = at;
    at += prompt.id.length;
    tokens[row] = prompt.tokens;
  });
  idStarts[count] = at;
  return {
    generator: index.generator,
    segments: index.segments.map(({ promptIds: _promptIds, overlapPromptIds: _overlap, ...segment }) => segment),
    prompts: {
      count,
      ids: index.prompts.map((prompt) => prompt.id).join(''),
      idStarts,
      hashes: index.prompts.map((prompt) => prompt.hash).join(''),
      tokens,
    },
  };
}
