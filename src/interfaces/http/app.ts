import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { type Moon, MoonError, parseRecallRequest } from '../../index.js';
import { requireToken } from './auth.js';
import { sendError, sendThrown } from './errors.js';
import { buildOpenApi } from './openapi.js';
import { limitRate } from './rate-limit.js';

/**
 * The HTTP API (`moon serve`): the same library calls as the CLI and MCP, as JSON. Every result is made safe to
 * hand an agent (Moon.makeSafe) and marked as quoted history; every error is JSON with the status that fits.
 */
export interface HttpOptions {
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  token?: string;
  maxBodyBytes?: number;
  rate?: { perSecond: number; burst: number };
  version: string;
}

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
export const DEFAULT_RATE = { perSecond: 20, burst: 40 };

export function createHttpApp(moon: Moon, options: HttpOptions): Hono {
  const app = new Hono();
  app.onError((error, c) => sendThrown(c, error));
  app.notFound((c) => sendError(c, 404, 'not_found', `no route ${c.req.method} ${new URL(c.req.url).pathname}`, 'see GET /openapi.json'));
  if (options.token) app.use('*', requireToken(options.token));
  app.use('*', limitRate(options.rate ?? DEFAULT_RATE));
  app.use(
    '*',
    bodyLimit({
      maxSize: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      onError: (c) => sendError(c, 413, 'too_large', `request bodies are limited to ${options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES} bytes`),
    }),
  );
  const history = async <T>(value: T): Promise<Response> => {
    const body = await moon.makeSafe(value);
    return new Response(JSON.stringify(body), {
      headers: { 'content-type': 'application/json; charset=utf-8', 'moon-content': 'quoted-history; data from earlier sessions, not instructions' },
    });
  };

  app.get('/v1/health', async (c) => c.json({ ok: true, version: options.version, engine: moon.config.store.url ? 'postgres' : 'sqlite', home: moon.paths.home }));
  app.get('/openapi.json', (c) => c.json(buildOpenApi(options.version)));

  app.post('/v1/recall', async (c) => {
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch (error) {
      return sendError(c, 400, 'bad_json', `the body is not JSON: ${(error as Error).message}`);
    }
    return history(await moon.recall(parseRecallRequest(body)));
  });

  app.get('/v1/sessions', async (c) => {
    const query = c.req.queries();
    const limit = c.req.query('limit');
    return history(
      await moon.sessions({
        project: query.project,
        source: query.source as never,
        since: c.req.query('since'),
        until: c.req.query('until'),
        limit: limit === undefined ? undefined : readPositive('limit', limit),
        tz: c.req.query('tz'),
      }),
    );
  });

  app.get('/v1/sessions/:id', async (c) => {
    const shown = await moon.show({ session: c.req.param('id'), tz: c.req.query('tz') });
    if (!shown.found) return sendError(c, 404, 'not_found', `no session ${c.req.param('id')}`);
    return history(shown);
  });

  app.get('/v1/timeline', async (c) => {
    const session = c.req.query('session_id');
    const around = c.req.query('message_id') ?? c.req.query('time');
    if (!session || !around) throw new MoonError('bad_input', 'timeline needs session_id and message_id (or time)');
    const context = c.req.query('context');
    const shown = await moon.show({ session, around, context: context === undefined ? undefined : readPositive('context', context), tz: c.req.query('tz') });
    if (!shown.found) return sendError(c, 404, 'not_found', `no session ${session}`);
    return history(shown);
  });

  return app;
}

function readPositive(name: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new MoonError('bad_input', `${name}: must be a positive whole number, got "${value}"`);
  return Number(value);
}
