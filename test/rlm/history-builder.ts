import { loadTokenCounter } from '../../src/text/tokens.js';

/**
 * Real-schema Puffin histories for the RLM tests: the shape `src/main/puffin-state.js` writes (see
 * test/fixtures/SOURCES.md) — branches keyed by id with a flat `prompts` array, `parentId`/`children` links, epoch
 * ms timestamps, responses with the Claude CLI's fields — with the edge cases of the real file: CLI-synced prompts
 * (ISO timestamps, no parent/children keys), null responses, a dangling parent, empty branches and branches left
 * out of `branchOrder`.
 */
export type Json = Record<string, unknown>;

export interface PromptSpec {
  id: string;
  parentId?: string | null;
  content: string;
  response?: string | null;
  files?: string[];
  title?: string;
  /** Write the CLI-sync shape (ISO timestamps, no parentId/children keys). */
  synced?: boolean;
}

const BASE = Date.UTC(2026, 0, 5, 9, 0, 0);

/** A history document from branches of prompt specs, children linked both ways, timestamps a minute apart. */
export function buildHistory(branches: Array<{ id: string; name?: string; prompts: PromptSpec[] }>, options: { order?: string[] } = {}): Json {
  let minute = 0;
  const out: Json = {};
  for (const branch of branches) {
    const prompts: Json[] = [];
    const byId = new Map<string, Json>();
    for (const spec of branch.prompts) {
      const at = BASE + minute++ * 60_000;
      let prompt: Json;
      if (spec.synced) {
        prompt = {
          id: spec.id,
          content: spec.content,
          timestamp: new Date(at).toISOString(),
          response: { content: spec.response ?? '', timestamp: new Date(at + 30_000).toISOString() },
          metadata: { source: 'claude-code-cli', syncedAt: new Date(at + 60_000).toISOString(), files: spec.files ?? [] },
        };
      } else {
        prompt = {
          id: spec.id,
          parentId: spec.parentId ?? null,
          content: spec.content,
          title: spec.title ?? null,
          timestamp: at,
          response:
            spec.response === null
              ? null
              : {
                  content: spec.response ?? `Done: ${spec.content.slice(0, 40)}`,
                  sessionId: `session-${spec.id}`,
                  cost: 0.01,
                  turns: 3,
                  duration: 12_000,
                  filesModified: (spec.files ?? []).map((path) => ({ path, action: 'modified', timestamp: at + 20_000 })),
                  timestamp: at + 30_000,
                },
          children: [],
        };
        const parent = spec.parentId ? byId.get(spec.parentId) : undefined;
        if (parent && Array.isArray(parent.children)) (parent.children as string[]).push(spec.id);
      }
      byId.set(spec.id, prompt);
      prompts.push(prompt);
    }
    out[branch.id] = { id: branch.id, name: branch.name ?? branch.id, prompts };
  }
  return {
    branches: out,
    activeBranch: branches[0]?.id ?? 'specifications',
    activePromptId: null,
    branchOrder: options.order ?? branches.map((branch) => branch.id),
    lastSelectedPromptPerBranch: {},
    updatedAt: new Date(BASE + minute * 60_000).toISOString(),
  };
}

/** One line per marker type, as people write them, each with lines around it. */
export const MARKER_LINES: Record<string, string> = {
  decision: '@/decision: use WAL mode for the SQLite store',
  breaking: '@/breaking: the config key index.path is renamed to store.path',
  security: '@/security: API keys are read from the environment only',
  bug: '@/bug: the watcher missed files renamed into the folder',
  api: '@/api: POST /v1/recall takes a snake_case body',
  pattern: '@/pattern: ports and adapters around the store',
  perf: '@/perf: FTS5 contentless tables halve the index size',
  todo: '@/todo: add a streaming reader for files over 50 MB',
  ref: '@/ref: https://sqlite.org/wal.html',
};

/**
 * A history with several branches and markers of every type (in prompts and in responses), threads with forks,
 * a dangling parent, a CLI-synced prompt, a null response, an empty branch and one missing from branchOrder.
 */
