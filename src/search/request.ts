import { DateTime } from 'luxon';
import { z } from 'zod';
import { MoonError, describeError } from '../errors.js';
import { PRIORITIES, ROLES } from '../model.js';
import { SOURCE_NAMES } from '../sources/index.js';
import type { RecallOptions } from './options.js';

/**
 * The recall request: one schema for every caller that sends a recall as data — `moon recall --batch` (one JSON
 * object per line), the MCP `recall` tool, and HTTP `POST /v1/recall` (the body is one batch line). Field names
 * are snake_case; errors name the field (`limit: must be …`), never a CLI flag: the CLI maps fields to its flags.
 *
 * `RECALL_REQUEST_FIELDS` is the canonical shape (strict types, for schemas a client reads); `parseRecallRequest`
 * is the forgiving reader of the same fields that --batch and HTTP use: kebab-case and camelCase spellings of a
 * field, `null` for "not given", and numbers or booleans written as strings.
 */

const ISO_EXAMPLE = 'e.g. 2026-02-21 or 2026-02-21T18:39:00Z';

const text = (what: string) => z.string({ error: `must be a string (${what})` });
/** One value or a list of them: `"project": "shop"` and `"project": ["shop", "api"]` both read. */
const oneOrMany = <T extends z.ZodType>(item: T, what: string) =>
  z.union([item, z.array(item)], {
    // The item's own complaint when the value (or one in the list) is of the right kind but not a valid one.
    error: (issue) => {
      const values: unknown[] = Array.isArray(issue.input) ? issue.input : [issue.input];
      for (const value of values) {
        const checked = typeof value === typeof '' ? item.safeParse(value) : null;
        if (checked && !checked.success) return checked.error.issues[0]?.message;
      }
      return `must be ${what} or a list of them`;
    },
  });
const positive = (description: string) =>
  z
    .number({ error: (issue) => `must be a positive whole number, got ${show(issue.input)}` })
    .int({ error: (issue) => `must be a positive whole number, got ${show(issue.input)}` })
    .min(1, { error: (issue) => `must be a positive whole number, got ${show(issue.input)}` })
    .describe(description);
const isoTime = (description: string) =>
  z
    .string({ error: `must be an ISO date or date-time string (${ISO_EXAMPLE})` })
    .refine((value) => DateTime.fromISO(value.trim(), { zone: 'UTC' }).isValid, {
      error: (issue) => `${show(issue.input)} is not an ISO date or date-time (${ISO_EXAMPLE})`,
    })
    .describe(description);
/** A `since`/`until` bound: ISO, or time words the queries understand (checked, with the field named, by parseTimeBound). */
const timeBound = (description: string) =>
  z
    .string({ error: `must be a string: an ISO date or date-time (${ISO_EXAMPLE}) or time words such as "yesterday"` })
    .min(1, { error: 'must not be empty' })
    .max(200, { error: 'must be at most 200 characters' })
    .describe(description);
/** A marker type as `@/type:` names it; a comma list (`"decision,bug"`) is read as several (see loosen). */
const markerType = z
  .string({ error: 'must be a string (a marker type)' })
  .regex(/^[a-z][a-z0-9_]{0,31}$/, { error: (issue) => `${show(issue.input)} is not a marker type (a lower-case word such as decision, bug, todo)` });
const oneOf = <const T extends readonly [string, ...string[]]>(values: T, description: string) =>
  z.enum(values, { error: (issue) => `${show(issue.input)} is not one of ${values.join(', ')}` }).describe(description);

