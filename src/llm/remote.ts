import type { LlmProviderName } from '../config.js';
import { MoonError } from '../errors.js';
import { resolveEndpoint, type ResolvedEndpoint } from '../net/endpoint.js';
import { postJson, quoteExcerpt } from '../net/http.js';
import { DEFAULT_MAX_TOKENS, type CompleteOptions } from './provider.js';

/** What every provider that speaks a vendor's HTTP API is built from (the `[distill]` keys, resolved). */
export interface RemoteProviderOptions {
  model: string;
  /** Overrides the vendor's default (distill.base_url): with or without the version segment, or the full URL. */
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  /** The NAME of the variable the key came from, for hints. Never the key. */
  apiKeyEnv?: string | undefined;
  /** Per request (distill.timeout_ms); `CompleteOptions.timeoutMs` overrides it per call. */
  timeoutMs?: number | undefined;
  /** Attempts per request, the first included (distill.max_tries). */
  maxTries?: number | undefined;
  /** First backoff delay; doubles per retry. */
  retryBaseMs?: number | undefined;
  /** Cap on any single wait, Retry-After included. */
  maxRetryDelayMs?: number | undefined;
}

export const DEFAULT_LLM_TIMEOUT_MS = 60_000;

/** The endpoint a provider posts to: `baseUrl` when set, else the vendor's own. */
export function resolveModelEndpoint(options: RemoteProviderOptions, vendorBase: string, version: string, operation: string): ResolvedEndpoint {
  return resolveEndpoint(options.baseUrl ?? vendorBase, { configKey: 'distill.base_url', version, operation });
}

/** One request to a model: postJson with distill's timeout, retries and hints. Returns the parsed body. */
export function postToModel(
  provider: LlmProviderName,
  endpoint: ResolvedEndpoint,
  body: unknown,
  headers: Record<string, string>,
  options: RemoteProviderOptions,
  call: CompleteOptions,
): Promise<unknown> {
  return postJson(endpoint.url, body, {
    subject: provider,
    label: endpoint.label,
    model: options.model,
    headers,
    timeoutMs: call.timeoutMs ?? options.timeoutMs ?? DEFAULT_LLM_TIMEOUT_MS,
    maxTries: options.maxTries,
    retryBaseMs: options.retryBaseMs,
    maxRetryDelayMs: options.maxRetryDelayMs,
    hints: {
      timeout: 'raise distill.timeout_ms, or ask for a shorter answer',
      network: `is ${endpoint.url.host} reachable? check distill.base_url`,
      auth: options.apiKeyEnv
        ? `check the key in $${options.apiKeyEnv} (distill.api_key_env)`
        : 'set distill.api_key_env to the name of the variable holding the key',
      notFound: 'check distill.base_url and distill.model',
    },
  });
}

/** An answer that arrived (HTTP 2xx, JSON) but cannot be used: names the provider, the model and what was wrong. */
export function createAnswerError(provider: LlmProviderName, model: string, what: string): MoonError {
  return new MoonError('io', `${provider} model "${model}" gave no usable answer: ${what}`);
}

/** Whatever a field held, short and quoted, for an answer error. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  return quoteExcerpt(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)), 120);
}

/**
 * The answer's text, checked: a string with something in it, trimmed. With `json` asked, a Markdown fence around
 * the object is taken off (models without a JSON mode sometimes add one); parsing stays the caller's.
 */
export function checkAnswerText(provider: LlmProviderName, model: string, text: unknown, where: string, json: boolean): string {
  if (typeof text !== 'string') throw createAnswerError(provider, model, `${where} is not text: ${describeValue(text)}`);
  const trimmed = text.trim();
  if (trimmed === '') throw createAnswerError(provider, model, `${where} is empty`);
  return json ? unfenceJson(trimmed) : trimmed;
}

/** An answer cut at the token limit is kept as text, but a cut JSON object is no answer at all. */
export function checkNotCut(provider: LlmProviderName, model: string, cut: boolean, options: CompleteOptions, reason: string): void {
  if (!cut || !options.json) return;
  throw createAnswerError(
    provider,
    model,
    `the JSON answer was cut off at the token limit (${reason}, max ${options.maxTokens ?? DEFAULT_MAX_TOKENS} tokens): ask for a larger maxTokens or a shorter answer`,
  );
}

function unfenceJson(text: string): string {
  const fenced = /^```[a-zA-Z]*\s*\n([\s\S]*?)\n?```$/u.exec(text);
  return fenced ? fenced[1]!.trim() : text;
}
