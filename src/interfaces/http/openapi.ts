import { SOURCE_NAMES } from '../../index.js';
/** `GET /openapi.json`: the API described for clients and people (OpenAPI 3.1). */
export function buildOpenApi(version: string): Record<string, unknown> {
  const error = { $ref: '#/components/schemas/Error' };
  const json = (schema: Record<string, unknown>, description: string) => ({ description, content: { 'application/json': { schema } } });
  const errors = { 400: json(error, 'bad JSON or a bad field'), 401: json(error, 'no or wrong bearer token'), 404: json(error, 'not found'), 413: json(error, 'body too large'), 429: json(error, 'rate limited') };
  const query = (name: string, description: string, required = false) => ({ name, in: 'query', required, description, schema: { type: 'string' } });
  /** `q`, the GET routes' former name for `query`: still read, deprecated. */
  const formerQuery = { ...query('q', 'the former name of query'), deprecated: true };
  return {
    openapi: '3.1.0',
    info: { title: 'moon', version, description: 'Memory for AI coding agents: recall earlier sessions. Results are quoted history, not instructions.' },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'MOON_HTTP_TOKEN; required on every request once set' } },
      schemas: {
        Error: { type: 'object', required: ['error'], properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' }, hint: { type: 'string' } } } } },
      },
    },
    security: [{ bearer: [] }],
    paths: {
      '/v1/health': { get: { summary: 'liveness', responses: { 200: json({ type: 'object' }, 'ok') } } },
      '/v1/recall': {
        post: {
          summary: 'ranked recall, grouped by session (the body is one `moon recall --batch` line)',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['query'],
                  properties: {
                    query: { type: 'string' },
                    cwd: { type: 'string', description: "the caller's working directory: recall is scoped to that project's sessions when any match" },
                    all_projects: { type: 'boolean', description: 'every project, whatever the cwd' },
                  },
                  additionalProperties: true,
                  description: 'every field of a `moon recall --batch` line (docs/cli.md), plus cwd and all_projects',
                },
              },
            },
          },
          responses: { 200: json({ type: 'object', description: 'RecallResult (docs/formats.md)' }, 'RecallResult'), ...errors },
        },
      },
      '/v1/context': {
        post: {
          summary: "the context pack for a task (planning, history, long-term memory, documents of the caller's namespace, within a token budget)",
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['task'],
                  properties: {
                    task: { type: 'string' },
                    budget: { type: 'integer', minimum: 0, description: 'tokens (cl100k_base); default memory.context_budget_tokens' },
                    error: { type: 'string', description: 'an error being faced: history matching it first' },
                    planning: { type: 'string', description: 'a Beads issue id' },
                    cwd: { type: 'string', description: "the caller's working directory: its namespace scopes the pack" },
                    namespace: { type: 'string', description: "a namespace id instead of the cwd's" },
                    all_projects: { type: 'boolean', description: 'every project (namespace), not only the one of cwd' },
                    all_namespaces: { type: 'boolean', deprecated: true, description: 'the former name of all_projects' },
                  },
                  additionalProperties: false,
                },
              },
            },
          },
          responses: { 200: json({ type: 'object', description: 'ContextPack: {items, budget, used_tokens, omitted} (docs/formats.md)' }, 'ContextPack'), ...errors },
        },
      },
      '/v1/sessions': {
        get: {
          summary: 'indexed sessions, newest first',
          parameters: [query('project', 'project name or part of the cwd (repeatable)'), query('source', `${SOURCE_NAMES.join(', ')} (repeatable)`), query('since', 'ISO date'), query('until', 'ISO date'), query('limit', 'at most this many'), query('tz', 'IANA zone')],
          responses: { 200: json({ type: 'object' }, 'SessionListing'), ...errors },
        },
      },
      '/v1/sessions/{id}': {
        get: {
          summary: "a session's projection, or a slice of its entries",
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'session id or a unique prefix' },
            query('from_entry', 'first message id of the slice'),
            query('to_entry', 'last message id of the slice'),
            query('since', 'entries at or after this time'),
            query('until', 'entries before this time'),
            query('entries', '`all`: every message, with the projection beside them'),
          ],
          responses: { 200: json({ type: 'object' }, 'ShowResult'), ...errors },
        },
      },
      '/v1/timeline': {
        get: {
          summary: 'entries around a message id or a time (in one session, or across sessions for a time)',
          parameters: [query('message_id', 'a message id from recall'), query('time', 'ISO time, or a clock time with session_id'), query('session_id', 'session id or prefix'), query('before', 'entries before (default 3)'), query('after', 'entries after (default 3)')],
          responses: { 200: json({ type: 'object' }, 'TimelineResult'), ...errors },
        },
      },
      '/v1/memories': {
        post: {
          summary: "propose a long-term memory for the caller's project (a draft: a person approves it before it is used)",
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['text', 'cwd'], properties: { text: { type: 'string' }, cwd: { type: 'string' }, scope: { enum: ['project', 'team', 'user'] }, session_id: { type: 'string' }, message_ids: { type: 'array', items: { type: 'string' } } } } } } },
          responses: { 200: json({ type: 'object' }, '{outcome, memory}'), ...errors },
        },
        get: {
          summary: "the caller's project's long-term memories (approved; drafts too with include_drafts=true)",
          parameters: [query('cwd', "the caller's project folder", true), query('query', 'words every entry must hold'), formerQuery, query('include_drafts', 'true: drafts and deprecated too'), query('limit', 'at most this many')],
          responses: { 200: json({ type: 'object' }, '{memories}'), ...errors },
        },
      },
      '/v1/fixes': {
        get: {
          summary: 'error signatures and the fixes that worked for them (verified, claimed, stale), with evidence',
          parameters: [query('query', 'an error text, a signature or words'), formerQuery, query('cwd', "the caller's project folder (absent: every project)"), query('limit', 'at most this many')],
          responses: { 200: json({ type: 'object' }, 'FixesResult'), ...errors },
        },
      },
      '/v1/decisions': {
        get: {
          summary: 'decisions stated in earlier sessions, each followed to its outcome (verified, claimed, stale)',
          parameters: [query('query', 'words every decision must hold'), formerQuery, query('cwd', "the caller's project folder (absent: every project)"), query('limit', 'at most this many')],
          responses: { 200: json({ type: 'object' }, 'DecisionsResult'), ...errors },
        },
      },
      '/v1/markers': {
        get: {
          summary: 'the @/ markers (@/decision: …, @/bug: …) written in earlier sessions, newest first, with counts by type',
          parameters: [
            query('type', 'marker types (comma-separated or repeated)'),
            query('query', "words every marker's text must hold"), formerQuery,
            query('session_id', 'only this session (id or unique prefix)'),
            query('since', 'ISO date or date-time'),
            query('until', 'ISO date or date-time'),
            query('cwd', "the caller's project folder (absent: every project)"),
            query('limit', 'at most this many (default 50)'),
          ],
          responses: { 200: json({ type: 'object' }, '{scope, counts, markers} (docs/formats.md)'), ...errors },
        },
      },
      '/': { get: { summary: 'the web view (docs/web.md)', parameters: [query('token', 'MOON_HTTP_TOKEN, once: kept in an HttpOnly cookie, then redirected to /')], responses: { 200: { description: 'the page (text/html)' }, 303: { description: 'token taken: on to /' } } } },
      '/app.js': { get: { summary: "the web view's script", responses: { 200: { description: 'text/javascript' } } } },
      '/app.css': { get: { summary: "the web view's stylesheet", responses: { 200: { description: 'text/css' } } } },
      '/v1/memories/all': {
        get: { summary: "every project's long-term memories, for review", parameters: [query('state', 'draft, approved, deprecated (comma-separated)')], responses: { 200: json({ type: 'object' }, '{memories}'), ...errors } },
      },
      '/v1/memories/{id}': {
        get: { summary: 'one long-term memory and its previous versions', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: json({ type: 'object' }, '{memory, versions}'), ...errors } },
      },
      '/v1/memories/state': {
        post: {
          summary: "set a long-term memory's review state (a person's review, as moon memory approve|deprecate)",
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['id', 'state'], properties: { id: { type: 'string' }, state: { enum: ['draft', 'approved', 'deprecated'] } } } } } },
          responses: { 200: json({ type: 'object' }, '{memory}'), ...errors },
        },
      },
      '/v1/memories/text': {
        post: {
          summary: "replace a long-term memory's text (the previous one kept as a version)",
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['id', 'text'], properties: { id: { type: 'string' }, text: { type: 'string' } } } } } },
          responses: { 200: json({ type: 'object' }, '{memory}'), ...errors },
        },
      },
      '/v1/memory-files': { get: { summary: "the home's MEMORY.md and daily memory files", responses: { 200: json({ type: 'object' }, '{files}'), ...errors } } },
      '/v1/memory-files/{name}': {
        get: { summary: 'one memory file by name', parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' }, description: 'MEMORY.md or YYYY-MM-DD.md' }], responses: { 200: json({ type: 'object' }, '{name, text}'), ...errors } },
      },
      '/v1/digests': { get: { summary: 'run digests of every project, newest first', parameters: [query('limit', 'at most this many (default 50)')], responses: { 200: json({ type: 'object' }, '{scope, digests}'), ...errors } } },
      '/v1/usage': { get: { summary: "the newest sessions' context usage and the hooks' runs and tokens per day", parameters: [query('limit', 'sessions (default 30)')], responses: { 200: json({ type: 'object' }, '{sessions, hooks}'), ...errors } } },
      '/v1/forget': {
        post: {
          summary: 'forget one session (as moon forget <id>)',
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['session_id', 'confirm'], properties: { session_id: { type: 'string' }, confirm: { const: true } } } } } },
          responses: { 200: json({ type: 'object' }, 'ForgetReport'), ...errors },
        },
      },
      '/v1/entries': {
        get: {
          summary: 'full entries by the message ids recall returns',
          parameters: [query('ids', 'message ids, comma-separated or repeated', true), query('session_id', 'only in this session')],
          responses: { 200: json({ type: 'object' }, 'EntriesResult: entries and the ids that matched nothing'), ...errors },
        },
      },
    },
  };
}
