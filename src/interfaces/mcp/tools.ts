import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { join } from 'node:path';
import type { HistoryQueryResult, LongTermMemory, Moon, ProjectScope, RecallResult } from '../../index.js';
import {
  MAX_ENTRY_IDS,
  MAX_TIMELINE_SPAN,
  MoonError,
  RECALL_REQUEST_FIELDS,
  confinePath,
  RLM_MAX_QUERY_LIMIT,
  describeRecallScope,
  formatPack,
  frameHistory,
  parseRecallRequest,
  scopeRecallOptions,
  toMarkerRecord,
} from '../../index.js';
import {
  BUDGET,
  ENTRIES_OUTPUT,
  RECALL_OUTPUT,
  SESSION_OUTPUT,
  TIMELINE_OUTPUT,
  type Safe,
  entriesText,
  recallText,
  sessionText,
  shapeEntry,
  shapeRecall,
  shapeSession,
  timelineText,
} from './shapes.js';

/** What the tools need from the server around them; everything heavy is behind these and opened on first use. */
export interface ToolContext {
  /** The library facade (throws for a bad configuration: the call reports it). */
  moon(): Moon;
  /** The safe-text shapes, with the home's secret detector. */
  safe(): Promise<Safe>;
  /** The client's roots (file:// URIs); [] when it has none or does not say. */
  roots(): Promise<string[]>;
  /** The server's working directory: the caller's project when the client gives no roots. */
  cwd: string;
  /** Run a tool body; a thrown error becomes an isError result. */
  guard(tool: string, work: () => Promise<CallToolResult>): Promise<CallToolResult>;
}

/** The longest id (session, message) a tool takes. */
const MAX_ID_CHARS = 512;

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const ALL_PROJECTS = z
  .boolean()
  .describe("Search every project. By default only the caller's project (the client roots, else the server's working directory) is searched")
  .optional();
const SESSION_ID = z.string().min(1).max(MAX_ID_CHARS).describe('A session id (or a unique prefix of one), as recall returns it');
const TZ = z.string().min(1).max(100).describe('Time zone for times without an offset and the times shown (IANA name); default the residential zone').optional();
const span = (side: string) =>
  z.number().int().min(0).max(MAX_TIMELINE_SPAN).describe(`Entries ${side} the one found (default 3, at most ${MAX_TIMELINE_SPAN})`).optional();

export const RECALL_INPUT = z.strictObject({ ...RECALL_REQUEST_FIELDS, all_projects: ALL_PROJECTS });

export const TIMELINE_INPUT = z.strictObject({
  message_id: z.string().min(1).max(MAX_ID_CHARS).describe("A message id from recall's message_ids: the entry to center on").optional(),
  time: z
    .string()
    .min(1)
    .max(200)
    .describe('Or a time: an ISO date-time (across sessions without session_id), or with session_id also a clock time like 14:05')
    .optional(),
  session_id: SESSION_ID.optional(),
  before: span('before'),
  after: span('after'),
  tz: TZ,
  all_projects: ALL_PROJECTS,
});

export const ENTRIES_INPUT = z.strictObject({
  ids: z.array(z.string().min(1).max(MAX_ID_CHARS)).min(1).max(MAX_ENTRY_IDS).describe(`Message ids from recall or timeline (1 to ${MAX_ENTRY_IDS})`),
  session_id: SESSION_ID.optional(),
  tz: TZ,
});

export const SESSION_INPUT = z.strictObject({
  session_id: SESSION_ID,
  from_entry: z.string().min(1).max(MAX_ID_CHARS).describe('Slice: first message id (inclusive)').optional(),
  to_entry: z.string().min(1).max(MAX_ID_CHARS).describe('Slice: last message id (inclusive)').optional(),
  since: z.string().min(1).max(200).describe('Slice: entries at or after this time (ISO, or a clock time like 14:05 on the session days)').optional(),
  until: z.string().min(1).max(200).describe('Slice: entries before this time').optional(),
  max_chars: z
    .number()
    .int()
    .min(1000)
    .max(BUDGET.sessionMax)
    .describe(`Largest answer in characters (default ${BUDGET.sessionDefault})`)
    .optional(),
  tz: TZ,
});