export function buildSampleHistory(): Json {
  const filler = (topic: string, n: number) =>
    Array.from({ length: n }, (_, i) => `Step ${i + 1} of the ${topic} work touches src/${topic}/part-${i}.ts and its tests.`).join('\n');
  return buildHistory(
    [
      {
        id: 'specifications',
        name: 'Specifications',
        prompts: [
          { id: 'p-spec-1', content: `Plan the storage layer.\nWe compared journal modes.\n${MARKER_LINES.decision}\nThe WAL file lives beside the database.`, files: ['docs/storage.md'] },
          { id: 'p-spec-2', parentId: 'p-spec-1', content: 'What about the config keys?', response: `Renamed them.\nOld files keep working for a release.\n${MARKER_LINES.breaking}\nA warning names the old key.` },
          { id: 'p-spec-3', parentId: 'p-spec-1', content: `Fork: how are secrets handled?\n${MARKER_LINES.security}`, response: null },
          { id: 'p-spec-4', content: `An unrelated question about the API.\n${MARKER_LINES.api}`, response: `Documented in docs/http.md.\n${MARKER_LINES.ref}` },
        ],
      },
      { id: 'architecture', name: 'Architecture', prompts: [] },
      {
        id: 'bug-fixes',
        name: 'Bug fixes',
        prompts: [
          { id: 'p-bug-1', content: `The watcher misses renamed files.\n${filler('watch', 6)}`, response: `Found it.\n${MARKER_LINES.bug}\nFixed in src/watch/loop.ts.`, files: ['src/watch/loop.ts'] },
          { id: 'p-bug-2', parentId: 'p-bug-1', content: 'Add a regression test.', files: ['test/watch/rename.test.ts'] },
          { id: 'p-bug-3', parentId: 'p-gone', content: 'This follow-up lost its parent when the thread was deleted.', response: 'Answered anyway.' },
        ],
      },
      {
        id: 'improvements',
        name: 'Improvements',
        prompts: [
          { id: 'aaaa1111bbbb2222', synced: true, content: `Synced from the CLI: speed up indexing.\n${MARKER_LINES.perf}`, response: 'Measured: 2x faster.' },
          { id: 'p-imp-1', content: `Design the store boundary.\n${MARKER_LINES.pattern}`, response: `Ports per concern.\n${MARKER_LINES.todo}` },
        ],
      },
      { id: 'plugin', name: 'Plugin', prompts: [{ id: 'p-plug-1', content: 'A plugin branch that branchOrder leaves out.', response: 'Noted.' }] },
    ],
    { order: ['specifications', 'architecture', 'bug-fixes', 'improvements'] },
  );
}

/** Token counts with the hooks' tokenizer, as the CLI counts them. */
export async function countTokens(texts: string[]): Promise<number[]> {
  return (await loadTokenCounter()).count(texts);
}

/** A cheap stand-in: four characters a token. */
export async function countQuarterChars(texts: string[]): Promise<number[]> {
  return texts.map((text) => Math.ceil(text.length / 4));
}

/** A long history: `threads` threads of `depth` prompts over `branches` branches, each prompt ~`chars` long. */
export function buildLongHistory(options: { branches: number; threads: number; depth: number; chars: number }): Json {
  const specs: Array<{ id: string; prompts: PromptSpec[] }> = Array.from({ length: options.branches }, (_, b) => ({ id: `branch-${b}`, prompts: [] }));
  const words = ['index', 'segment', 'summary', 'marker', 'hash', 'store', 'query', 'watcher', 'config', 'schema'];
  for (let t = 0; t < options.threads; t++) {
    const branch = specs[t % options.branches]!;
    for (let d = 0; d < options.depth; d++) {
      const id = `t${t}-d${d}`;
      const body = Array.from({ length: Math.max(1, Math.round(options.chars / 60)) }, (_, i) => `${words[(t + d + i) % words.length]} work on src/${words[(t * 7 + i) % words.length]}/file-${i}.ts is step ${i}.`).join(' ');
      branch.prompts.push({ id, parentId: d === 0 ? null : `t${t}-d${d - 1}`, content: body, response: `Answer for ${id}: ${body.slice(0, options.chars / 2)}` });
    }
  }
  return buildHistory(specs);
}
