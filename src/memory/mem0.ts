import { MoonError } from '../errors.js';
import { postJson } from '../net/http.js';
import type { LongTermMemory, MemoryProvenance } from '../records/long-term.js';

/**
 * The optional Mem0 backend of long-term memory (MEMORY_LONG_TERM=mem0, MEM0_BASE_URL, MEM0_API_KEY), over
 * Mem0's platform REST API: add (`POST /v1/memories/`, stored as given: `infer: false`), search
 * (`POST /v2/memories/search/`) and list (`POST /v2/memories/`), authenticated with `Authorization: Token <key>`.
 * Each entry is filed under `user_id` = its namespace, and carries moon's envelope in `metadata` (namespace_id,
 * repo, scope, review_state, provenance); answers are filtered on that metadata again, so a server that ignores
 * the filter still leaks nothing of another namespace.
 */
export interface Mem0Options {
  baseUrl: string;
  apiKey: string | undefined;
  timeoutMs?: number;
  retryBaseMs?: number;
}

/** What moon sends Mem0 of an entry: its text and the envelope fields Mem0 keeps as metadata. */
export type Mem0Entry = Pick<LongTermMemory, 'text' | 'namespace_id' | 'repo' | 'scope' | 'review_state' | 'provenance'>;

export interface Mem0Client {
  add(entry: Mem0Entry): Promise<{ ids: string[] }>;
  search(query: string, namespaceId: string | null, limit?: number): Promise<LongTermMemory[]>;
  list(namespaceId: string | null, limit?: number): Promise<LongTermMemory[]>;
}

export function mem0FromEnv(env: Readonly<Record<string, string | undefined>>): Mem0Client | null {
  if ((env.MEMORY_LONG_TERM ?? '').trim().toLowerCase() !== 'mem0') return null;
  const baseUrl = env.MEM0_BASE_URL?.trim() || 'https://api.mem0.ai';
  return createMem0Client({ baseUrl, apiKey: env.MEM0_API_KEY });
}

export function createMem0Client(options: Mem0Options): Mem0Client {
  if (!options.apiKey) {
    throw new MoonError('bad_config', 'MEMORY_LONG_TERM=mem0 needs MEM0_API_KEY', { hint: 'set MEM0_API_KEY (and MEM0_BASE_URL for a self-hosted server), or unset MEMORY_LONG_TERM' });
  }
  const base = options.baseUrl.replace(/\/+$/, '');
  const call = (path: string, body: unknown): Promise<unknown> =>
    postJson(`${base}${path}`, body, {
      subject: 'mem0',
      headers: { authorization: `Token ${options.apiKey}` },
      timeoutMs: options.timeoutMs ?? 15_000,
      retryBaseMs: options.retryBaseMs,
      hints: { auth: 'check MEM0_API_KEY', notFound: 'check MEM0_BASE_URL', network: 'check MEM0_BASE_URL and that the server is up' },
    });
  const filters = (namespaceId: string | null): unknown => ({ AND: [{ user_id: namespaceId ?? '*' }] });
  const read = (answer: unknown, path: string, namespaceId: string | null): LongTermMemory[] => {
    const items = resultList(answer, path);
    const memories = items.map((item) => toMemory(item, path));
    return namespaceId === null ? memories : memories.filter((memory) => memory.namespace_id === namespaceId);
  };
  return {
    async add(entry) {
      const answer = await call('/v1/memories/', {
        messages: [{ role: 'user', content: entry.text }],
        user_id: entry.namespace_id,
        infer: false,
        metadata: {
          moon: true,
          namespace_id: entry.namespace_id,
          repo: entry.repo,
          scope: entry.scope,
          review_state: entry.review_state,
          provenance: entry.provenance,
        },
      });
      // A list of {id, event, data|memory}, or {results: […]}; an asynchronous add answers {status, event_id}.
      const items = Array.isArray(answer) || (isObject(answer) && Array.isArray(answer.results)) ? resultList(answer, '/v1/memories/') : [];
      if (items.length === 0 && !(isObject(answer) && typeof (answer.status ?? answer.message) === 'string')) {
        throw malformed('/v1/memories/', 'neither a list of memories nor a queued status');
      }
      return { ids: items.map((item) => item.id).filter((id): id is string => typeof id === 'string') };
    },
    async search(query, namespaceId, limit = 20) {
      return read(await call('/v2/memories/search/', { query, filters: filters(namespaceId), top_k: limit }), '/v2/memories/search/', namespaceId);
    },
    async list(namespaceId, limit = 100) {
      return read(await call(`/v2/memories/?page=1&page_size=${limit}`, { filters: filters(namespaceId) }), '/v2/memories/', namespaceId);
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(path: string, what: string): MoonError {
  return new MoonError('io', `mem0 answered ${path} with an unexpected body (${what})`, { hint: 'check MEM0_BASE_URL points at a Mem0 server' });
}

function resultList(answer: unknown, path: string): Record<string, unknown>[] {
  const list = Array.isArray(answer) ? answer : isObject(answer) && Array.isArray(answer.results) ? answer.results : null;
  if (!list) throw malformed(path, 'no list of memories');
  if (!list.every(isObject)) throw malformed(path, 'a memory that is not an object');
  return list;
}

function toMemory(item: Record<string, unknown>, path: string): LongTermMemory {
  const data = isObject(item.data) ? item.data : {};
  const text = typeof item.memory === 'string' ? item.memory : typeof data.memory === 'string' ? data.memory : null;
  if (typeof item.id !== 'string' || text === null) throw malformed(path, 'a memory without id or text');
  const metadata = isObject(item.metadata) ? item.metadata : {};
  const time = (value: unknown): number => {
    const parsed = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    return Number.isFinite(parsed) ? parsed : 0;
  };
  const oneOf = <T extends string>(value: unknown, allowed: readonly T[], fallback: T): T =>
    typeof value === 'string' && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
  return {
    id: item.id,
    record_kind: 'long_term',
    text,
    namespace_id: typeof metadata.namespace_id === 'string' ? metadata.namespace_id : typeof item.user_id === 'string' ? item.user_id : 'unknown',
    repo: typeof metadata.repo === 'string' ? metadata.repo : null,
    scope: oneOf(metadata.scope, ['project', 'team', 'user'] as const, 'project'),
    review_state: oneOf(metadata.review_state, ['draft', 'approved', 'deprecated'] as const, 'draft'),
    provenance: Array.isArray(metadata.provenance) ? (metadata.provenance as MemoryProvenance[]) : [{ source: 'mem0', session_ids: [], message_ids: [] }],
    agent_loaded: false,
    version: 1,
    created_at_ms: time(item.created_at),
    updated_at_ms: time(item.updated_at ?? item.created_at),
    expires_at_ms: typeof item.expiration_date === 'string' ? time(item.expiration_date) : null,
  };
}
