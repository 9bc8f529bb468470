import type { MiddlewareHandler } from 'hono';
import { MoonError } from '../../index.js';
import { sendError } from './errors.js';

/**
 * Who may speak to a local HTTP server: the local user, not any web page their browser opens. One pure check
 * (checkRequest) and its Hono middleware (guardRequests), for `moon serve` and any later HTTP entry point:
 * - the Host header names this server (its bound address, or a loopback name for it, with its port): a page
 *   that rebinds its own name to 127.0.0.1 sends its own name, and is refused (421);
 * - a request from a browser page of another origin (Origin, or Sec-Fetch-Site: cross-site) is refused (403)
 *   unless serve.allowed_origins lists that origin;
 * - a state-changing method carries an application/json body (415 otherwise): a browser sends a form or
 *   text/plain body without asking first, never a JSON one;
 * - OPTIONS is answered (204), with CORS headers only for a listed origin.
 */
export interface GuardPolicy {
  /** The address the server is bound to (`127.0.0.1`, `::1`, `localhost`, `0.0.0.0`, a LAN address). */
  host: string;
  /** The port it listens on; null: any (an app not behind a socket of its own, e.g. in-process tests). */
  port: () => number | null;
  /** Origins (`https://app.example.com`) a browser page may call from; exact, after normalization. */
  allowedOrigins: readonly string[];
  /** Whether requests must carry the bearer token (needed for a non-loopback address). */
  token: boolean;
}

export interface RequestFacts {
  method: string;
  /** The Host header (or the URL's host when a request has none). */
  host: string | null;
  origin: string | null;
  secFetchSite: string | null;
  contentType: string | null;
}

export type GuardVerdict =
  | { ok: true; preflight: boolean; cors: Record<string, string> | null }
  | { ok: false; status: 403 | 415 | 421; code: string; message: string; hint?: string };

/** A token shorter than this is refused at start: a guessable token guards nothing. */
export const MIN_TOKEN_CHARS = 32;
export const TOKEN_HINT = 'make one with: export MOON_HTTP_TOKEN=$(openssl rand -hex 32)';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);
const ALLOWED_METHODS = 'GET, POST, OPTIONS';
const ALLOWED_HEADERS = 'Authorization, Content-Type';

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/** A token is long enough to guard a server, or a MoonError saying how to make one. */
export function checkToken(token: string): void {
  if (token.length < MIN_TOKEN_CHARS) {
    throw new MoonError('bad_usage', `MOON_HTTP_TOKEN is ${token.length} characters; a token needs at least ${MIN_TOKEN_CHARS}`, { hint: TOKEN_HINT });
  }
}

/** `https://App.Example.com:443/` → `https://app.example.com`; null when it is not an http(s) origin. */
export function normalizeOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) return null;
  return url.origin;
}

/** The Host names this server answers to: its bound address and, on loopback, every loopback name. */
function listHostNames(host: string): string[] {
  const bound = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const names = isLoopback(host) ? [...LOOPBACK_NAMES, bound] : [bound];
  return [...new Set(names.map((name) => name.toLowerCase()))];
}

/** `Host` as name and port (`[::1]:7077` → `[::1]`, 7077); null when malformed. */
function splitHost(value: string): { name: string; port: number | null } | null {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!match) return null;
  return { name: match[1]!.toLowerCase(), port: match[2] === undefined ? null : Number(match[2]) };
}

function isOwnHost(value: string | null, policy: GuardPolicy): boolean {
  if (value === null) return false;
  const parsed = splitHost(value);
  if (!parsed) return false;
  const port = policy.port();
  if (port !== null && parsed.port !== port) return false;
  // Bound to every address with a token: any name may reach it, and the token decides.
  if (WILDCARD.has(policy.host) && policy.token) return true;
  return listHostNames(policy.host).includes(parsed.name);
}

function isOwnOrigin(origin: string, policy: GuardPolicy): boolean {
  const normalized = normalizeOrigin(origin);
  if (!normalized) return false;
  const url = new URL(normalized);
  if (url.protocol !== 'http:') return false;
  return isOwnHost(url.host || null, policy);
}

function clip(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
}

/** The verdict on one request, from its method and headers alone. */
export function checkRequest(facts: RequestFacts, policy: GuardPolicy): GuardVerdict {
  if (!isOwnHost(facts.host, policy)) {
    return {
      ok: false,
      status: 421,
      code: 'misdirected',
      message: `Host ${facts.host === null ? '(none)' : clip(facts.host)} is not this server`,
      hint: 'call it by the address it listens on (or localhost / 127.0.0.1 / [::1] when that is loopback)',
    };
  }
  const method = facts.method.toUpperCase();
  const allowed = facts.origin !== null ? normalizeOrigin(facts.origin) : null;
  const listed = allowed !== null && policy.allowedOrigins.includes(allowed);
  const cors = listed
    ? { 'Access-Control-Allow-Origin': allowed, Vary: 'Origin', 'Access-Control-Allow-Methods': ALLOWED_METHODS, 'Access-Control-Allow-Headers': ALLOWED_HEADERS, 'Access-Control-Max-Age': '600' }
    : null;
  if (method === 'OPTIONS') return { ok: true, preflight: true, cors };
  const foreign = facts.origin !== null ? !isOwnOrigin(facts.origin, policy) : facts.secFetchSite?.toLowerCase() === 'cross-site';
  if (foreign && !listed) {
    return {
      ok: false,
      status: 403,
      code: 'forbidden_origin',
      message: facts.origin !== null ? `requests from origin ${clip(facts.origin)} are not allowed` : 'cross-site requests are not allowed',
      hint: 'list the origin in serve.allowed_origins (moon.toml) or MOON_SERVE_ALLOWED_ORIGINS to allow it',
    };
  }
  if (STATE_CHANGING.has(method)) {
    const type = (facts.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') {
      return {
        ok: false,
        status: 415,
        code: 'unsupported_media_type',
        message: `${method} bodies must be application/json, got ${facts.contentType === null ? 'none' : clip(facts.contentType)}`,
        hint: 'send Content-Type: application/json',
      };
    }
  }
  return { ok: true, preflight: false, cors };
}

/** checkRequest as Hono middleware: refusals are JSON errors; preflights end here; listed origins get CORS headers. */
export function guardRequests(policy: GuardPolicy): MiddlewareHandler {
  return async (c, next) => {
    let host = c.req.header('host') ?? null;
    if (host === null) {
      try {
        host = new URL(c.req.url).host || null;
      } catch {
        host = null;
      }
    }
    const verdict = checkRequest(
      {
        method: c.req.method,
        host,
        origin: c.req.header('origin') ?? null,
        secFetchSite: c.req.header('sec-fetch-site') ?? null,
        contentType: c.req.header('content-type') ?? null,
      },
      policy,
    );
    if (!verdict.ok) return sendError(c, verdict.status, verdict.code, verdict.message, verdict.hint);
    if (verdict.preflight) return c.body(null, 204, verdict.cors ?? {});
    await next();
    for (const [name, value] of Object.entries(verdict.cors ?? {})) c.res.headers.set(name, value);
  };
}
