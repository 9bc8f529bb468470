import { z } from 'zod';
import type { RecallMatch, RecallResult, SafeText, ShownEntry, ShownSession } from '../../index.js';
import { frameHistory, toRecallOutput } from '../../index.js';

/**
 * What the MCP tools return: the structured shapes (zod, sent as each tool's outputSchema) and the text a client
 * shows the model. Every string that comes from history passes through the safe-text function (bounded, controls
 * and markup neutralised, secrets redacted again); the text content puts history inside the quoted-history frame.
 */

/** Per-field and per-answer budgets, in characters. A hit costs a snippet; an opened entry costs its text. */
export const BUDGET = {
  /** One recall hit's snippet (one line per matched message). */
  hitSnippet: 4000,
  /** One entry in a timeline or a session slice. */
  entryText: 1500,
  entryResult: 800,
  /** One entry fetched whole with get_entries. */
  fullText: 20_000,
  fullResult: 20_000,
  /** Everything a get_entries answer holds; entries past it are cut to the timeline budget. */
  entriesTotal: 120_000,
  /** get_session's default and largest answer. */
  sessionDefault: 40_000,
  sessionMax: 200_000,
  /** Ids, names, paths, titles. */
  short: 300,
  /** A memory file handed as a resource. */
  resource: 200_000,
};

const nullableText = z.string().nullable();

export const SESSION_SHAPE = z.object({
  session_id: z.string(),
  source: z.string(),
  project: nullableText,
  cwd: nullableText,
  title: nullableText,
  first_prompt: nullableText.describe('The start of the first user message: what people see when title is null'),
  start: nullableText.describe('Local ISO time with offset'),
  end: nullableText,
  projection_path: z.string().describe("The session's projection (markdown) in the moon home"),
});

export const ENTRY_SHAPE = z.object({
  id: z.string().describe('The message id: pass to get_entries or timeline'),
  session_id: z.string(),
  time: nullableText.describe('Local ISO time with offset'),
  ts: z.number().nullable().describe('Epoch milliseconds'),
  role: z.string(),
  kind: nullableText,
  tool: nullableText,
  target: nullableText.describe('What a tool call acted on: a command or a path'),
  text: z.string(),
  result: nullableText.describe("A tool call's result"),
  exit_code: z.number().nullable(),
  status: nullableText,
  focus: z.boolean().describe('The entry the timeline or show is centered on'),
  truncated: z.boolean().describe('Text or result was cut to the budget; get_entries gives more of it'),
});

export const SCOPE_SHAPE = z.object({
  projects: z.enum(['current', 'all']).describe('current: only sessions of the caller project; all: every project'),
  reason: z
    .enum(['roots', 'cwd', 'all_projects', 'no_project', 'unmatched_cwd', 'session'])
    .describe('roots/cwd: what the project was taken from; unmatched_cwd: the working directory matched no indexed project; session: the call named sessions'),
  roots: z.array(z.string()),
});

/** Seed 001's RecallResult, as every door answers a recall (src/search/recall-output.ts). */
export const RECALL_OUTPUT = {
  query: z.string(),
  matches: z.array(
    z.object({
      archive_path: z.string().describe("The session's projection (markdown) in the moon home"),
      snippet: z.string().describe('One line per message in metadata.message_ids order: [role] excerpt'),
      score: z.number(),
      metadata: z
        .looseObject({
          session_id: z.string(),
          source: z.string(),
          project: nullableText,
          cwd: nullableText,
          branch: nullableText,
          message_ids: z.array(z.string()).describe('The best matching messages, best first: open with timeline or get_entries'),
          timestamps: z.array(nullableText).describe('UTC ISO times, parallel to message_ids'),
          roles: z.array(z.string()),
          tools: z.array(nullableText),
          match_count: z.number().describe('Messages of the session that matched'),
          session_start: nullableText,
          session_end: nullableText,
          time_window: z.string().optional().describe('outside: outside the time the query named, shown after the matches inside it'),
          explain: z.unknown().optional(),
        })
        .describe('session_id, message_ids and what else seed 001 names'),
    }),
  ),
  generated_at_epoch_secs: z.number(),
  scope: SCOPE_SHAPE,
  notes: z.array(z.string()).optional().describe('Present when part of the query was not searched, or to say how it was scoped'),
};

export const TIMELINE_OUTPUT = {
  focus: z.object({ message_id: nullableText, time: nullableText, entry_id: z.string(), session_id: z.string(), at: nullableText }),
  scope: SCOPE_SHAPE.optional(),
  sessions: z.array(SESSION_SHAPE),
  entries: z.array(ENTRY_SHAPE),
};

export const ENTRIES_OUTPUT = {
  entries: z.array(ENTRY_SHAPE),
  missing: z.array(z.string()).describe('Ids that matched no entry'),
  sessions: z.array(SESSION_SHAPE),
};

