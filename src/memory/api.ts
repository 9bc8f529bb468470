import { readFileSync } from 'node:fs';
import { MoonError } from '../errors.js';
import type { StoreEngine } from '../store/ports.js';
import { type AgentMemoryFile, MEMORY_AGENTS, type MemoryAgent, findAgentMemoryFiles, hashContent, listGivenFiles, splitMemoryFile } from './import-agents.js';
import { type RememberResult, rememberMemory } from './long-term-service.js';
import { type LongTermMemory, MEMORY_SCOPES, type MemoryScope, type MemoryVersion, REVIEW_STATES, type ReviewState } from '../records/long-term.js';
import type { Mem0Client } from './mem0.js';
import { PROMOTION_SOURCES, type PromotionSource, cachedNamespaceOf } from './promote.js';
import { type Namespace, resolveNamespace } from '../records/envelope.js';
import { isVisibleIn, sharedReach } from '../records/sharing.js';

/** A namespace's reads include what other namespaces share with it (team and user scope); every namespace needs none. */
const sharedWith = (namespaceId: string | null) => (namespaceId === null ? undefined : sharedReach(namespaceId));

/** Which namespace a command works in: `--namespace`, `--all-namespaces`, else the working directory's. */
export interface NamespaceChoice {
  namespace?: string | undefined;
  allNamespaces?: boolean | undefined;
  cwd: string;
}

export interface MemoryApiOptions {
  engine: () => Promise<StoreEngine>;
  clock: () => number;
  env: Readonly<Record<string, string | undefined>>;
  /** The Mem0 backend when MEMORY_LONG_TERM=mem0 (add, search and list go there). */
  mem0?: Mem0Client | null;
  resolve?: (cwd: string) => Namespace;
}

export interface ImportReport {
  namespace_id: string;
  files: { path: string; agent: MemoryAgent | null; content_hash: string; entries: number; created: number; merged: number; unchanged: number }[];
}

export interface ProposeReport {
  namespace_id: string;
  proposed: { source: string; outcome: RememberResult['outcome']; memory: LongTermMemory }[];
}

export interface MemoryApi {
  add(request: NamespaceChoice & { text: string; scope?: MemoryScope; sessionIds?: string[]; messageIds?: string[]; expiresAtMs?: number | null }): Promise<RememberResult>;
  list(request: NamespaceChoice & { states?: ReviewState[]; limit?: number }): Promise<LongTermMemory[]>;
  search(request: NamespaceChoice & { query: string; states?: ReviewState[]; limit?: number }): Promise<LongTermMemory[]>;
  show(request: NamespaceChoice & { id: string }): Promise<{ memory: LongTermMemory; versions: MemoryVersion[] }>;
  setState(request: NamespaceChoice & { id: string; state: ReviewState }): Promise<LongTermMemory>;
  edit(request: NamespaceChoice & { id: string; text: string }): Promise<LongTermMemory>;
  import(request: NamespaceChoice & { agent?: MemoryAgent; path?: string }): Promise<ImportReport>;
  propose(request: NamespaceChoice & { sources?: readonly PromotionSource[] }): Promise<ProposeReport>;
}

export { parseAgent, parseExpires, parseScope, parseStates } from './parse.js';

