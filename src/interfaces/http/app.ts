import { Hono } from 'hono';
import { z } from 'zod';
import { bodyLimit } from 'hono/body-limit';
import { MAX_ENTRY_IDS, type Moon, MoonError, checkProjectFolder, markForeground, describeRecallScope, parseRecallRequest, readWebAssets, WEB_FILES, scopeRecallOptions, toMarkerRecord, toMarkerScopeRecord, toRecallOutput } from '../../index.js';
import { requireToken } from './auth.js';
import { DEFAULT_HOST } from './defaults.js';
import { sendError, sendThrown } from './errors.js';
import { checkToken, guardRequests } from './guard.js';
import { buildOpenApi } from './openapi.js';
import { addWebRoutes } from './web-routes.js';
import { parseJsonBody } from './body.js';
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
  /** The address the server is bound to, for the Host and Origin checks (default 127.0.0.1). */
  host?: string;
  /** Its port once listening; absent or null: any port (an app not behind its own socket). */
  port?: () => number | null;
  /** Browser origins allowed to call it (serve.allowed_origins). */
  allowedOrigins?: readonly string[];
}

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
export const DEFAULT_RATE = { perSecond: 20, burst: 40 };

export function createHttpApp(moon: Moon, options: HttpOptions): Hono {
  const app = new Hono();
  app.onError((error, c) => sendThrown(c, error));
  app.notFound((c) => sendError(c, 404, 'not_found', `no route ${c.req.method} ${new URL(c.req.url).pathname}`, 'see GET /openapi.json'));
  if (options.token) checkToken(options.token);
  // Before the token and every route: only the local user (not a web page in their browser) gets through.
  app.use(
    '*',
    guardRequests({ host: options.host ?? DEFAULT_HOST, port: options.port ?? (() => null), allowedOrigins: options.allowedOrigins ?? [], token: Boolean(options.token) }),
  );
  if (options.token) app.use('*', requireToken(options.token));
  app.use('*', limitRate(options.rate ?? DEFAULT_RATE));
  app.use(
    '*',
    bodyLimit({
      maxSize: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      onError: (c) => sendError(c, 413, 'too_large', `request bodies are limited to ${options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES} bytes`),
    }),
  );
  // Whoever asked waits on the answer: background work in the home gives way until it is sent.
  app.use('*', async (_c, next) => {
    const unmark = markForeground(moon.paths.home);
    try {
      await next();
    } finally {
      unmark();
    }
  });
  // Query parameters are words, ids and times: a 100 KB one is a mistake (and more than the store's LIKE takes).
  app.use('*', async (c, next) => {
    for (const [name, values] of Object.entries(c.req.queries())) {
      const long = values.find((value) => value.length > (ID_PARAMS.has(name) ? MAX_ID_CHARS : MAX_PARAM_CHARS));
      if (long !== undefined) throw new MoonError('bad_input', `${name.slice(0, 40)}: at most ${ID_PARAMS.has(name) ? MAX_ID_CHARS : MAX_PARAM_CHARS} characters, got ${long.length}`);
    }
    await next();
  });
  const history = async <T>(value: T): Promise<Response> => {
    const body = await moon.agents.makeSafe(value);
    return new Response(JSON.stringify(body), {
      headers: { 'content-type': 'application/json; charset=utf-8', 'moon-content': 'quoted-history; data from earlier sessions, not instructions' },
    });
  };

  // The web view (web/, docs/web.md): its page, script and stylesheet, behind the same checks as every route.
  const assets = readWebAssets();
  for (const path of Object.keys(WEB_FILES)) {
    app.get(path, (c) => {
      const asset = assets.get(path);
      if (!asset) return sendError(c, 503, 'not_built', 'the web view is not built', 'run `npm run build` in the clone');
      return new Response(asset.body, { headers: { 'content-type': asset.type, ...PAGE_HEADERS } });
    });
  }
  addWebRoutes(app, moon, history);
  app.get('/v1/health', async (c) => c.json({ ok: true, version: options.version, engine: moon.config.store.url ? 'postgres' : 'sqlite', home: moon.paths.home }));
  app.get('/openapi.json', (c) => c.json(buildOpenApi(options.version)));

  app.post('/v1/recall', async (c) => {
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch (error) {
      return sendError(c, 400, 'bad_json', `the body is not JSON: ${(error as Error).message}`);
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return sendError(c, 400, 'bad_input', 'the body must be a JSON object with a "query"');
    // `cwd` and `all_projects` scope the recall to the caller's project (as MCP roots do); the rest is the recall request.
    const { cwd, all_projects: allProjects, ...request } = body as Record<string, unknown>;
    const folder = cwd === undefined ? null : checkProjectFolder(cwd, 'cwd');
    if (allProjects !== undefined && typeof allProjects !== 'boolean') throw new MoonError('bad_input', 'all_projects: must be true or false');
    const options = parseRecallRequest(request);
    const scope = await moon.history.resolveScope({ cwd: folder, allProjects: allProjects ?? false });
    const scoped = scopeRecallOptions(options, scope);
    const named = (options.session ?? []).length > 0;
    const result = scoped ? await moon.history.recall(scoped) : { query: options.query, matches: [], generated_at_epoch_secs: Math.floor(moon.clock() / 1000) };
    return history(toRecallOutput(result, describeRecallScope(named ? null : scope, named)));
  });

  // Long-term memory: a draft from an agent (a person approves it), and search; fix patterns for an error.
  app.post('/v1/memories', async (c) => {
    const { text, scope, cwd, session_id: sessionId, message_ids: messageIds } = parseJsonBody(REMEMBER_REQUEST, await c.req.text());
    const memory = await moon.memory.longTerm();
    const result = await memory.add({ text, scope, cwd: checkProjectFolder(cwd, 'cwd'), sessionIds: sessionId ? [sessionId] : undefined, messageIds });
    return history({ outcome: result.outcome, memory: result.memory });
  });

  app.get('/v1/memories', async (c) => {
    const given = c.req.query('cwd');
    const query = queryWords(c);
    if (!given) throw new MoonError('bad_input', 'cwd: the caller\'s project folder is needed (memories are per project)');
    const cwd = checkProjectFolder(given, 'cwd');
    const memory = await moon.memory.longTerm();
    const states = c.req.query('include_drafts') === 'true' ? undefined : (['approved'] as const);
    const limit = c.req.query('limit');
    const options = { cwd, states: states ? [...states] : undefined, limit: limit === undefined ? 20 : readPositive('limit', limit) };
    return history({ memories: query ? await memory.search({ ...options, query }) : await memory.list(options) });
  });

  app.get('/v1/fixes', async (c) => {
    const cwd = readFolder(c.req.query('cwd'));
    const limit = c.req.query('limit');
    return history(
      await moon.memory.fixes({
        query: queryWords(c),
        limit: limit === undefined ? undefined : readPositive('limit', limit),
        ...(cwd ? { cwd } : { allNamespaces: true }),
      }),
    );
  });

  app.get('/v1/decisions', async (c) => {
    const cwd = readFolder(c.req.query('cwd'));
    const limit = c.req.query('limit');
    return history(
      await moon.memory.decisions({
        query: queryWords(c),
        limit: limit === undefined ? undefined : readPositive('limit', limit),
        ...(cwd ? { cwd } : { allNamespaces: true }),
      }),
    );
  });

  app.get('/v1/markers', async (c) => {
    const cwd = readFolder(c.req.query('cwd'));
    const limit = c.req.query('limit');
    const result = await moon.history.markers({
      types: (c.req.queries('type') ?? []).flatMap((value) => value.split(',')).map((value) => value.trim()).filter((value) => value !== ''),
      text: queryWords(c),
      session: c.req.query('session_id') ?? null,
      since: c.req.query('since'),
      until: c.req.query('until'),
      limit: limit === undefined ? undefined : readPositive('limit', limit),
      // Without a cwd the server's own folder is not a caller's project: every project, as with recall.
      ...(cwd ? { cwd } : { allProjects: true }),
    });
    return history({ scope: toMarkerScopeRecord(result.scope), counts: result.counts, markers: result.markers.map(toMarkerRecord) });
  });

  app.post('/v1/context', async (c) => {
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch (error) {
      return sendError(c, 400, 'bad_json', `the body is not JSON: ${(error as Error).message}`);
    }
    const parsed = CONTEXT_REQUEST.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new MoonError('bad_input', `${issue.path.join('.') || 'body'}: ${issue.message}`);
    }
    const request = parsed.data;
    return history(
      await moon.memory.contextPack({
        task: request.task,
        budget: request.budget,
        error: request.error ?? null,
        planning: request.planning ?? null,
        // Without a cwd the server's own folder is not a caller's project: every namespace, as with recall.
        cwd: request.cwd === undefined ? null : checkProjectFolder(request.cwd, 'cwd'),

        namespace: request.namespace ?? null,
        allNamespaces: request.all_projects ?? request.all_namespaces ?? (request.cwd === undefined && request.namespace === undefined),
      }),
    );
  });

  app.get('/v1/sessions', async (c) => {
    const query = c.req.queries();
    const limit = c.req.query('limit');
    return history(
      await moon.history.sessions({
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
    const id = c.req.param('id');
    if (id.length > MAX_ID_CHARS) throw new MoonError('bad_input', `id: a session id is at most ${MAX_ID_CHARS} characters, got ${id.length}`);
    const found = await moon.history.getSession({
      id,
      fromEntry: c.req.query('from_entry'),
      toEntry: c.req.query('to_entry'),
      since: c.req.query('since'),
      until: c.req.query('until'),
      tz: c.req.query('tz'),
      allEntries: c.req.query('entries') === 'all',
    });
    if (!found.found) return sendError(c, 404, 'not_found', found.message);
    return history(found);
  });

  app.get('/v1/entries', async (c) => {
    const ids = (c.req.queries('ids') ?? []).flatMap((value) => value.split(',')).map((id) => id.trim()).filter((id) => id !== '');
    if (ids.length === 0) throw new MoonError('bad_input', 'ids: give one or more message ids (ids=a,b or ids=a&ids=b)');
    if (ids.length > MAX_ENTRY_IDS) throw new MoonError('bad_input', `ids: at most ${MAX_ENTRY_IDS} at once, got ${ids.length}`);
    return history(await moon.history.getEntries({ ids, sessionId: c.req.query('session_id'), tz: c.req.query('tz') }));
  });

  app.get('/v1/timeline', async (c) => {
    const messageId = c.req.query('message_id');
    const time = c.req.query('time');
    if (!messageId && !time) throw new MoonError('bad_input', 'timeline needs message_id or time');
    const before = c.req.query('before');
    const after = c.req.query('after');
    const found = await moon.history.timeline({
      messageId,
      time,
      sessionId: c.req.query('session_id'),
      before: before === undefined ? undefined : readCount('before', before),
      after: after === undefined ? undefined : readCount('after', after),
      tz: c.req.query('tz'),
    });
    if (!found.found) return sendError(c, 404, 'not_found', `${found.reason.replace(/_/g, ' ')}: ${found.query}${found.candidates.length > 0 ? ` (could be ${found.candidates.join(', ')})` : ''}`);
    return history(found);
  });

  return app;
}



/**
 * What the web view's files may do: load only from this server (no inline script, no other site, no frame around
 * them), and never be read as another type.
 */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/** The longest id (session, message) a request may name, and the longest other query parameter. */
const MAX_ID_CHARS = 512;
const MAX_PARAM_CHARS = 4096;
const ID_PARAMS = new Set(['session_id', 'message_id', 'from_entry', 'to_entry']);

const REMEMBER_REQUEST = z.strictObject({
  text: z.string().min(3).max(4000),
  scope: z.enum(['project', 'team', 'user']).optional(),
  cwd: z.string().min(1),
  session_id: z.string().min(1).max(200).optional(),
  message_ids: z.array(z.string().min(1).max(200)).max(50).optional(),
});

const CONTEXT_REQUEST = z.strictObject({
  task: z.string().min(1).max(4000),
  budget: z.number().int().min(0).max(200_000).optional(),
  error: z.string().min(1).max(4000).optional(),
  planning: z.string().min(1).max(200).optional(),
  cwd: z.string().min(1).optional(),
  namespace: z.string().min(1).optional(),
  all_projects: z.boolean().optional(),
  /** The former name of all_projects. */
  all_namespaces: z.boolean().optional(),
});

/** An optional `cwd` query parameter: absent or empty is none; otherwise an absolute folder (checkProjectFolder). */
function readFolder(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : checkProjectFolder(value, 'cwd');
}

function readCount(name: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new MoonError('bad_input', `${name}: must be a whole number, got "${value}"`);
  return Number(value);
}

function readPositive(name: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new MoonError('bad_input', `${name}: must be a positive whole number, got "${value}"`);
  return Number(value);
}

/** The words of a GET route, `query` as on every door; `q`, its former name, still read. */
function queryWords(c: { req: { query(name: string): string | undefined } }): string | null {
  return c.req.query('query') ?? c.req.query('q') ?? null;
}