export const RECALL_REQUEST_FIELDS = {
  query: z
    .string({ error: 'must be a non-empty string' })
    .min(1, { error: 'must be a non-empty string' })
    .refine((value) => value.trim() !== '', { error: 'must be a non-empty string' })
    .describe('What to look for: words, identifiers, paths, or a question; time words ("last week", "yesterday 3pm") narrow the search'),
  limit: positive('Sessions to return (messages with group "message"); default recall.limit (10)').optional(),
  group: oneOf(['session', 'message'], 'session (default): best sessions with their top messages; message: best single messages').optional(),
  require: oneOrMany(text('a word'), 'a string').describe('Every match must contain these words').optional(),
  exclude: oneOrMany(text('a word'), 'a string').describe('No match may contain these words').optional(),
  project: oneOrMany(text('a project'), 'a string')
    .describe('Only these projects: a name matches the project exactly (any case), a value with a slash part of the working directory')
    .optional(),
  session: oneOrMany(text('a session id'), 'a string').describe('Only these sessions (ids)').optional(),
  source: oneOrMany(oneOf(SOURCE_NAMES as unknown as [string, ...string[]], 'an agent'), 'a source name')
    .describe(`Only sessions of these agents: ${SOURCE_NAMES.join(', ')}`)
    .optional(),
  role: oneOrMany(oneOf(ROLES as unknown as ['user', 'assistant', 'tool', 'system'], 'a role'), 'a role')
    .describe(`Only messages of these roles: ${ROLES.join(', ')}`)
    .optional(),
  priority: oneOrMany(oneOf(PRIORITIES as unknown as ['high', 'normal'], 'a priority'), 'a priority')
    .describe('Only messages of these side-effect priorities: high (tool calls that change things: edits, writes, deploys), normal')
    .optional(),
  tool: oneOrMany(text('a tool name'), 'a string').describe('Only calls of these tools (e.g. Bash, Edit, exec_command)').optional(),
  marker: oneOrMany(markerType, 'a marker type')
    .describe('Only messages carrying an @/ marker of these types: decision, breaking, security, bug, api, pattern, perf, todo, ref, or a configured one')
    .optional(),
  since: timeBound('Only at or after this time: an ISO date or date-time (a date alone: its start in tz), or time words ("yesterday", "last week", "3 days ago": the start of that window)').optional(),
  until: timeBound('Only before this time: an ISO date or date-time, or time words (the start of the window they name)').optional(),
  exclude_session: oneOrMany(text('a session id'), 'a string').describe('Never return these sessions').optional(),
  per_session: positive('Messages shown per session; default recall.messages_per_session (5)').optional(),
  now: isoTime('Reference time for relative expressions ("yesterday"), default now').optional(),
  tz: z
    .string({ error: 'must be a string (an IANA time zone or an abbreviation)' })
    .min(1, { error: 'must be an IANA time zone or an abbreviation' })
    .describe('Time zone for times without an offset (IANA name like Australia/Sydney, or an abbreviation); default the residential zone')
    .optional(),
  strategy: oneOf(['hybrid', 'bm25'], 'hybrid (default): fused signals; bm25: the plain baseline').optional(),
  explain: z.boolean({ error: 'must be true or false' }).describe("Attach each signal's contribution per matched message").optional(),
};

export const RecallRequestSchema = z.strictObject(RECALL_REQUEST_FIELDS);

/** A recall request as it travels (snake_case; a list field may hold one value). */
export type RecallRequest = z.infer<typeof RecallRequestSchema>;

export type RecallRequestField = keyof typeof RECALL_REQUEST_FIELDS;

export const RECALL_REQUEST_FIELD_NAMES = Object.keys(RECALL_REQUEST_FIELDS) as RecallRequestField[];

const NUMBER_FIELDS = new Set<string>(['limit', 'per_session']);
const BOOLEAN_FIELDS = new Set<string>(['explain']);

/** `perSession`, `per-session` and `per_session` are one field. */
export function canonicalFieldName(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase();
}

/**
 * Read a recall request sent as data (a parsed JSON object). Throws a `bad_input` MoonError whose message starts
 * with the field as the caller spelled it (`limit: must be a positive whole number, got 0`) and whose `field` is
 * the canonical name.
 */
