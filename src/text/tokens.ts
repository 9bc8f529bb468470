import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { fromBuild } from '../runtime/build-paths.js';

/**
 * Token counts for what hooks hand an agent, with a real BPE tokenizer (gpt-tokenizer), encoding cl100k_base. No
 * agent's own count can be had here: Claude's tokenizer is not published (any public BPE approximates it), and
 * Codex's models use o200k_base, which agrees with cl100k_base within about 1 % on what hooks print (1491 against
 * 1493 tokens for a full session-start on the 100k bench corpus). cl100k_base loads in half the time of
 * o200k_base (its rank table is half the size), which matters inside session-start's 300 ms.
 *
 * Loading the rank table still costs ~60 ms of one core. Unless the machine is saturated it is loaded on a worker
 * thread, started as early as the process knows it may print (bin/moon.js calls preloadTokenCounter for
 * session-start), while the main thread loads the CLI, opens the index and reads the projections. Otherwise, under
 * a TypeScript test runner (no compiled worker), or if the worker fails, it loads in-process when first needed.
 */
export const HOOK_TOKEN_ENCODING = 'cl100k_base';

export interface TokenCounter {
  /** Each text's token count, in order. */
  count(texts: readonly string[]): Promise<number[]>;
}

/** Special-token text (`<|endoftext|>`) is counted as the ordinary text it is, never refused. */
export const COUNT_OPTIONS = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

const WORKER_URL = fromBuild('text/token-worker.js');

let counter: TokenCounter | null = null;

/**
 * Start loading the tokenizer now, on a worker thread, unless the machine is saturated (a 1-minute load average of
 * one or more per core); loadTokenCounter later returns the same counter. On a saturated machine the worker only
 * takes the main thread's core — and a process that ends before the table is loaded waits for it — so the table
 * is loaded when needed, in-process. Measured on 2 cores (bench/hooks.mjs, interleaved): at a load of 1.2–1.6 the
 * worker took 12–15 ms off a session-start that prints and added ~35 ms to one that prints nothing (which is
 * ~100 ms faster anyway); at 3 it gained nothing.
 */
export function preloadTokenCounter(): void {
  if (counter || !hasSpareCore()) return;
  counter = createCounter();
}

export function hasSpareCore(): boolean {
  const cores = availableParallelism();
  // Windows reports no load average ([0, 0, 0]): a second core is taken to be free.
  return cores > 1 && loadavg()[0]! < cores;
}

/** The counter: the preloaded worker's, else one loading the table in-process now (it is needed at once). */
export function loadTokenCounter(): Promise<TokenCounter> {
  counter ??= inProcessCounter();
  return Promise.resolve(counter);
}

/** Stop the worker (if any): a process that is done counting need not wait for it. */
export async function closeTokenCounter(): Promise<void> {
  const open = counter as (TokenCounter & { close?: () => Promise<void> }) | null;
  counter = null;
  await open?.close?.();
}

/**
 * A counter of the caller's own, apart from the shared one: on a worker in the built package (the tokenizer's
 * tables then live, and are let go, with the worker: `close` stops it), else in-process. For a long run that
 * counts a lot and then no more — `moon rlm index` counts every prompt of a history in its first pass.
 */
export function openTokenCounter(): TokenCounter & { close(): Promise<void> } {
  const opened = createCounter() as TokenCounter & { close?: () => Promise<void> };
  let closed: Promise<void> | null = null;
  return {
    count: (texts) => opened.count(texts),
    close: () => (closed ??= opened.close?.() ?? Promise.resolve()),
  };
}

function createCounter(): TokenCounter {
  if (!import.meta.url.endsWith('.js')) return inProcessCounter();
  try {
    return createWorkerCounter();
  } catch {
    return inProcessCounter();
  }
}

function inProcessCounter(): TokenCounter {
  let loaded: Promise<(text: string) => number> | null = null;
  return {
    async count(texts) {
      loaded ??= import('gpt-tokenizer/encoding/cl100k_base').then((module) => (text: string) => module.countTokens(text, COUNT_OPTIONS));
      const countOne = await loaded;
      return texts.map(countOne);
    },
  };
}

/**
 * Counting on a worker. The worker is unref'd so it never keeps the process alive — except while a count is
 * awaited (a process must not exit with its answer on the way). Should it fail, counting moves in-process.
 */
export function createWorkerCounter(): TokenCounter & { close(): Promise<void> } {
  const worker = new Worker(WORKER_URL);
  const pending = new Map<number, { resolve: (counts: number[]) => void; reject: (error: Error) => void }>();
  let next = 0;
  let broken: Error | null = null;
  const fallback = inProcessCounter();
  const failAll = (error: Error): void => {
    broken ??= error;
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
    worker.unref();
  };
  worker.on('message', (message: { id: number; counts?: number[]; error?: string }) => {
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (pending.size === 0) worker.unref();
    if (message.counts) waiter.resolve(message.counts);
    else waiter.reject(new Error(message.error ?? 'the token worker gave no counts'));
  });
  worker.on('error', (error) => failAll(error));
  worker.on('exit', (code) => failAll(new Error(`the token worker exited (${code})`)));
  // After the listeners: attaching a 'message' listener refs the worker again.
  worker.unref();
  return {
    async count(texts) {
      if (broken) return fallback.count(texts);
      const id = next++;
      worker.ref();
      try {
        return await new Promise<number[]>((resolve, reject) => {
          pending.set(id, { resolve, reject });
          worker.postMessage({ id, texts });
        });
      } catch {
        return fallback.count(texts);
      }
    },
    async close() {
      pending.clear();
      await worker.terminate();
    },
  };
}
