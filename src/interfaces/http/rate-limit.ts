import type { MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { sendError } from './errors.js';

/**
 * A token bucket per client address: `burst` requests at once, refilled at `perSecond`. Past it, 429 with
 * `Retry-After`. Enough to keep a runaway agent loop from starving the machine; not a defence against a flood.
 */
export function limitRate(options: { perSecond: number; burst: number; now?: () => number }): MiddlewareHandler {
  const now = options.now ?? Date.now;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return async (c, next) => {
    let client = 'unknown';
    try {
      client = getConnInfo(c).remote.address ?? 'unknown';
    } catch {
      // not a node-server request (tests calling app.request): one bucket for all
    }
    const at = now();
    const bucket = buckets.get(client) ?? { tokens: options.burst, at };
    bucket.tokens = Math.min(options.burst, bucket.tokens + ((at - bucket.at) / 1000) * options.perSecond);
    bucket.at = at;
    buckets.set(client, bucket);
    if (buckets.size > 10_000) buckets.clear();
    if (bucket.tokens < 1) {
      c.header('Retry-After', String(Math.max(1, Math.ceil((1 - bucket.tokens) / options.perSecond))));
      return sendError(c, 429, 'rate_limited', `more than ${options.burst} requests at once or ${options.perSecond} a second from ${client}`);
    }
    bucket.tokens -= 1;
    await next();
  };
}
