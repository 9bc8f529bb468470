import { MoonError } from '../errors.js';
import { resolveEndpoint as resolveApiEndpoint, type ResolvedEndpoint } from '../net/endpoint.js';
import { DEFAULT_MAX_RETRY_DELAY_MS, DEFAULT_MAX_TRIES, DEFAULT_RETRY_BASE_MS, parseRetryAfter, postJson, quoteExcerpt } from '../net/http.js';
import type { Embedder } from './embedder.js';
import { chunk, DEFAULT_BATCH_SIZE, DEFAULT_TIMEOUT_MS, l2Normalize } from './index.js';

/**
 * Any endpoint that speaks OpenAI's `POST /v1/embeddings`: OpenAI itself, Ollama, LM Studio, llama.cpp's server,
 * vLLM, LiteLLM... Sends `{ model, input: [...] }` (with `Authorization: Bearer <key>` when a key is set) in batches,
 * retries 429 / 5xx / network failures with exponential backoff (honouring Retry-After), and checks every answer:
 * one vector per input, in `index` order, each of the expected dimension.
 */
export interface OpenAICompatibleOptions {
  /** `http://host:port`, `http://host:port/v1`, or the full `.../embeddings` URL. */
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  /** Expected vector length; when absent it is learnt from the first answer (see `probeDims`). */
  dims?: number | undefined;
  batchSize?: number | undefined;
  /** Per request, including reading the body. A timed-out request is not retried. */
  timeoutMs?: number | undefined;
  /** Attempts per batch (first try included). Default 3. */
  maxTries?: number | undefined;
  /** First backoff delay; doubles per retry. Default 500 ms. */
  retryBaseMs?: number | undefined;
  /** Cap on any single wait, Retry-After included. Default 30 s. */
  maxRetryDelayMs?: number | undefined;
}

export type { ResolvedEndpoint };
export { parseRetryAfter };

/** `http://h:1` and `http://h:1/v1` both mean `http://h:1/v1/embeddings`; a URL ending in `/embeddings` is used as is. */
export function resolveEndpoint(baseUrl: string): ResolvedEndpoint {
  return resolveApiEndpoint(baseUrl, { configKey: 'embed.base_url', version: '/v1', operation: '/embeddings' });
}

export class OpenAICompatibleEmbedder implements Embedder {
  readonly model: string;
  readonly endpoint: ResolvedEndpoint;
  private readonly apiKey: string | undefined;
  private readonly batchSize: number;
  private readonly timeoutMs: number;
  private readonly maxTries: number;
  private readonly retryBaseMs: number;
  private readonly maxRetryDelayMs: number;
  /** Set from the config, or learnt from the first answer. */
  private knownDims: number | undefined;
  /** Whether `knownDims` came from `embed.dims` (for messages). */
  private readonly dimsConfigured: boolean;

  constructor(options: OpenAICompatibleOptions) {
    if (!options.model) throw new MoonError('bad_config', 'embed.model is required when embed.provider = "openai-compatible"');
    this.endpoint = resolveEndpoint(options.baseUrl);
    this.model = options.model;
    this.apiKey = options.apiKey || undefined;
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxTries = Math.max(1, options.maxTries ?? DEFAULT_MAX_TRIES);
    this.retryBaseMs = options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
    this.knownDims = options.dims;
    this.dimsConfigured = options.dims !== undefined;
  }

  get dims(): number {
    if (this.knownDims === undefined) {
      throw new MoonError('internal', `dimension of "${this.model}" not known yet: call probeDims() or set embed.dims`);
    }
    return this.knownDims;
  }

  get id(): string {
    return `openai-compatible:${this.endpoint.fingerprint}:${this.model}:${this.dims}`;
  }

  /** Learns (or checks) the dimension with one one-text request. Returns it. */
  async probeDims(): Promise<number> {
    await this.embed(['dimension probe']);
    return this.dims;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const batch of chunk(texts, this.batchSize)) {
      // Most servers reject an empty string; a blank embeds the same as a space.
      out.push(...(await this.embedBatch(batch.map((text) => (text === '' ? ' ' : text)))));
    }
    return out;
  }

  private async embedBatch(input: string[]): Promise<Float32Array[]> {
    return this.parseVectors(await this.post(input), input.length);
  }

  /** POSTs one batch; returns the parsed 2xx body. Retries what is worth retrying. */
  private post(input: string[]): Promise<unknown> {
    return postJson(this.endpoint.url, { model: this.model, input }, {
      subject: 'embedding',
      label: this.endpoint.label,
      model: this.model,
      headers: this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {},
      timeoutMs: this.timeoutMs,
      maxTries: this.maxTries,
      retryBaseMs: this.retryBaseMs,
      maxRetryDelayMs: this.maxRetryDelayMs,
      hints: {
        timeout: 'raise embed.timeout_ms or lower embed.batch_size',
        network: 'is the embedding server running? check embed.base_url',
        auth: 'check embed.api_key',
        notFound: 'check embed.base_url and embed.model',
      },
    });
  }

  private answerError(status: number, what: string): MoonError {
    return new MoonError('io', `embedding endpoint ${this.endpoint.label} answered HTTP ${status} for model "${this.model}" with ${what}`);
  }

  private parseVectors(body: unknown, expected: number): Float32Array[] {
    const data = (body as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw this.answerError(200, `no "data" array: ${quoteExcerpt(JSON.stringify(body))}`);
    if (data.length !== expected) throw this.answerError(200, `${data.length} embeddings for ${expected} inputs`);
    const slots: (Float32Array | undefined)[] = new Array<Float32Array | undefined>(expected);
    data.forEach((item: unknown, position) => {
      const record = (item ?? {}) as { index?: unknown; embedding?: unknown };
      const index = record.index === undefined ? position : record.index;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= expected || slots[index]) {
        throw this.answerError(200, `a bad or repeated data[].index: ${quoteExcerpt(JSON.stringify(record.index))}`);
      }
      slots[index] = this.toVector(record.embedding);
    });
    return slots as Float32Array[];
  }

  private toVector(embedding: unknown): Float32Array {
    let vector: Float32Array;
    if (Array.isArray(embedding)) {
      vector = Float32Array.from(embedding as number[]);
      if (embedding.some((value) => typeof value !== 'number')) throw this.answerError(200, 'an embedding holding non-numbers');
    } else if (typeof embedding === 'string') {
      // encoding_format = "base64": little-endian float32s.
      const bytes = Buffer.from(embedding, 'base64');
      if (bytes.length % 4 !== 0) throw this.answerError(200, 'a base64 embedding whose length is not a multiple of 4 bytes');
      vector = new Float32Array(bytes.length / 4);
      for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
    } else {
      throw this.answerError(200, `a data[].embedding that is not a list of numbers: ${quoteExcerpt(JSON.stringify(embedding) ?? 'undefined')}`);
    }
    if (vector.length === 0) throw this.answerError(200, 'an empty embedding');
    if (this.knownDims === undefined) this.knownDims = vector.length;
    if (vector.length !== this.knownDims) {
      throw new MoonError(
        'bad_config',
        `embedding model "${this.model}" returned ${vector.length}-dimensional vectors, expected ${this.knownDims}` +
          (this.dimsConfigured ? ' (embed.dims)' : ' (learnt from its first answer)'),
        { hint: this.dimsConfigured ? `set embed.dims = ${vector.length} or pick the model embed.dims was meant for` : undefined },
      );
    }
    for (const value of vector) {
      if (!Number.isFinite(value)) throw this.answerError(200, 'an embedding holding NaN or Infinity');
    }
    return l2Normalize(vector);
  }
}