export const CONTEXT_PACK_INPUT = z.strictObject({
  task: z.string().min(1).max(4000).describe('What you are about to do: the pack is assembled for it'),
  budget: z.number().int().min(0).max(200_000).describe('Tokens the pack may hold (default memory.context_budget_tokens)').optional(),
  error: z.string().min(1).max(4000).describe('An error you are facing: history matching it comes first').optional(),
  planning: z.string().min(1).max(200).describe('A Beads issue id: the work item, its dependencies, ready siblings, acceptance criteria and notes').optional(),
});

const PACK_SECTION = z.enum(['planning', 'history', 'long_term', 'documents']);

/** The pack as docs/formats.md describes it. */
export const CONTEXT_PACK_OUTPUT = {
  task: z.string(),
  namespace_id: z.string().nullable(),
  items: z.array(
    z.object({
      section: PACK_SECTION,
      text: z.string(),
      source: z.string(),
      record_kind: z.string(),
      trust_class: z.enum(['raw', 'derived', 'approved']),
      provenance: z.record(z.string(), z.unknown()),
      recency: z.string().nullable(),
      token_cost: z.number().int(),
    }),
  ),
  budget: z.number().int(),
  used_tokens: z.number().int(),
  omitted: z.array(z.object({ subsystem: PACK_SECTION, reason: z.string(), detail: z.string().optional() })),
};

export const REMEMBER_INPUT = z.strictObject({
  text: z.string().min(3).max(4000).describe('One durable learning, convention or decision, in a sentence or two'),
  scope: z.enum(['project', 'team', 'user']).describe('Who it is for (default project)').optional(),
  session_id: z.string().min(1).max(200).describe('The session this comes from (provenance)').optional(),
  message_ids: z.array(z.string().min(1).max(200)).max(50).describe('Messages it rests on (provenance)').optional(),
});

const MEMORY_ENTRY = z.object({
  id: z.string(),
  text: z.string(),
  namespace_id: z.string(),
  scope: z.string(),
  review_state: z.enum(['draft', 'approved', 'deprecated']),
  version: z.number().int(),
  updated_at: z.string(),
});

export const REMEMBER_OUTPUT = { outcome: z.enum(['created', 'merged', 'unchanged']), memory: MEMORY_ENTRY };

export const MEMORY_SEARCH_INPUT = z.strictObject({
  query: z.string().min(1).max(1000).describe('Words every entry shown must contain'),
  include_drafts: z.boolean().describe('Drafts and deprecated entries too (default: approved only)').optional(),
  limit: z.number().int().min(1).max(50).optional(),
});

export const MEMORY_SEARCH_OUTPUT = { memories: z.array(MEMORY_ENTRY) };

export const FIXES_INPUT = z.strictObject({
  query: z.string().min(1).max(4000).describe('An error text, a signature, or words').optional(),
  limit: z.number().int().min(1).max(50).optional(),
});

export const FIXES_OUTPUT = {
  namespace: z.string().nullable(),
  patterns: z.array(
    z.object({
      signature: z.string(),
      state: z.string(),
      count: z.number().int(),
      worked: z.number().int(),
      sample: z.string().nullable(),
      evidence: z.array(z.object({ session_id: z.string(), message_ids: z.array(z.string()), files: z.array(z.string()), commits: z.array(z.string()), state: z.string() })),
    }),
  ),
};

export const DECISIONS_INPUT = z.strictObject({
  query: z.string().min(1).max(4000).describe('Words every decision must contain').optional(),
  limit: z.number().int().min(1).max(50).optional(),
});

export const DECISIONS_OUTPUT = {
  namespace: z.string().nullable(),
  decisions: z.array(
    z.object({
      text: z.string(),
      state: z.string(),
      session_id: z.string(),
      message_ids: z.array(z.string()),
      files: z.array(z.string()),
      commits: z.array(z.string()),
      verified_by: z.string().nullable(),
      stale_reason: z.string().nullable(),
    }),
  ),
};

