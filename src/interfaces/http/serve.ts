import { type ServerType, serve } from '@hono/node-server';
import { type Moon, MoonError } from '../../index.js';
import { createHttpApp } from './app.js';

import { DEFAULT_HOST, DEFAULT_PORT } from './defaults.js';
import { TOKEN_HINT, checkToken, isLoopback } from './guard.js';

export { DEFAULT_HOST, DEFAULT_PORT, isLoopback };

export interface ServeOptions {
  host?: string;
  port?: number;
  token?: string;
  /** Browser origins allowed to call the server (serve.allowed_origins). */
  allowedOrigins?: readonly string[];
  version: string;
  onListen?: (url: string) => void;
}

/**
 * Start the HTTP API. Bound to loopback unless told otherwise; any other address needs MOON_HTTP_TOKEN, or it
 * is refused before a socket opens, and so is a token too short to guard anything. Every request then passes
 * the guard (guard.ts): this server's Host, no foreign browser origin, JSON bodies.
 */
export async function startHttpServer(moon: Moon, options: ServeOptions): Promise<{ server: ServerType; url: string; close: () => Promise<void> }> {
  const host = options.host ?? DEFAULT_HOST;
  const port = options.port ?? DEFAULT_PORT;
  if (!isLoopback(host) && !options.token) {
    throw new MoonError('bad_usage', `--host ${host} is not a loopback address: set MOON_HTTP_TOKEN so every request must carry it`, {
      hint: `${TOKEN_HINT}, or serve on 127.0.0.1`,
    });
  }
  if (options.token !== undefined) checkToken(options.token);
  // The port the socket got (--port 0 picks one): known once listening, which is before any request.
  let listening: number | null = port === 0 ? null : port;
  const app = createHttpApp(moon, { token: options.token, version: options.version, host, port: () => listening, allowedOrigins: options.allowedOrigins });
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info) => {
      listening = info.port;
      const url = `http://${info.family === 'IPv6' ? `[${info.address}]` : info.address}:${info.port}`;
      options.onListen?.(url);
      resolve({
        server,
        url,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new MoonError('io', `cannot listen on ${host}:${port}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message}`, { hint: 'pick another --port' })),
    );
  });
}
