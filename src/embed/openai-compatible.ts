import { MoonError, describeError } from '../errors.js';
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

export interface ResolvedEndpoint {
  /** Where requests go. */
  url: URL;
  /** host + path of the API root, e.g. `127.0.0.1:11434/v1`: the same whether or not `/v1` was written. */
  fingerprint: string;
  /** For messages: origin + path, never credentials or query. */
  label: string;
}

/** `http://h:1` and `http://h:1/v1` both mean `http://h:1/v1/embeddings`; a URL ending in `/embeddings` is used as is. */
export function resolveEndpoint(baseUrl: string): ResolvedEndpoint {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new MoonError('bad_config', `embed.base_url is not a URL: "${baseUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new MoonError('bad_config', `embed.base_url must be an http(s) URL, got "${url.protocol}"`);
  }
  let path = url.pathname.replace(/\/+$/u, '');
  let root: string;
  if (/\/embeddings$/u.test(path)) {
    root = path.slice(0, -'/embeddings'.length);
  } else {
    root = /\/v1$/u.test(path) ? path : `${path}/v1`;
    path = `${root}/embeddings`;
  }
  const endpoint = new URL(url.href);
  endpoint.pathname = path;
  endpoint.hash = '';
  return { url: endpoint, fingerprint: `${url.host}${root}`, label: `${endpoint.origin}${endpoint.pathname}` };
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
    this.maxTries = Math.max(1, options.maxTries ?? 3);
    this.retryBaseMs = options.retryBaseMs ?? 500;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
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
  private async post(input: string[]): Promise<unknown> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const payload = JSON.stringify({ model: this.model, input });
    for (let attempt = 1; ; attempt++) {
      let status: number;
      let text: string;
      let retryAfter: string | null;
      try {
        const response = await fetch(this.endpoint.url, {
          method: 'POST',
          headers,
          body: payload,
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        status = response.status;
        retryAfter = response.headers.get('retry-after');
        text = await response.text();
      } catch (error) {
        if (isAbort(error)) {
          throw new MoonError(
            'io',
            `embedding request to ${this.endpoint.label} (model "${this.model}") timed out after ${this.timeoutMs} ms`,
            { cause: error, hint: 'raise embed.timeout_ms or lower embed.batch_size' },
          );
        }
        if (attempt < this.maxTries) {
          await sleep(this.backoff(attempt, null));
          continue;
        }
        throw new MoonError(
          'io',
          `embedding request to ${this.endpoint.label} (model "${this.model}") failed after ${attempt} ${attempt === 1 ? 'try' : 'tries'}: ${describeNetworkError(error)}`,
          { cause: error, hint: 'is the embedding server running? check embed.base_url' },
        );
      }
      if (status >= 200 && status < 300) {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw this.answerError(status, `a body that is not JSON: ${snippet(text)}`);
        }
      }
      const retryable = status === 429 || status >= 500;
      if (retryable && attempt < this.maxTries) {
        await sleep(this.backoff(attempt, retryAfter));
        continue;
      }
      throw this.httpError(status, text, attempt);
    }
  }

  private backoff(attempt: number, retryAfter: string | null): number {
    const asked = parseRetryAfter(retryAfter);
    const delay = asked ?? this.retryBaseMs * 2 ** (attempt - 1) * (1 + Math.random() * 0.2);
    return Math.min(Math.max(0, delay), this.maxRetryDelayMs);
  }

  private httpError(status: number, text: string, attempts: number): MoonError {
    const detail = errorDetail(text);
    const tries = attempts > 1 ? ` after ${attempts} tries` : '';
    const message = `embedding endpoint ${this.endpoint.label} answered HTTP ${status}${tries} for model "${this.model}": ${detail}`;
    if (status === 401 || status === 403) return new MoonError('bad_config', message, { hint: 'check embed.api_key' });
    if (status === 404) return new MoonError('bad_config', message, { hint: 'check embed.base_url and embed.model' });
    return new MoonError('io', message);
  }

  private answerError(status: number, what: string): MoonError {
    return new MoonError('io', `embedding endpoint ${this.endpoint.label} answered HTTP ${status} for model "${this.model}" with ${what}`);
  }

  private parseVectors(body: unknown, expected: number): Float32Array[] {
    const data = (body as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw this.answerError(200, `no "data" array: ${snippet(JSON.stringify(body))}`);
    if (data.length !== expected) throw this.answerError(200, `${data.length} embeddings for ${expected} inputs`);
    const slots: (Float32Array | undefined)[] = new Array<Float32Array | undefined>(expected);
    data.forEach((item: unknown, position) => {
      const record = (item ?? {}) as { index?: unknown; embedding?: unknown };
      const index = record.index === undefined ? position : record.index;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= expected || slots[index]) {
        throw this.answerError(200, `a bad or repeated data[].index: ${snippet(JSON.stringify(record.index))}`);
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
      throw this.answerError(200, `a data[].embedding that is not a list of numbers: ${snippet(JSON.stringify(embedding) ?? 'undefined')}`);
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

function isAbort(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const base = describeError(error);
  if (cause === undefined || cause === null) return base;
  const code = (cause as { code?: unknown }).code;
  return `${base} (${typeof code === 'string' ? `${code}: ` : ''}${describeError(cause)})`;
}

/** Retry-After in seconds or as an HTTP date; null when absent or unreadable. Milliseconds. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/u.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The server's own words: OpenAI-style `{ error: { message } }` / `{ error: "..." }`, else the start of the body. */
function errorDetail(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
    const error = body?.error;
    if (typeof error === 'string') return error;
    if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') {
      return (error as { message: string }).message;
    }
    if (typeof body?.message === 'string') return body.message;
    if (typeof body?.detail === 'string') return body.detail;
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.trim() === '' ? '(empty body)' : snippet(text);
}

function snippet(text: string, max = 200): string {
  const flat = text.replace(/\s+/gu, ' ').trim();
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