export const SESSION_OUTPUT = {
  session: SESSION_SHAPE,
  projection: nullableText.describe('The session projection (markdown), without a slice'),
  slice: z
    .object({ from_entry: nullableText, to_entry: nullableText, since: nullableText, until: nullableText, total_entries: z.number() })
    .nullable(),
  entries: z.array(ENTRY_SHAPE),
  truncated: z.boolean().describe('The answer was cut to max_chars: ask for a slice (from_entry/to_entry or since/until)'),
};

type Output<T extends z.ZodRawShape> = z.infer<z.ZodObject<T>>;
export type RecallOutput = Output<typeof RECALL_OUTPUT>;
export type TimelineOutput = Output<typeof TIMELINE_OUTPUT>;
export type EntriesOutput = Output<typeof ENTRIES_OUTPUT>;
export type SessionOutput = Output<typeof SESSION_OUTPUT>;
type EntryOutput = z.infer<typeof ENTRY_SHAPE>;
type SessionShape = z.infer<typeof SESSION_SHAPE>;
type ScopeOutput = z.infer<typeof SCOPE_SHAPE>;

/** The safe-text function with the shapes moon uses: one-line fields and multi-line blocks, both bounded. */
export interface Safe {
  line(text: string, max?: number): string;
  block(text: string, max: number): string;
  /** `block`, and whether it had to cut the text (measured after cleaning). */
  clip(text: string, max: number): { text: string; cut: boolean };
}

export function createSafe(safeText: SafeText): Safe {
  // A megabyte of tool output is cut before it is cleaned: only its start can appear.
  const room = (max: number) => max * 4 + 1024;
  const head = (text: string, max: number) => (text.length > room(max) ? text.slice(0, room(max)) : text);
  const clip = (text: string, max: number) => {
    const chars = Array.from(safeText(head(text, max)));
    const cut = chars.length > max || text.length > room(max);
    return { text: cut ? `${chars.slice(0, Math.max(0, max - 1)).join('')}…` : chars.join(''), cut };
  };
  return {
    line: (text, max = BUDGET.short) => safeText(head(text, max), { oneLine: true, maxChars: max }),
    block: (text, max) => clip(text, max).text,
    clip,
  };
}

const maybe = (safe: Safe, text: string | null, max?: number): string | null => (text === null ? null : safe.line(text, max));

export function shapeRecall(safe: Safe, result: RecallResult, scope: ScopeOutput): RecallOutput {
  const safeScope = { ...scope, roots: scope.roots.map((root) => safe.line(root)) };
  const matches = result.matches.map((match) => ({
    ...(deepSafe(safe, match) as RecallMatch),
    snippet: safe.block(match.snippet, BUDGET.hitSnippet),
    score: match.score,
  }));
  const notes = result.notes?.map((note) => safe.line(note, 1000));
  const output = toRecallOutput({ ...result, query: safe.line(result.query, 2000), matches, ...(notes ? { notes } : {}) }, safeScope);
  return output as RecallOutput;
}

/** Every string inside a JSON value made safe (explanations carry query terms and neighbour ids). */
function deepSafe(safe: Safe, value: unknown): unknown {
  if (typeof value === 'string') return safe.line(value, 1000);
  if (Array.isArray(value)) return value.map((item) => deepSafe(safe, item));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [safe.line(key, 100), deepSafe(safe, inner)]));
  }
  return value;
}

export function shapeSession(safe: Safe, session: ShownSession): SessionShape {
  return {
    session_id: safe.line(session.session_id),
    source: safe.line(session.source),
    project: maybe(safe, session.project),
    cwd: maybe(safe, session.cwd, 1000),
    title: maybe(safe, session.title, 500),
    first_prompt: maybe(safe, session.first_prompt, 500),
    start: session.start,
    end: session.end,
    projection_path: safe.line(session.projection_path, 1000),
  };
}

export function shapeEntry(safe: Safe, entry: ShownEntry, limits: { text: number; result: number }): EntryOutput {
  const text = safe.clip(entry.text, limits.text);
  const result = entry.result === null ? null : safe.clip(entry.result, limits.result);
  return {
    id: safe.line(entry.id),
    session_id: safe.line(entry.session_id),
    time: entry.time,
    ts: entry.ts,
    role: entry.role,
    kind: entry.kind,
    tool: maybe(safe, entry.tool),
    target: maybe(safe, entry.target, 1000),
    text: text.text,
    result: result === null ? null : result.text,
    exit_code: entry.exit_code,
    status: maybe(safe, entry.status),
    focus: entry.focus,
    truncated: text.cut || (result?.cut ?? false),
  };
}

// ---- text content: a header, the history inside the frame, a hint for the next call ----

