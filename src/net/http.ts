import { MoonError, describeError } from '../errors.js';

/**
 * The one way moon POSTs JSON to a model server (embedders, LLM providers). A request gets `timeoutMs` to answer,
 * body included; 429, 5xx and network failures are retried with exponential backoff (Retry-After honoured, in
 * seconds or as an HTTP date, every wait capped by `maxRetryDelayMs`); a timeout is not retried — the time it was
 * given is spent. Other 4xx fail at once. Messages name the endpoint (origin + path), the model and what went
 * wrong — never a credential: the values of secret headers, a URL's password and its query values are scrubbed
 * from anything the server or the network layer said. `user:password@` in the URL is sent as Basic auth.
 */
export interface PostJsonOptions {
  /** Who asks, the first word of every message: `embedding`, `anthropic`, `gemini`... */
  subject: string;
  /** The endpoint for messages; default: the URL's origin + path (no credentials, no query). */
  label?: string | undefined;
  /** Named in messages when set. */
  model?: string | undefined;
  headers?: Record<string, string> | undefined;
  /** Per attempt, reading the body included. */
  timeoutMs: number;
  /** Attempts, the first included. Default 3. */
  maxTries?: number | undefined;
  /** First backoff delay; doubles per retry (plus up to 20% jitter). Default 500 ms. */
  retryBaseMs?: number | undefined;
  /** Cap on any single wait, Retry-After included. Default 30 s. */
  maxRetryDelayMs?: number | undefined;
  hints?: PostJsonHints | undefined;
}

/** What to tell the user per kind of failure (a config key to check, usually). */
export interface PostJsonHints {
  timeout?: string | undefined;
  network?: string | undefined;
  /** 401 / 403: reported as bad_config. */
  auth?: string | undefined;
  /** 404: reported as bad_config. */
  notFound?: string | undefined;
}

export const DEFAULT_MAX_TRIES = 3;
export const DEFAULT_RETRY_BASE_MS = 500;
export const DEFAULT_MAX_RETRY_DELAY_MS = 30_000;

/** Headers whose values are credentials: never echoed in a message. */
const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'x-goog-api-key', 'api-key', 'proxy-authorization']);

/** POSTs `body` as JSON and returns the parsed JSON of the 2xx answer. Throws MoonError only. */
export async function postJson(url: URL | string, body: unknown, options: PostJsonOptions): Promise<unknown> {
  const target = new URL(url);
  const label = options.label ?? labelUrl(target);
  const maxTries = Math.max(1, options.maxTries ?? DEFAULT_MAX_TRIES);
  const retryBaseMs = options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...options.headers };
  const scrub = createScrubber(headers, moveUrlCredentials(target, headers));
  const model = options.model === undefined ? '' : ` (model "${options.model}")`;
  const forModel = options.model === undefined ? '' : ` for model "${options.model}"`;
  const payload = JSON.stringify(body);
  const waitBefore = (attempt: number, retryAfter: string | null): number =>
    computeRetryDelay(attempt, retryAfter, { retryBaseMs, maxRetryDelayMs });

  for (let attempt = 1; ; attempt++) {
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      const response = await fetch(target, { method: 'POST', headers, body: payload, signal: AbortSignal.timeout(options.timeoutMs) });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      text = await response.text();
    } catch (error) {
      if (isAbort(error)) {
        throw new MoonError('io', `${options.subject} request to ${label}${model} timed out after ${options.timeoutMs} ms`, {
          cause: error,
          hint: options.hints?.timeout,
        });
      }
      if (attempt < maxTries) {
        await sleep(waitBefore(attempt, null));
        continue;
      }
      throw new MoonError(
        'io',
        `${options.subject} request to ${label}${model} failed after ${attempt} ${attempt === 1 ? 'try' : 'tries'}: ${scrub(describeNetworkError(error))}`,
        { cause: error, hint: options.hints?.network },
      );
    }
    if (status >= 200 && status < 300) {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new MoonError(
          'io',
          `malformed response from ${label} (${options.subject}${forModel}): HTTP ${status} with a body that is not JSON: ${scrub(quoteExcerpt(text))}`,
        );
      }
    }
    if ((status === 429 || status >= 500) && attempt < maxTries) {
      await sleep(waitBefore(attempt, retryAfter));
      continue;
    }
    const tries = attempt > 1 ? ` after ${attempt} tries` : '';
    const message = `${options.subject} endpoint ${label} answered HTTP ${status}${tries}${forModel}: ${scrub(describeErrorBody(text))}`;
    if (status === 401 || status === 403) throw new MoonError('bad_config', message, { hint: options.hints?.auth });
    if (status === 404) throw new MoonError('bad_config', message, { hint: options.hints?.notFound });
    throw new MoonError('io', message);
  }
}

/** The wait before retry number `attempt` (1-based): Retry-After when the server gave one, else exponential backoff. */
export function computeRetryDelay(
  attempt: number,
  retryAfter: string | null,
  options: { retryBaseMs: number; maxRetryDelayMs: number },
): number {
  const asked = parseRetryAfter(retryAfter);
  const delay = asked ?? options.retryBaseMs * 2 ** (attempt - 1) * (1 + Math.random() * 0.2);
  return Math.min(Math.max(0, delay), options.maxRetryDelayMs);
}

/** Retry-After in seconds or as an HTTP date; null when absent or unreadable. Milliseconds. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/u.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** origin + path: what messages may say about a URL (no user, password, query or fragment). */
export function labelUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** A text for messages: whitespace collapsed, cut to `max` characters, quoted. */
export function quoteExcerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/gu, ' ').trim();
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}

/** The server's own words: `{ error: { message } }` / `{ error: "..." }` / `{ message }` / `{ detail }`, else the body's start. */
function describeErrorBody(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown } | null;
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
  return text.trim() === '' ? '(empty body)' : quoteExcerpt(text);
}

/**
 * fetch refuses a URL holding `user:password@`: they become a Basic Authorization header (unless one is set) and
 * leave the URL. Returns what must never appear in a message: the password and the query's values.
 */
function moveUrlCredentials(url: URL, headers: Record<string, string>): string[] {
  const secrets = [...url.searchParams.values()];
  if (url.username || url.password) {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    secrets.push(password, url.password);
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) {
      headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    }
    url.username = '';
    url.password = '';
  }
  return secrets;
}

/** Replaces every secret (header values — a bearer token without its `Bearer ` — and `extra`) found in a message. */
function createScrubber(headers: Record<string, string>, extra: readonly string[]): (text: string) => string {
  const secrets = Object.entries(headers)
    .filter(([name]) => SECRET_HEADERS.has(name.toLowerCase()))
    .map(([, value]) => value.replace(/^(Bearer|Basic)\s+/iu, '').trim())
    .concat(extra)
    .filter((value) => value.length >= 4)
    // Longest first, so a secret that contains another is replaced whole.
    .sort((a, b) => b.length - a.length);
  if (secrets.length === 0) return (text) => text;
  return (text) => secrets.reduce((out, secret) => out.split(secret).join('[REDACTED]'), text);
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
