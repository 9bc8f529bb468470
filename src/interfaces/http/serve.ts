import { type ServerType, serve } from '@hono/node-server';
import { type Moon, MoonError } from '../../index.js';
import { createHttpApp } from './app.js';

import { DEFAULT_HOST, DEFAULT_PORT } from './defaults.js';

export { DEFAULT_HOST, DEFAULT_PORT };

export interface ServeOptions {
  host?: string;
  port?: number;
  token?: string;
  version: string;
  onListen?: (url: string) => void;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * Start the HTTP API. Bound to loopback unless told otherwise; any other address needs MOON_HTTP_TOKEN, or it
 * is refused before a socket opens.
 */
export async function startHttpServer(moon: Moon, options: ServeOptions): Promise<{ server: ServerType; url: string; close: () => Promise<void> }> {
  const host = options.host ?? DEFAULT_HOST;
  const port = options.port ?? DEFAULT_PORT;
  if (!isLoopback(host) && !options.token) {
    throw new MoonError('bad_usage', `--host ${host} is not a loopback address: set MOON_HTTP_TOKEN so every request must carry it`, {
      hint: 'export MOON_HTTP_TOKEN=$(openssl rand -hex 32), or serve on 127.0.0.1',
    });
  }
  const app = createHttpApp(moon, { token: options.token, version: options.version });
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info) => {
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