export function recallText(output: RecallOutput): string {
  const where = scopeWords(output.scope);
  if (output.matches.length === 0) {
    const wider = output.scope.projects === 'current' ? ' Pass all_projects: true to search every project.' : '';
    return `No matches for "${output.query}" ${where}.${wider}${notesText(output.notes)}`;
  }
  const blocks = output.matches.map((match, index) => {
    const meta = match.metadata;
    const head = [
      `[${index + 1}] ${meta.project ?? '-'}`,
      meta.source,
      meta.timestamps[0] ?? '(no time)',
      `score ${match.score}`,
      `session ${meta.session_id}`,
      `${meta.match_count} matching message${meta.match_count === 1 ? '' : 's'}`,
      ...(meta.time_window === 'outside' ? ['outside the time asked for'] : []),
    ].join(' · ');
    return `${head}\nmessage_ids: ${meta.message_ids.join(', ')}\n${indent(match.snippet)}`;
  });
  return [
    `${output.matches.length} match${output.matches.length === 1 ? '' : 'es'} for "${output.query}" ${where}.${notesText(output.notes)}`,
    frameHistory(blocks.join('\n\n')),
    'Open a match: timeline {message_id} for the entries around a message, get_entries {ids, session_id} for whole messages, get_session {session_id} for the session.',
  ].join('\n');
}

export function timelineText(output: TimelineOutput): string {
  const sessions = new Map(output.sessions.map((session) => [session.session_id, session]));
  const across = output.sessions.length > 1;
  const anchor = output.focus.message_id !== null ? `message ${output.focus.message_id}` : `${output.focus.time}`;
  const session = sessions.get(output.focus.session_id);
  const header = across
    ? `Timeline around ${anchor} across ${output.sessions.length} sessions: ${output.entries.length} entries.`
    : `Timeline around ${anchor} in session ${output.focus.session_id} (${describeSession(session)}): ${output.entries.length} entries.`;
  const lines = output.entries.map((entry) => entryText(entry, across));
  return [header, frameHistory(lines.join('\n')), 'get_entries {ids} gives an entry whole.'].join('\n');
}

export function entriesText(output: EntriesOutput): string {
  const missing = output.missing.length > 0 ? ` Not found: ${output.missing.join(', ')}.` : '';
  const header = `${output.entries.length} entr${output.entries.length === 1 ? 'y' : 'ies'}.${missing}`;
  if (output.entries.length === 0) return header;
  return [header, frameHistory(output.entries.map((entry) => entryText(entry, true)).join('\n\n'))].join('\n');
}

export function sessionText(output: SessionOutput): string {
  const header = `Session ${output.session.session_id} (${describeSession(output.session)})`;
  const cut = output.truncated ? ' Cut to max_chars: ask for a slice with from_entry/to_entry or since/until.' : '';
  if (output.slice === null) return [`${header}: projection.${cut}`, frameHistory(output.projection ?? '')].join('\n');
  const range = [
    output.slice.from_entry ? `from ${output.slice.from_entry}` : null,
    output.slice.to_entry ? `to ${output.slice.to_entry}` : null,
    output.slice.since ? `since ${output.slice.since}` : null,
    output.slice.until ? `until ${output.slice.until}` : null,
  ]
    .filter((part) => part !== null)
    .join(', ');
  return [
    `${header}: ${output.entries.length} of ${output.slice.total_entries} entries (${range}).${cut}`,
    frameHistory(output.entries.map((entry) => entryText(entry, false)).join('\n')),
  ].join('\n');
}

function entryText(entry: EntryOutput, withSession: boolean): string {
  const role = entry.tool ? `${entry.role}:${entry.tool}` : entry.role;
  const head = [
    entry.focus ? '>>' : '--',
    entry.time ?? '(no time)',
    `[${role}]`,
    `id ${entry.id}`,
    ...(withSession ? [`session ${entry.session_id}`] : []),
    ...(entry.exit_code !== null ? [`exit ${entry.exit_code}`] : []),
    ...(entry.truncated ? ['(cut)'] : []),
  ].join(' ');
  const result = entry.result === null ? '' : `\n${indent(`→ ${entry.result}`)}`;
  return `${head}\n${indent(entry.text)}${result}`;
}

function describeSession(session: SessionShape | undefined): string {
  if (!session) return '?';
  return [session.project ?? '-', session.source, session.title, session.start].filter((part) => part !== null && part !== '').join(', ');
}

function scopeWords(scope: ScopeOutput): string {
  if (scope.reason === 'session') return 'in the sessions named';
  if (scope.projects === 'all') return scope.reason === 'unmatched_cwd' ? 'in every project (the working directory matches none)' : 'in every project';
  return `in this project (${scope.roots.join(', ')})`;
}

function notesText(notes: string[] = []): string {
  return notes.length > 0 ? ` Note: ${notes.join('; ')}.` : '';
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