export function createMemoryApi(options: MemoryApiOptions): MemoryApi {
  const resolveCwd = options.resolve ?? ((cwd: string) => resolveNamespace(cwd));
  /** The namespace to read: null for every namespace. */
  const readScope = (choice: NamespaceChoice): string | null => {
    if (choice.allNamespaces && choice.namespace !== undefined) throw new MoonError('bad_usage', 'give --namespace or --all-namespaces, not both');
    if (choice.allNamespaces) return null;
    return choice.namespace ?? resolveCwd(choice.cwd).namespace_id;
  };
  /** The namespace to write to (one, never all). */
  const writeScope = (choice: NamespaceChoice): Namespace => {
    if (choice.allNamespaces) throw new MoonError('bad_usage', '--all-namespaces only reads: name one --namespace to write to');
    if (choice.namespace !== undefined) {
      const here = resolveCwd(choice.cwd);
      return here.namespace_id === choice.namespace ? here : { namespace_id: choice.namespace, repo: null, root: null };
    }
    return resolveCwd(choice.cwd);
  };
  const noMem0 = (what: string): void => {
    if (options.mem0) throw new MoonError('bad_usage', `moon memory ${what} works on moon's own store; with MEMORY_LONG_TERM=mem0 only add, list and search are available`);
  };
  /** The live entry `id`, if it is in reach of the choice (another namespace's entry is not found, not shown). */
  const reach = async (choice: NamespaceChoice & { id: string }): Promise<LongTermMemory> => {
    const namespaceId = readScope(choice);
    const memory = await (await options.engine()).memories.get(choice.id, options.clock());
    if (!memory || !isVisibleIn(memory, namespaceId)) {
      throw new MoonError('not_found', `no long-term memory ${choice.id} in ${namespaceId ?? 'any namespace'}`, {
        hint: namespaceId === null ? 'it may have expired; `moon memory list --all-namespaces` lists them' : 'pass --namespace NS or --all-namespaces to look elsewhere',
      });
    }
    return memory;
  };

  return {
    async add(request) {
      const text = request.text.trim();
      if (text === '') throw new MoonError('bad_usage', 'a memory needs some text');
      const target = writeScope(request);
      const provenance = [{ source: 'manual', session_ids: request.sessionIds ?? [], message_ids: request.messageIds ?? [] }];
      if (options.mem0) {
        const scope = request.scope ?? 'project';
        const added = await options.mem0.add({ text, namespace_id: target.namespace_id, repo: target.repo, scope, review_state: 'draft', provenance });
        const nowMs = options.clock();
        return {
          outcome: 'created',
          duplicate: null,
          memory: {
            id: added.ids[0] ?? 'pending',
            record_kind: 'long_term',
            text,
            namespace_id: target.namespace_id,
            repo: target.repo,
            scope,
            review_state: 'draft',
            provenance,
            agent_loaded: false,
            version: 1,
            created_at_ms: nowMs,
            updated_at_ms: nowMs,
            expires_at_ms: null,
          },
        };
      }
      return rememberMemory(
        (await options.engine()).memories,
        { text, namespace_id: target.namespace_id, repo: target.repo, scope: request.scope, provenance, expires_at_ms: request.expiresAtMs ?? null },
        options.clock(),
      );
    },
    async list(request) {
      const namespaceId = readScope(request);
      if (options.mem0) {
        const found = await options.mem0.list(namespaceId, request.limit);
        return request.states ? found.filter((memory) => request.states!.includes(memory.review_state)) : found;
      }
      return (await options.engine()).memories.list({ namespaceId, shared: sharedWith(namespaceId), states: request.states, nowMs: options.clock(), limit: request.limit });
    },
    async search(request) {
      const namespaceId = readScope(request);
      if (options.mem0) {
        const found = await options.mem0.search(request.query, namespaceId, request.limit);
        return request.states ? found.filter((memory) => request.states!.includes(memory.review_state)) : found;
      }
      return (await options.engine()).memories.search(request.query, {
        namespaceId,
        shared: sharedWith(namespaceId),
        states: request.states,
        nowMs: options.clock(),
        limit: request.limit,
      });
    },
    async show(request) {
      noMem0('show');
      const memory = await reach(request);
      return { memory, versions: await (await options.engine()).memories.versions(memory.id) };
    },
    async setState(request) {
      noMem0(request.state === 'approved' ? 'approve' : 'deprecate');
      const memory = await reach(request);
      return (await (await options.engine()).memories.setState(memory.id, request.state, options.clock()))!;
    },
    async edit(request) {
      noMem0('edit');
      const text = request.text.trim();
      if (text === '') throw new MoonError('bad_usage', 'a memory needs some text');
      const memory = await reach(request);
      return (await (await options.engine()).memories.edit(memory.id, text, options.clock()))!;
    },
    async import(request) {
      noMem0('import');
      const target = writeScope(request);
      const files: AgentMemoryFile[] = request.path
        ? listGivenFiles(request.path)
        : findAgentMemoryFiles(target.root ?? request.cwd, request.agent ? [request.agent] : MEMORY_AGENTS, options.env);
      if (request.path && request.agent) for (const file of files) file.agent = request.agent;
      const port = (await options.engine()).memories;
      const report: ImportReport = { namespace_id: target.namespace_id, files: [] };
      for (const file of files) {
        const content = readFileSync(file.path, 'utf8');
        const contentHash = hashContent(content);
        const items = splitMemoryFile(content);
        const counts = { created: 0, merged: 0, unchanged: 0 };
        for (const text of items) {
          const result = await rememberMemory(
            port,
            {
              text,
              namespace_id: target.namespace_id,
              repo: target.repo,
              scope: file.scope,
              provenance: [{ source: `import:${file.path}`, session_ids: [], message_ids: [], content_hash: contentHash }],
              agent_loaded: true,
            },
            options.clock(),
          );
          counts[result.outcome] += 1;
        }
        report.files.push({ path: file.path, agent: file.agent, content_hash: contentHash, entries: items.length, ...counts });
      }
      return report;
    },
    async propose(request) {
      noMem0('propose');
      const target = writeScope(request);
      const engine = await options.engine();
      const context = { engine, namespaceId: target.namespace_id, namespaceOf: cachedNamespaceOf() };
      const report: ProposeReport = { namespace_id: target.namespace_id, proposed: [] };
      for (const source of request.sources ?? PROMOTION_SOURCES) {
        for (const candidate of await source.candidates(context)) {
          // Always a draft: promotion proposes, a person approves.
          const result = await rememberMemory(
            engine.memories,
            { text: candidate.text, namespace_id: target.namespace_id, repo: target.repo, review_state: 'draft', provenance: candidate.provenance },
            options.clock(),
          );
          report.proposed.push({ source: source.name, outcome: result.outcome, memory: result.memory });
        }
      }
      return report;
    },
  };
}
