import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { sendError } from './errors.js';

/** The cookie a browser keeps the token in once it opened the web view with `/?token=…` (HttpOnly, SameSite=Strict). */
export const TOKEN_COOKIE = 'moon_token';

/**
 * `Authorization: Bearer <MOON_HTTP_TOKEN>` on every request once a token is set — loopback clients included.
 * A browser cannot add that header to the page it opens, so the web view is opened once as `/?token=<token>`: the
 * token is checked, kept in an HttpOnly, SameSite=Strict cookie that no script reads and no other site's page
 * sends, and the browser is sent on to `/` so the token leaves the address bar and the history. Compared in
 * constant time: both sides are hashed first, so neither their lengths nor their bytes leak.
 */
export function requireToken(token: string): MiddlewareHandler {
  const expected = digest(token);
  const matches = (given: string | undefined): boolean => given !== undefined && given !== '' && timingSafeEqual(digest(given), expected);
  return async (c, next) => {
    const url = new URL(c.req.url);
    const offered = url.pathname === '/' && c.req.method === 'GET' ? (url.searchParams.get('token') ?? undefined) : undefined;
    if (offered !== undefined) {
      if (!matches(offered)) return sendError(c, 401, 'unauthorized', 'the token is wrong');
      setCookie(c, TOKEN_COOKIE, token, { httpOnly: true, sameSite: 'Strict', path: '/', secure: url.protocol === 'https:' });
      return c.redirect('/', 303);
    }
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
    if (match ? matches(match[1]) : matches(getCookie(c, TOKEN_COOKIE))) {
      await next();
      return;
    }
    c.header('WWW-Authenticate', 'Bearer realm="moon"');
    return sendError(
      c,
      401,
      'unauthorized',
      match ? 'the bearer token is wrong' : 'this server needs `Authorization: Bearer <MOON_HTTP_TOKEN>` (a browser: open /?token=<MOON_HTTP_TOKEN> once)',
    );
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
