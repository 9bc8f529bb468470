import type { Command } from 'commander';
import { MoonError } from '../../../errors.js';
import { DEFAULT_HOST, DEFAULT_PORT } from '../../http/defaults.js';
import type { CliContext } from '../context.js';
import { readVersion } from '../version.js';

export function registerServe(program: Command, context: CliContext): void {
  program
    .command('serve')
    .description('the HTTP API (recall, sessions, entries, timeline, health, /openapi.json) until stopped')
    .option('--host <host>', `address to bind (default ${DEFAULT_HOST}; any other needs MOON_HTTP_TOKEN)`)
    .option('--port <port>', `port (default ${DEFAULT_PORT}; 0 picks a free one)`)
    .option('--allow-origin <origin>', 'a browser origin allowed to call the API, besides serve.allowed_origins (repeatable)', (value: string, list: string[] = []) => [...list, value])
    .action(async (options: { host?: string; port?: string; allowOrigin?: string[] }) => {
      const running = await startServer(context, options);
      await new Promise<void>((resolve) => {
        const stop = (): void => resolve();
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      });
      await running.close();
    });
}

export async function startServer(context: CliContext, options: { host?: string; port?: string; allowOrigin?: string[] }): Promise<{ url: string; close: () => Promise<void> }> {
  const port = options.port === undefined ? undefined : Number(options.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new MoonError('bad_usage', `--port must be a port number (0–65535), got "${options.port}"`);
  }
  for (const origin of options.allowOrigin ?? []) {
    let exact: string | null = null;
    try {
      exact = new URL(origin).origin;
    } catch {
      // not a URL
    }
    if (exact !== origin || !/^https?:/.test(origin)) throw new MoonError('bad_usage', `--allow-origin: "${origin}" is not an origin like "https://app.example.com" (http or https, host and port only, lower case, no slash)`);
  }
  const allowedOrigins = [...context.config().serve.allowed_origins, ...(options.allowOrigin ?? [])];
  const token = context.env.MOON_HTTP_TOKEN?.trim() || undefined;
  // Hono and the node adapter load only for the commands that serve.
  const { startHttpServer } = await import('../../http/serve.js');
  return startHttpServer(context.moon(), {
    host: options.host,
    port,
    token,
    allowedOrigins,
    version: readVersion(),
    onListen: (url) => context.io.err(`moon: serving ${url}${token ? ' (bearer token required)' : ''}`),
  });
}