export const MARKERS_INPUT = z.strictObject({
  type: z
    .union([z.string().min(1).max(1000), z.array(z.string().min(1).max(100)).max(50)])
    .describe('Only these marker types (decision, breaking, security, bug, api, pattern, perf, todo, ref, or a configured one); a list or a comma list')
    .optional(),
  query: z.string().min(1).max(1000).describe("Words every marker's text must hold").optional(),
  session_id: SESSION_ID.optional(),
  since: z.string().min(1).max(200).describe('Only at or after this ISO date or date-time').optional(),
  until: z.string().min(1).max(200).describe('Only before this ISO date or date-time').optional(),
  limit: z.number().int().min(1).max(200).describe('Most markers returned, newest first (default 50)').optional(),
  all_projects: ALL_PROJECTS,
});

const MARKER_OUTPUT = z.object({
  type: z.string(),
  content: z.string(),
  importance: z.number(),
  priority: z.number().int(),
  session_id: z.string(),
  entry_id: z.string(),
  source_field: z.enum(['prompt', 'response']),
  line: z.number().int(),
  context: z.object({ before: z.string(), after: z.string() }),
  timestamp: z.string().nullable(),
  project: z.string().nullable(),
});

export const MARKERS_OUTPUT = { counts: z.record(z.string(), z.number().int()), markers: z.array(MARKER_OUTPUT) };

/** Where `moon rlm index` output is looked for when the caller names no index: beside the Puffin history. */
export const DEFAULT_HISTORY_INDEX = join('.puffin', 'history.index.json');

export const HISTORY_INDEX_QUERY_INPUT = z.strictObject({
  query: z.string().max(2000).describe('Words to look for in the history (optional with marker or topic)').optional(),
  index: z
    .string()
    .min(1)
    .max(4096)
    .describe(`The history index file (moon rlm index --out), inside the caller's project or the moon home; relative to the project. Default ${DEFAULT_HISTORY_INDEX}`)
    .optional(),
  marker: z.string().min(1).max(64).describe('Only segments holding @/ markers of this type: decision, breaking, security, bug, api, pattern, perf, todo, ref').optional(),
  topic: z.string().min(1).max(100).describe('Only segments tagged with this topic').optional(),
  limit: z.number().int().min(1).max(RLM_MAX_QUERY_LIMIT).describe('Segments at most (default 5)').optional(),
});

const QUERY_MARKER = z.object({ type: z.string(), content: z.string(), promptId: z.string(), sourceField: z.enum(['prompt', 'response']), importance: z.number(), segmentId: z.string() });

export const HISTORY_INDEX_QUERY_OUTPUT = {
  query: z.string(),
  index: z.string(),
  historyFile: z.string(),
  filters: z.object({ marker: z.string().nullable(), topic: z.string().nullable() }),
  segments: z.array(
    z.object({
      id: z.string(),
      branchId: z.string(),
      score: z.number(),
      summary: z.string(),
      topics: z.array(z.string()),
      keyEntities: z.array(z.string()),
      importanceScore: z.number(),
      startTime: z.string(),
      endTime: z.string(),
      promptCount: z.number().int(),
      tokenCount: z.number().int(),
      matchedBy: z.array(z.string()),
      markers: z.array(QUERY_MARKER),
    }),
  ),
  prompts: z.array(
    z.object({
      id: z.string(),
      segmentId: z.string(),
      branchId: z.string(),
      time: z.string(),
      title: z.string().nullable(),
      score: z.number(),
      excerpts: z.array(z.object({ field: z.enum(['prompt', 'response']), text: z.string() })),
    }),
  ),
  totals: z.object({ segments: z.number().int(), matchedSegments: z.number().int(), promptsSearched: z.number().int() }),
  notes: z.array(z.string()),
};

