import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { sendError } from './errors.js';

/**
 * `Authorization: Bearer <MOON_HTTP_TOKEN>` on every request once a token is set — loopback clients included.
 * Compared in constant time: both sides are hashed first, so neither their lengths nor their bytes leak.
 */
export function requireToken(token: string): MiddlewareHandler {
  const expected = digest(token);
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      c.header('WWW-Authenticate', 'Bearer realm="moon"');
      return sendError(c, 401, 'unauthorized', match ? 'the bearer token is wrong' : 'this server needs `Authorization: Bearer <MOON_HTTP_TOKEN>`');
    }
    await next();
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
