import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { MoonError, describeError } from '../errors.js';
import type { Embedder } from './embedder.js';
import { chunk, DEFAULT_BATCH_SIZE, isMissingPackage, l2Normalize } from './index.js';
import { LazyModel } from './lazy-model.js';
import { findOnnxDtype, readHiddenSize } from '../models/model-files.js';

/**
 * `embed.provider = "transformers"`: any sentence-embedding model exported to ONNX, run by the optional peer
 * `@huggingface/transformers` (an optional peer dependency the user installs; moon's own tests run it as a dev
 * dependency) from a local directory — a model
 * pulled by name into $MOON_HOME/models (`moon models pull`, src/models/), or any folder `embed.model_path` names — laid out
 * the Hugging Face way: `config.json`, `tokenizer.json` (+ `tokenizer_config.json`), `onnx/model.onnx` (or a quantised
 * `onnx/model_quantized.onnx`, `model_fp16.onnx`, ...). Remote models are switched off: nothing is downloaded.
 * Feature-extraction pipeline, mean pooling, L2-normalised.
 */
export const TRANSFORMERS_PACKAGE = '@huggingface/transformers';
export const TRANSFORMERS_MISSING =
  'embed.provider = "transformers" needs the optional package @huggingface/transformers: npm install @huggingface/transformers';

export interface TransformersEmbedderOptions {
  /** Local model directory (`embed.model_path`, or a pulled model's folder); `~` and relative paths are resolved. */
  modelPath: string;
  /** How errors name where the folder came from; default `embed.model_path`. */
  origin?: string | undefined;
  /** Label for the fingerprint (`embed.model`); default the directory's name. */
  model?: string | undefined;
  /** Expected dimension (`embed.dims`); default the config's hidden size. */
  dims?: number | undefined;
  batchSize?: number | undefined;
}

export interface LocalOnnxModel {
  /** Absolute model directory. */
  dir: string;
  /** transformers.js dtype of the ONNX file found. */
  dtype: string;
  /** `hidden_size` (or `d_model` / `dim`) from config.json, when present. */
  hiddenSize: number | undefined;
}

/**
 * Checks the directory the way transformers.js will read it; every error names where the folder came from (`origin`:
 * `embed.model_path`, or the pulled model `embed.model` names).
 */
export function inspectModelDir(modelPath: string, origin = 'embed.model_path'): LocalOnnxModel {
  const dir = resolve(modelPath === '~' || modelPath.startsWith(`~${sep}`) || modelPath.startsWith('~/') ? join(homedir(), modelPath.slice(1)) : modelPath);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new MoonError('bad_config', `${origin}: ${dir} does not exist`, {
      hint: 'point it at a local ONNX model directory (config.json, tokenizer.json, onnx/model.onnx)',
    });
  }
  if (!isDir) throw new MoonError('bad_config', `${origin}: ${dir} is not a directory`);
  const configFile = join(dir, 'config.json');
  if (!existsSync(configFile)) throw new MoonError('bad_config', `${origin}: ${dir} has no config.json`);
  if (!existsSync(join(dir, 'tokenizer.json'))) throw new MoonError('bad_config', `${origin}: ${dir} has no tokenizer.json`);
  let onnxFiles: string[] = [];
  try {
    onnxFiles = readdirSync(join(dir, 'onnx'));
  } catch {
    // reported below
  }
  const dtype = findOnnxDtype(onnxFiles);
  if (!dtype) {
    throw new MoonError('bad_config', `${origin}: ${dir} has no onnx/model.onnx (nor a quantised onnx/model_*.onnx)`, {
      hint: 'export the model with Optimum (optimum-cli export onnx ...) and keep the onnx/ subfolder',
    });
  }
  let hiddenSize: number | undefined;
  try {
    hiddenSize = readHiddenSize(JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>);
  } catch (error) {
    throw new MoonError('bad_config', `${origin}: ${configFile} is not valid JSON: ${describeError(error)}`);
  }
  return { dir, dtype, hiddenSize };
}

/** Throws the install message when the package cannot be found from moon. */
export function assertTransformersInstalled(): void {
  try {
    createRequire(import.meta.url).resolve(TRANSFORMERS_PACKAGE);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return; // present, just ESM-only
    throw new MoonError('bad_config', TRANSFORMERS_MISSING, { cause: error });
  }
}