function historyQueryText(result: HistoryQueryResult): string {
  const lines: string[] = [`${result.segments.length} of ${result.totals.segments} segments (index ${result.index})`];
  for (const segment of result.segments) {
    lines.push('');
    lines.push(`## ${segment.id} — ${segment.branchId}, ${segment.startTime.slice(0, 10)} to ${segment.endTime.slice(0, 10)}, importance ${segment.importanceScore.toFixed(2)}`);
    lines.push(segment.summary);
    if (segment.topics.length > 0) lines.push(`topics: ${segment.topics.join(', ')}`);
    for (const marker of segment.markers) lines.push(`@/${marker.type}: ${marker.content} (prompt ${marker.promptId})`);
    for (const prompt of result.prompts.filter((item) => item.segmentId === segment.id)) {
      lines.push(`- prompt ${prompt.id} (${prompt.time})${prompt.title ? ` ${prompt.title}` : ''}`);
      for (const excerpt of prompt.excerpts) lines.push(`  ${excerpt.field}: ${excerpt.text}`);
    }
  }
  for (const note of result.notes) lines.push(`note: ${note}`);
  return lines.join('\n');
}

function toMemoryEntry(memory: LongTermMemory): z.infer<typeof MEMORY_ENTRY> {
  return {
    id: memory.id,
    text: memory.text,
    namespace_id: memory.namespace_id,
    scope: memory.scope,
    review_state: memory.review_state,
    version: memory.version,
    updated_at: new Date(memory.updated_at_ms).toISOString(),
  };
}

