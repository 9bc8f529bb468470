import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { z } from 'zod';
import { type Moon, MoonError } from '../../index.js';
import { parseJsonBody } from './body.js';

/**
 * The routes the web view needs beyond the agents' API (docs/web.md): long-term memory review over every project
 * (the same operations and audit as `moon memory approve|deprecate|edit`), the daily memory files and MEMORY.md,
 * run digests, and forgetting a session. They stand behind the same checks as every route (Host, Origin, token,
 * JSON bodies for anything that changes state); the MCP server, the agents' own door, offers none of the writes.
 */
export function addWebRoutes(app: Hono, moon: Moon, answer: (value: unknown) => Promise<Response>): void {
  const readAll = { cwd: moon.paths.home, allNamespaces: true } as const;

  app.get('/v1/memories/all', async (c) => {
    const memory = await moon.memory.longTerm();
    const states = (c.req.query('state') ?? '').split(',').map((state) => state.trim()).filter((state) => state !== '');
    for (const state of states) if (!REVIEW_STATES.includes(state as never)) throw new MoonError('bad_input', `state: "${state}" is not one of ${REVIEW_STATES.join(', ')}`);
    const memories = await memory.list({ ...readAll, ...(states.length > 0 ? { states: states as (typeof REVIEW_STATES)[number][] } : {}), limit: 500 });
    return answer({ memories });
  });

  app.get('/v1/memories/:id', async (c) => {
    const memory = await moon.memory.longTerm();
    return answer(await memory.show({ ...readAll, id: c.req.param('id') }));
  });

  app.post('/v1/memories/state', async (c) => {
    const request = parseJsonBody(STATE_REQUEST, await c.req.text());
    const memory = await moon.memory.longTerm();
    return answer({ memory: await memory.setState({ ...readAll, id: request.id, state: request.state }) });
  });

  app.post('/v1/memories/text', async (c) => {
    const request = parseJsonBody(TEXT_REQUEST, await c.req.text());
    const memory = await moon.memory.longTerm();
    return answer({ memory: await memory.edit({ ...readAll, id: request.id, text: request.text }) });
  });

  app.get('/v1/memory-files', async () => answer({ files: listMemoryFiles(moon) }));

  app.get('/v1/memory-files/:name', async (c) => {
    const name = c.req.param('name');
    const path = locateMemoryFile(moon, name);
    if (path === null || !existsSync(path)) throw new MoonError('not_found', `no memory file ${name.slice(0, 80)}`, { hint: 'GET /v1/memory-files lists them' });
    return answer({ name, text: readFileSync(path, 'utf8') });
  });

  app.get('/v1/digests', async (c) => {
    const limit = Number(c.req.query('limit') ?? '50');
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new MoonError('bad_input', 'limit: a whole number from 1 to 500');
    return answer(await moon.memory.listDigests({ allNamespaces: true, limit }));
  });

  app.get('/v1/usage', async (c) => {
    const limit = Number(c.req.query('limit') ?? '30');
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new MoonError('bad_input', 'limit: a whole number from 1 to 200');
    const [sessions, hooks] = await Promise.all([moon.history.contextUsage({ limit }), moon.agents.hookUsage()]);
    return answer({ sessions, hooks: hooks.days });
  });

  app.post('/v1/forget', async (c) => {
    const request = parseJsonBody(FORGET_REQUEST, await c.req.text());
    return answer(await moon.upkeep.forget({ sessions: request.session_id }));
  });
}

const REVIEW_STATES = ['draft', 'approved', 'deprecated'] as const;
const STATE_REQUEST = z.strictObject({ id: z.string().min(1).max(200), state: z.enum(REVIEW_STATES) });
const TEXT_REQUEST = z.strictObject({ id: z.string().min(1).max(200), text: z.string().min(3).max(4000) });
/** Forgetting names one whole session id, and says so twice: the page asks the person first. */
const FORGET_REQUEST = z.strictObject({ session_id: z.string().min(8).max(512), confirm: z.literal(true) });

/** `MEMORY.md` and the daily files `YYYY-MM-DD.md`: the only names served, each a file in the home's own folders. */
const DAILY = /^\d{4}-\d{2}-\d{2}\.md$/;

function locateMemoryFile(moon: Moon, name: string): string | null {
  if (name === 'MEMORY.md') return moon.paths.memoryFile;
  return DAILY.test(name) ? join(moon.paths.memory, name) : null;
}

function listMemoryFiles(moon: Moon): { name: string; bytes: number; modified_ms: number }[] {
  const names = existsSync(moon.paths.memory) ? readdirSync(moon.paths.memory).filter((name) => DAILY.test(name)) : [];
  return ['MEMORY.md', ...names.sort().reverse()].flatMap((name) => {
    const path = locateMemoryFile(moon, name)!;
    if (!existsSync(path)) return [];
    const stat = statSync(path);
    return stat.isFile() ? [{ name, bytes: stat.size, modified_ms: stat.mtimeMs }] : [];
  });
}