/** Whether the optional package can be found from moon (moon doctor asks). */
export function isTransformersInstalled(): boolean {
  try {
    assertTransformersInstalled();
    return true;
  } catch {
    return false;
  }
}

export function createTransformersEmbedder(options: TransformersEmbedderOptions): TransformersEmbedder {
  const origin = options.origin ?? 'embed.model_path';
  const model = inspectModelDir(options.modelPath, origin);
  const dims = options.dims ?? model.hiddenSize;
  if (dims === undefined) {
    throw new MoonError(
      'bad_config',
      `embed.dims is required: ${join(model.dir, 'config.json')} states no hidden_size for ${origin}`,
    );
  }
  assertTransformersInstalled();
  return new TransformersEmbedder(model, dims, options.model ?? basename(model.dir), options.batchSize ?? DEFAULT_BATCH_SIZE, origin);
}

interface FeatureTensor {
  dims: number[];
  data: ArrayLike<number>;
  dispose?(): void;
}
type Extractor = ((texts: string[], options: { pooling: 'mean'; normalize: boolean }) => Promise<FeatureTensor>) & {
  dispose?(): Promise<void>;
};
interface TransformersModule {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean; localModelPath: string };
  pipeline(task: 'feature-extraction', model: string, options: Record<string, unknown>): Promise<Extractor>;
}

export class TransformersEmbedder implements Embedder {
  readonly id: string;
  private readonly extractor: LazyModel<Extractor>;

  constructor(
    readonly model: LocalOnnxModel,
    readonly dims: number,
    readonly label: string,
    private readonly batchSize: number,
    private readonly origin = 'embed.model_path',
  ) {
    this.id = `transformers:${label}:${model.dtype}:${dims}`;
    this.extractor = new LazyModel(() => loadPipeline(model, origin));
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.extractor.enqueue(() => this.embedNow(texts));
  }

  close(): Promise<void> {
    return this.extractor.release((extractor) => extractor.dispose?.());
  }

  private async embedNow(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const extractor = await this.extractor.load();
    const out: Float32Array[] = [];
    for (const batch of chunk(texts, this.batchSize)) {
      let tensor: FeatureTensor;
      try {
        tensor = await extractor(
          batch.map((text) => (text === '' ? ' ' : text)),
          { pooling: 'mean', normalize: true },
        );
      } catch (error) {
        throw new MoonError('internal', `model at ${this.model.dir} failed on a batch of ${batch.length}: ${describeError(error)}`, {
          cause: error,
        });
      }
      const [rows, width] = tensor.dims;
      if (rows !== batch.length || width === undefined) {
        throw new MoonError('internal', `model at ${this.model.dir} returned a [${tensor.dims.join(', ')}] tensor for ${batch.length} texts`);
      }
      if (width !== this.dims) {
        throw new MoonError('bad_config', `model at ${this.origin} ${this.model.dir} makes ${width}-dimensional vectors, expected ${this.dims}`, {
          hint: `set embed.dims = ${width}`,
        });
      }
      for (let row = 0; row < rows; row++) {
        const vector = new Float32Array(width);
        for (let i = 0; i < width; i++) vector[i] = tensor.data[row * width + i]!;
        out.push(l2Normalize(vector));
      }
      tensor.dispose?.();
    }
    return out;
  }
}

async function loadPipeline(model: LocalOnnxModel, origin: string): Promise<Extractor> {
  let transformers: TransformersModule;
  try {
    const specifier: string = TRANSFORMERS_PACKAGE; // a variable: TypeScript must not look for its types
    transformers = (await import(specifier)) as TransformersModule;
  } catch (error) {
    if (isMissingPackage(error, TRANSFORMERS_PACKAGE)) throw new MoonError('bad_config', TRANSFORMERS_MISSING, { cause: error });
    throw new MoonError('io', `could not load ${TRANSFORMERS_PACKAGE}: ${describeError(error)}`, { cause: error });
  }
  transformers.env.allowRemoteModels = false;
  transformers.env.allowLocalModels = true;
  transformers.env.localModelPath = dirname(model.dir) + sep;
  try {
    return await transformers.pipeline('feature-extraction', basename(model.dir), { dtype: model.dtype, local_files_only: true });
  } catch (error) {
    throw new MoonError('bad_config', `${origin}: could not load the model at ${model.dir}: ${describeError(error)}`, { cause: error });
  }
}