export function parseRecallRequest(value: unknown): RecallOptions {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new MoonError('bad_input', 'expected a JSON object');
  const fields: Record<string, unknown> = {};
  const spelled = new Map<string, string>();
  for (const [key, inner] of Object.entries(value)) {
    const name = canonicalFieldName(key);
    if (!Object.hasOwn(RECALL_REQUEST_FIELDS, name)) {
      throw new MoonError('bad_input', `unknown field "${key}" (fields: ${RECALL_REQUEST_FIELD_NAMES.join(', ')})`);
    }
    const earlier = spelled.get(name);
    if (earlier !== undefined) throw new MoonError('bad_input', `"${earlier}" and "${key}" are the same field`, { field: name });
    spelled.set(name, key);
    if (inner === null || inner === undefined) continue;
    fields[name] = loosen(name, inner);
  }
  const parsed = RecallRequestSchema.safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? '');
    const label = spelled.get(name) ?? name;
    const where = issue.path.length > 1 ? `${label}[${issue.path.slice(1).join('.')}]` : label;
    if (name === '') throw new MoonError('bad_input', issue.message);
    throw new MoonError('bad_input', `${where}: ${issue.message}`, { field: name });
  }
  return toRecallOptions(parsed.data);
}

/** One `--batch` line (one JSON object) read as a request. */
export function parseRecallRequestLine(line: string): RecallOptions {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new MoonError('bad_input', `malformed JSON (${describeError(error)})`);
  }
  return parseRecallRequest(value);
}

/** A checked request as the library's RecallOptions. */
export function toRecallOptions(request: RecallRequest): RecallOptions {
  return {
    query: request.query,
    limit: request.limit,
    group: request.group,
    require: listOf(request.require) ?? [],
    exclude: listOf(request.exclude) ?? [],
    project: nonEmpty(listOf(request.project)),
    session: nonEmpty(listOf(request.session)),
    source: nonEmpty(listOf(request.source)),
    role: nonEmpty(listOf(request.role)),
    tool: nonEmpty(listOf(request.tool)),
    priority: nonEmpty(listOf(request.priority)) as ('high' | 'normal')[] | undefined,
    marker: nonEmpty(listOf(request.marker)),
    since: request.since,
    until: request.until,
    excludeSession: listOf(request.exclude_session) ?? [],
    messagesPerSession: request.per_session,
    now: request.now,
    tz: request.tz,
    strategy: request.strategy,
    explain: request.explain ?? false,
  };
}

/** Numbers and booleans written as strings (`"limit": "5"`, `"explain": "true"`), as a command line would give them. */
function loosen(name: string, value: unknown): unknown {
  if (name === 'marker') return splitCommas(value);
  if (typeof value !== 'string') return value;
  if (NUMBER_FIELDS.has(name) && /^\s*\d+\s*$/.test(value)) return Number(value);
  if (BOOLEAN_FIELDS.has(name) && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** `"decision,bug"` and `["decision", "bug,todo"]` as lists of types; anything else is left for the schema to judge. */
function splitCommas(value: unknown): unknown {
  const split = (item: unknown): unknown[] => (typeof item === 'string' ? item.split(',').map((part) => part.trim()).filter((part) => part !== '') : [item]);
  if (typeof value !== 'string' && !Array.isArray(value)) return value;
  const parts = typeof value === 'string' ? split(value) : value.flatMap(split);
  // One type reads as one value, so an error names the field (`marker: …`), not an element of a list.
  return parts.length === 1 ? parts[0] : parts;
}

function listOf<T>(value: T | T[] | undefined): T[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

function nonEmpty<T>(values: T[] | undefined): T[] | undefined {
  return values && values.length > 0 ? values : undefined;
}

/** A received value in an error message: strings quoted, anything else as JSON, long values cut. */
function show(value: unknown): string {
  let out: string;
  try {
    out = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    out = String(value);
  }
  return out.length > 80 ? `${out.slice(0, 79)}…` : out;
}
