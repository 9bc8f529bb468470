import type { ConfigFile } from '../config.js';
import { MoonError } from '../errors.js';
import type { Embedder, EmbedProviderName } from './embedder.js';

export type { Embedder, EmbedProviderName } from './embedder.js';

/** The `[embed]` section of the config, as parsed (defaults applied). */
export type EmbedConfig = ConfigFile['embed'];

/** What `createEmbedder` accepts: the parsed section, or a hand-written one where the defaulted keys may be left out. */
export type EmbedConfigInput = Pick<EmbedConfig, 'provider'> & Partial<Omit<EmbedConfig, 'provider'>>;

export const DEFAULT_BATCH_SIZE = 64;
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface EmbedderPlace {
  /**
   * Where models pulled by name live ($MOON_HOME/models): `transformers` without `embed.model_path` runs the model
   * `embed.model` names (or the default model) from there. Without it, model_path is required.
   */
  modelsDir?: string | undefined;
}

/**
 * The factory: the embedder `config.embed` describes, or null when semantic search is off (`provider = "none"`).
 * Required keys are checked here, with errors naming the key. Heavy model packages are never loaded here: the
 * `local` and `transformers` providers only check that their package can be found and load it on first `embed`.
 * `openai-compatible` without `embed.dims` sends one short request to learn the dimension (set `embed.dims` to skip it).
 * A model named by `embed.model` that is not in the home fails with code `model_missing` (see src/models/model-name.ts).
 */
export async function createEmbedder(config: EmbedConfigInput, place: EmbedderPlace = {}): Promise<Embedder | null> {
  const provider: EmbedProviderName = config.provider;
  const batchSize = config.batch_size ?? DEFAULT_BATCH_SIZE;
  const timeoutMs = config.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(batchSize) || batchSize <= 0) {
    throw new MoonError('bad_config', `embed.batch_size must be a positive integer, got ${String(batchSize)}`);
  }
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new MoonError('bad_config', `embed.timeout_ms must be a positive number, got ${String(timeoutMs)}`);
  }
  switch (provider) {
    case 'none': {
      const { createNoneEmbedder } = await import('./none.js');
      return createNoneEmbedder();
    }
    case 'openai-compatible': {
      if (!config.base_url) throw requiredKey('base_url', provider, 'e.g. "http://127.0.0.1:11434/v1" for Ollama');
      if (!config.model) throw requiredKey('model', provider, 'the model name the endpoint expects, e.g. "nomic-embed-text"');
      const { OpenAICompatibleEmbedder } = await import('./openai-compatible.js');
      const embedder = new OpenAICompatibleEmbedder({
        baseUrl: config.base_url,
        model: config.model,
        apiKey: config.api_key,
        dims: config.dims,
        batchSize,
        timeoutMs,
      });
      if (config.dims === undefined) await embedder.probeDims();
      return embedder;
    }
    case 'local': {
      const { createLocalEmbedder } = await import('./local.js');
      return createLocalEmbedder({ model: config.model, dims: config.dims, batchSize });
    }
    case 'transformers': {
      const { createTransformersEmbedder } = await import('./transformers.js');
      if (config.model_path) {
        return createTransformersEmbedder({ modelPath: config.model_path, model: config.model, dims: config.dims, batchSize });
      }
      if (place.modelsDir === undefined) {
        throw requiredKey('model_path', provider, 'a local directory holding config.json, tokenizer.json and onnx/model.onnx');
      }
      const { locateNamedModel, modelMissingError } = await import('../models/model-name.js');
      const named = locateNamedModel(place.modelsDir, config.model);
      if (!named.present) throw modelMissingError(named);
      const origin = named.spec === undefined ? `the default model "${named.name}"` : `embed.model = "${named.spec}"`;
      return createTransformersEmbedder({ modelPath: named.dir, origin, model: named.name, dims: config.dims, batchSize });
    }
    default: {
      const never: never = provider;
      throw new MoonError('bad_config', `embed.provider: unknown provider "${String(never)}" (none, local, openai-compatible, transformers)`);
    }
  }
}

function requiredKey(key: string, provider: EmbedProviderName, what: string): MoonError {
  return new MoonError('bad_config', `embed.${key} is required when embed.provider = "${provider}"`, { hint: what });
}

/**
 * The text an embedder sees: whitespace runs collapsed to one space, trimmed, and cut to `maxChars` UTF-16 units
 * (never splitting a surrogate pair). Embedding models read a few hundred tokens at most; the rest is cost.
 */
export function prepareEmbeddingText(text: string, maxChars = 2000): string {
  const collapsed = text.replace(/\s+/gu, ' ').trim();
  if (maxChars <= 0) return '';
  if (collapsed.length <= maxChars) return collapsed;
  let end = maxChars;
  const last = collapsed.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return collapsed.slice(0, end).trimEnd();
}

/** Scales `vector` in place to unit length (a zero vector stays zero) and returns it. */
export function l2Normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  if (sum > 0) {
    const scale = 1 / Math.sqrt(sum);
    for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
  }
  return vector;
}

/** Cosine similarity of two vectors of equal length (their dot product when both are unit length). */
export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new MoonError('internal', `cosine of vectors of different lengths (${a.length} vs ${b.length})`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Splits `items` into consecutive slices of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new MoonError('bad_config', `embed.batch_size must be a positive integer, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Whether a failed `import()` / `require.resolve` means "the package itself is not installed". */
export function isMissingPackage(error: unknown, pkg: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const message = error instanceof Error ? error.message : String(error);
  // "Cannot find package '<pkg>' imported from ..." / "Cannot find module '<pkg>'" — not a missing file inside it.
  return message.includes(`'${pkg}'`) || message.includes(`"${pkg}"`);
}