export function registerTools(server: McpServer, context: ToolContext): void {
  /** The caller's project folder: its first root, else the server's working directory. */
  const callerCwd = async (): Promise<string> => (await context.roots()).map(rootPath).find((path): path is string => path !== null) ?? context.cwd;
  /** The caller's project folders (its roots, else the server's working directory) and the first of them. */
  const callerRoots = async (): Promise<{ roots: string[]; base: string }> => {
    const roots = (await context.roots()).map(rootPath).filter((path): path is string => path !== null);
    return roots.length > 0 ? { roots, base: roots[0]! } : { roots: [context.cwd], base: context.cwd };
  };

  server.registerTool(
    'remember',
    {
      title: 'Remember a learning (as a draft)',
      description:
        "Propose one durable learning for the caller's project — a convention, a decision, a pitfall — as a DRAFT long-term memory with provenance. A person approves it (moon memory approve) before it is ever handed to an agent; a near-duplicate of an existing entry is merged into it.",
      inputSchema: REMEMBER_INPUT,
      outputSchema: REMEMBER_OUTPUT,
      annotations: { title: 'Remember a learning (as a draft)', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      context.guard('remember', async () => {
        const memory = await context.moon().memory.longTerm();
        const result = await memory.add({
          text: args.text,
          scope: args.scope,
          sessionIds: args.session_id ? [args.session_id] : undefined,
          messageIds: args.message_ids,
          cwd: await callerCwd(),
        });
        const output = await context.moon().agents.makeSafe({ outcome: result.outcome, memory: toMemoryEntry(result.memory) });
        return answer(`${output.outcome === 'created' ? 'Saved as a draft' : 'Merged into an existing entry'} (${output.memory.id}, ${output.memory.review_state}): a person approves it before it is used.`, output);
      }),
  );

  server.registerTool(
    'memory_search',
    {
      title: 'Search long-term memory',
      description: "The caller's project's long-term memories (conventions, decisions, pitfalls) whose text holds every word of the query: approved ones, or drafts and deprecated ones too with include_drafts.",
      inputSchema: MEMORY_SEARCH_INPUT,
      outputSchema: MEMORY_SEARCH_OUTPUT,
      annotations: { title: 'Search long-term memory', ...READ_ONLY },
    },
    (args) =>
      context.guard('memory_search', async () => {
        const memory = await context.moon().memory.longTerm();
        const found = await memory.search({ query: args.query, states: args.include_drafts ? undefined : ['approved'], limit: args.limit ?? 10, cwd: await callerCwd() });
        const output = await context.moon().agents.makeSafe({ memories: found.map(toMemoryEntry) });
        const lines = output.memories.map((entry) => `- [${entry.review_state}] ${entry.text} (${entry.id})`);
        return answer(frameHistory(lines.length > 0 ? lines.join('\n') : '(no long-term memory matches)'), output);
      }),
  );

  server.registerTool(
    'decisions',
    {
      title: 'Decisions and what became of them',
      description:
        "Choices stated in the caller's project's earlier sessions, each followed to its outcome: verified (its change landed in a commit or a check passed after it), claimed (nothing yet backs it) or stale (reverted, or its files changed since). Verified first. Pass words of the topic.",
      inputSchema: DECISIONS_INPUT,
      outputSchema: DECISIONS_OUTPUT,
      annotations: { title: 'Decisions and what became of them', ...READ_ONLY },
    },
    (args) =>
      context.guard('decisions', async () => {
        const result = await context.moon().memory.decisions({ query: args.query ?? null, limit: args.limit ?? 10, cwd: await callerCwd() });
        const output = await context.moon().agents.makeSafe({
          namespace: result.scope.namespace,
          decisions: result.decisions.map((decision) => ({
            text: decision.text,
            state: decision.state,
            session_id: decision.session_id,
            message_ids: decision.run_ref?.message_ids ?? [decision.message_id],
            files: decision.files,
            commits: decision.commits,
            verified_by: decision.verified_by?.how ?? null,
            stale_reason: decision.stale_reason,
          })),
        });
        const lines = output.decisions.map((decision) => `- ${decision.state}: ${decision.text} (session ${decision.session_id}${decision.stale_reason ? `; ${decision.stale_reason}` : ''})`);
        return answer(frameHistory(lines.length > 0 ? lines.join('\n') : '(no decisions on this in the project)'), output);
      }),
  );

  server.registerTool(
    'fixes',
    {
      title: 'Fixes that worked for an error',
      description:
        "Error signatures seen in the caller's project and the fixes that worked for them, best first — each with its state (verified by a later passing run or a landed commit, claimed, or stale) and its evidence (sessions, message ids, files, commits). Pass the error text you are facing.",
      inputSchema: FIXES_INPUT,
      outputSchema: FIXES_OUTPUT,
      annotations: { title: 'Fixes that worked for an error', ...READ_ONLY },
    },
    (args) =>
      context.guard('fixes', async () => {
        const result = await context.moon().memory.fixes({ query: args.query ?? null, limit: args.limit ?? 10, cwd: await callerCwd() });
        const output = await context.moon().agents.makeSafe({
          namespace: result.scope.namespace,
          patterns: result.patterns.map((pattern) => ({
            signature: pattern.signature,
            state: pattern.state,
            count: pattern.count,
            worked: pattern.worked,
            sample: pattern.sample,
            evidence: pattern.evidence.map((item) => ({ session_id: item.session_id, message_ids: item.message_ids, files: item.files, commits: item.commits, state: item.state })),
          })),
        });
        const lines = output.patterns.map((pattern) => `- ${pattern.state}: \`${pattern.signature}\` — worked ${pattern.worked}×, seen ${pattern.count}×${pattern.evidence[0] ? ` (e.g. session ${pattern.evidence[0].session_id}, files ${pattern.evidence[0].files.join(', ') || 'none'})` : ''}`);
        return answer(frameHistory(lines.length > 0 ? lines.join('\n') : '(no fix patterns for this in the project)'), output);
      }),
  );


  server.registerTool(
    'markers',
    {
      title: '@/ markers of earlier sessions',
      description:
        "The @/ markers written in the caller's project's sessions — lines like `@/decision: use WAL mode`, `@/bug: …`, `@/todo: …` — newest first, each with its session and message id (open it with timeline or get_entries), the lines around it, and how much its type matters (importance). Counts by type come with them.",
      inputSchema: MARKERS_INPUT,
      outputSchema: MARKERS_OUTPUT,
      annotations: { title: '@/ markers of earlier sessions', ...READ_ONLY },
    },
    (args) =>
      context.guard('markers', async () => {
        const types = (typeof args.type === 'string' ? [args.type] : (args.type ?? [])).flatMap((value) => value.split(',')).map((value) => value.trim()).filter((value) => value !== '');
        const result = await context.moon().history.markers({
          types,
          text: args.query ?? null,
          session: args.session_id ?? null,
          since: args.since,
          until: args.until,
          limit: args.limit,
          roots: await context.roots(),
          cwd: context.cwd,
          allProjects: args.all_projects ?? false,
        });
        const output = await context.moon().agents.makeSafe({ counts: result.counts, markers: result.markers.map(toMarkerRecord) });
        const lines = output.markers.map(
          (marker) => `- @/${marker.type}: ${marker.content} (${marker.timestamp ?? 'no time'}; session ${marker.session_id}, message ${marker.entry_id})`,
        );
        return answer(frameHistory(lines.length > 0 ? lines.join('\n') : '(no markers)'), output);
      }),
  );

  server.registerTool(
    'context_pack',
    {
      title: 'Context pack for a task',
      description:
        "Before acting: one token-budgeted pack for the task from the caller's project — planning state (Beads work item, dependencies, ready siblings), what happened in earlier sessions, long-term memory and the repository's own docs — every item with its source and provenance. Parts that are off or unavailable are listed in omitted.",
      inputSchema: CONTEXT_PACK_INPUT,
      outputSchema: CONTEXT_PACK_OUTPUT,
      annotations: { title: 'Context pack for a task', ...READ_ONLY },
    },
    (args) =>
      context.guard('context_pack', async () => {
        const roots = await context.roots();
        const cwd = roots.map(rootPath).find((path): path is string => path !== null) ?? context.cwd;
        const pack = await context.moon().memory.contextPack({ task: args.task, budget: args.budget, error: args.error ?? null, planning: args.planning ?? null, cwd });
        return answer(formatPack(pack), pack);
      }),
  );

  server.registerTool(
    'history_index_query',
    {
      title: 'Search a Puffin history index',
      description:
        "Search a Puffin prompt history through its pre-computed RLM index (moon rlm index): segments ranked by topics, key entities, @/ markers (decision, bug, todo, …) and summaries, then excerpts of the matching prompts from the history file — read a few segments instead of the whole history. Filter by marker type or topic.",
      inputSchema: HISTORY_INDEX_QUERY_INPUT,
      outputSchema: HISTORY_INDEX_QUERY_OUTPUT,
      annotations: { title: 'Search a Puffin history index', ...READ_ONLY },
    },
    (args) =>
      context.guard('history_index_query', async () => {
        // The index, and the history it leads to, are read only inside the caller's project or the moon home.
        const project = await callerRoots();
        const allowed = { roots: [...project.roots, context.moon().paths.home], base: project.base };
        const indexPath = confinePath(args.index ?? DEFAULT_HISTORY_INDEX, { ...allowed, argument: 'index' });
        const result = await context.moon().memory.rlmQuery({
          query: args.query ?? '',
          indexPath,
          marker: args.marker,
          topic: args.topic,
          limit: args.limit,
          confine: (path) => confinePath(path, { ...allowed, argument: "index (the history file it names)" }),
        });
        const output = await context.moon().agents.makeSafe(result);
        return answer(frameHistory(historyQueryText(output)), output);
      }),
  );

  server.registerTool(
    'recall',
    {
      title: 'Recall earlier work',
      description:
        "Search the history of earlier coding-agent sessions (Claude Code, Codex, OpenClaw) for decisions, fixes, commands and conversations. Returns compact hits — session id, the matching message ids, time, score and a short snippet — scoped to the caller's project unless all_projects is true. Open a hit with timeline (entries around a message) or get_entries (whole messages).",
      inputSchema: RECALL_INPUT,
      outputSchema: RECALL_OUTPUT,
      annotations: { title: 'Recall earlier work', ...READ_ONLY },
    },
    (args) =>
      context.guard('recall', async () => {
        const { all_projects: allProjects, ...request } = args;
        const options = parseRecallRequest(request);
        const moon = context.moon();
        const named = (options.session ?? []).length > 0;
        const scope = named ? null : await resolveScope(context, moon, allProjects);
        const scoped = scope === null ? options : scopeRecallOptions(options, scope);
        const result: RecallResult = scoped === null ? { query: options.query, matches: [], generated_at_epoch_secs: Math.floor(moon.clock() / 1000) } : await moon.history.recall(scoped);
        const safe = await context.safe();
        const output = shapeRecall(safe, result, describeRecallScope(scope, named));
        return answer(recallText(output), output);
      }),
  );

  server.registerTool(
    'timeline',
    {
      title: 'Entries around a message or a time',
      description:
        'The entries before and after one message (a message id from recall) or a time, in session order, each with its message id: how a hit is expanded. With a time and no session_id it reads across the sessions of the caller project (all_projects: every project).',
      inputSchema: TIMELINE_INPUT,
      outputSchema: TIMELINE_OUTPUT,
      annotations: { title: 'Entries around a message or a time', ...READ_ONLY },
    },
    (args) =>
      context.guard('timeline', async () => {
        const moon = context.moon();
        const acrossSessions = args.session_id === undefined && args.message_id === undefined;
        const scope = acrossSessions ? await resolveScope(context, moon, args.all_projects) : null;
        const result = await moon.history.timeline({
          messageId: args.message_id,
          time: args.time,
          sessionId: args.session_id,
          before: args.before,
          after: args.after,
          tz: args.tz,
          withinSessions: scope?.kind === 'project' && !scope.everything ? scope.sessionIds : undefined,
        });
        if (!result.found) throw new MoonError('not_found', describeTimelineMiss(result.reason, result.query, result.candidates, scope));
        const safe = await context.safe();
        const output = {
          focus: {
            message_id: result.focus.message_id === null ? null : safe.line(result.focus.message_id),
            time: result.focus.time === null ? null : safe.line(result.focus.time),
            entry_id: safe.line(result.focus.entry_id),
            session_id: safe.line(result.focus.session_id),
            at: result.focus.at,
          },
          ...(scope ? { scope: describeRecallScope(scope) } : {}),
          sessions: result.sessions.map((session) => shapeSession(safe, session)),
          entries: result.entries.map((entry) => shapeEntry(safe, entry, { text: BUDGET.entryText, result: BUDGET.entryResult })),
        };
        return answer(timelineText(output), output);
      }),
  );

  server.registerTool(
    'get_entries',
    {
      title: 'Whole messages by id',
      description:
        "Full entries (message text, tool call and result) by the message ids recall or timeline returned. Ids that match nothing are listed in missing. session_id narrows the lookup (some agents' ids repeat across sessions).",
      inputSchema: ENTRIES_INPUT,
      outputSchema: ENTRIES_OUTPUT,
      annotations: { title: 'Whole messages by id', ...READ_ONLY },
    },
    (args) =>
      context.guard('get_entries', async () => {
        const result = await context.moon().history.getEntries({ ids: args.ids, sessionId: args.session_id, tz: args.tz });
        if (!result.found) throw new MoonError('not_found', describeSessionMiss(result.session, result.reason, result.candidates));
        const safe = await context.safe();
        let left = BUDGET.entriesTotal;
        const entries = result.entries.map((entry) => {
          // Whole while the answer has room; past it, cut like a timeline entry.
          const whole = left > 0;
          const shaped = shapeEntry(safe, entry, whole ? { text: BUDGET.fullText, result: BUDGET.fullResult } : { text: BUDGET.entryText, result: BUDGET.entryResult });
          left -= shaped.text.length + (shaped.result?.length ?? 0);
          return shaped;
        });
        const output = {
          entries,
          missing: result.missing.map((id) => safe.line(id)),
          sessions: result.sessions.map((session) => shapeSession(safe, session)),
        };
        return answer(entriesText(output), output);
      }),
  );

  server.registerTool(
    'get_session',
    {
      title: 'A session, whole or a slice',
      description:
        "A session's projection (moon's markdown account of it: timeline, conversation, tool activity, decisions), or a slice of its entries by message ids (from_entry, to_entry) or time (since, until). Bounded by max_chars.",
      inputSchema: SESSION_INPUT,
      outputSchema: SESSION_OUTPUT,
      annotations: { title: 'A session, whole or a slice', ...READ_ONLY },
    },
    (args) =>
      context.guard('get_session', async () => {
        const result = await context.moon().history.getSession({
          id: args.session_id,
          fromEntry: args.from_entry,
          toEntry: args.to_entry,
          since: args.since,
          until: args.until,
          tz: args.tz,
        });
        if (!result.found) throw new MoonError('not_found', describeSessionMiss(result.session, result.reason, result.candidates));
        const safe = await context.safe();
        const budget = args.max_chars ?? BUDGET.sessionDefault;
        let truncated = false;
        let projection: string | null = null;
        if (result.projection !== null) {
          const clipped = safe.clip(result.projection, budget);
          truncated = clipped.cut;
          projection = clipped.text;
        }
        let left = budget;
        const entries = [];
        for (const entry of result.entries) {
          if (left <= 0) {
            truncated = true;
            break;
          }
          const shaped = shapeEntry(safe, entry, { text: Math.min(BUDGET.entryText, left), result: Math.min(BUDGET.entryResult, left) });
          left -= shaped.text.length + (shaped.result?.length ?? 0) + 80;
          entries.push(shaped);
        }
        const output = {
          session: shapeSession(safe, result.session),
          projection,
          slice:
            result.slice === null
              ? null
              : {
                  from_entry: result.slice.from_entry === null ? null : safe.line(result.slice.from_entry),
                  to_entry: result.slice.to_entry === null ? null : safe.line(result.slice.to_entry),
                  since: result.slice.since === null ? null : safe.line(result.slice.since),
                  until: result.slice.until === null ? null : safe.line(result.slice.until),
                  total_entries: result.slice.total_entries,
                },
          entries,
          truncated,
        };
        return answer(sessionText(output), output);
      }),
  );
}

/** A client root (file:// URI or path) as a folder path, or null. */
function rootPath(root: string): string | null {
  if (root.startsWith('file://')) {
    try {
      return fileURLToPath(root);
    } catch {
      return null;
    }
  }
  return root.startsWith('/') ? root : null;
}

async function resolveScope(context: ToolContext, moon: Moon, allProjects: boolean | undefined): Promise<ProjectScope> {
  if (allProjects) return moon.history.resolveScope({ allProjects: true });
  return moon.history.resolveScope({ roots: await context.roots(), cwd: context.cwd });
}

function answer(text: string, structured: object): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured as Record<string, unknown> };
}

function describeSessionMiss(session: string, reason: 'unknown' | 'ambiguous', candidates: string[]): string {
  return reason === 'ambiguous'
    ? `session "${session}" is ambiguous: it starts ${candidates.length} session ids (${candidates.join(', ')}); give more of it`
    : `no session "${session}" in the index`;
}

function describeTimelineMiss(reason: string, query: string, candidates: string[], scope: ProjectScope | null): string {
  switch (reason) {
    case 'unknown_session':
      return `no session "${query}" in the index`;
    case 'ambiguous_session':
      return `session "${query}" is ambiguous: it starts ${candidates.length} session ids (${candidates.join(', ')}); give more of it`;
    case 'unknown_message':
      return `no message "${query}" in the index (message ids come from recall's message_ids or a timeline's entries)`;
    case 'ambiguous_message':
      return `message id "${query}" is in ${candidates.length} sessions (${candidates.join(', ')}): pass session_id`;
    default:
      return scope?.kind === 'project'
        ? `no entries near ${query} in this project; all_projects: true reads every project`
        : `no entries near ${query}`;
  }
}
