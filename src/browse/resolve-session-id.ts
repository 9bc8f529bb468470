import { MoonError } from '../errors.js';
import type { BrowsePort } from '../store/ports.js';
import type { SessionMatch } from '../store/types.js';

/**
 * Session ids as people and agents give them back: the whole id, or the start of it that moon prints (hooks and
 * summaries show the first 8 characters). Every interface that takes a session id resolves it here, once, so the
 * CLI, the MCP tools and the HTTP routes accept and refuse the same things.
 *
 * - An id equal to an indexed session's id names it, whatever its length.
 * - Otherwise it is a prefix of the id as printed, source prefix included (`puffin-…`), and must give at least
 *   MIN_PREFIX_CHARS characters beyond that source prefix; shorter is an error saying so.
 * - A prefix matching one session names it. One matching a session and its subagents (whose ids extend the
 *   parent's: `<id>:agent-…`) names the parent, which would otherwise have no short form of its own.
 * - A prefix matching several sessions is ambiguous (an error listing up to MAX_CANDIDATES of them); one
 *   matching none is unknown.
 */

/** Characters a prefix must give (beyond a source prefix such as `puffin-`): the form moon prints. */
export const MIN_PREFIX_CHARS = 8;
/** Sessions an ambiguous prefix lists. */
export const MAX_CANDIDATES = 10;

/** Ids a source writes with a prefix of its own name: the prefix is not part of what tells sessions apart. */
const SOURCE_PREFIX = /^puffin-/;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
/** A Puffin conversation's id: its first prompt's, a UUID or a 16–17 character base-36 id (`mjgemr768h20qxza1`). */
const PUFFIN_ID = /^puffin-[0-9a-z]{16,}$/i;

export type SessionIdResolution =
  | { kind: 'found'; session: SessionMatch }
  /** `candidates`: the first MAX_CANDIDATES by id; `more`: whether others match too. */
  | { kind: 'ambiguous'; wanted: string; candidates: SessionMatch[]; more: boolean }
  | { kind: 'unknown'; wanted: string };

/**
 * Whether an id is whole rather than the start of one: it holds a complete UUID, or is a Puffin id. Claude Code and
 * Codex ids are UUIDs (a subagent's `<uuid>:agent-<id>`, a second transcript reusing an id `<uuid>~<hash>`),
 * OpenClaw's are UUIDs, Puffin's `puffin-<first prompt id>`. An id of another form (a file name standing in for a
 * missing id) cannot be told from a prefix: it is whole only when a session has exactly that id.
 */
export function isFullLengthSessionId(id: string): boolean {
  return UUID.test(id) || PUFFIN_ID.test(id);
}

/** An id as moon prints it in summaries: the first MIN_PREFIX_CHARS characters after any source prefix. */
export function shortenSessionId(id: string): string {
  const source = SOURCE_PREFIX.exec(id)?.[0] ?? '';
  const full = id.length > source.length + MIN_PREFIX_CHARS + 4;
  return full ? id.slice(0, source.length + MIN_PREFIX_CHARS) : id;
}

/**
 * What `wanted` names among `matches` (the sessions whose id equals or starts with it, exact first, as
 * BrowsePort.findSessionsByPrefix gives them, asked for MAX_CANDIDATES + 1). Throws when `wanted` is not an exact
 * id and too short to be a prefix.
 */
export function chooseSession(wanted: string, matches: readonly SessionMatch[], field?: string): SessionIdResolution {
  const exact = matches.find((match) => match.id === wanted);
  if (exact) return { kind: 'found', session: exact };
  checkPrefixLength(wanted, field);
  if (matches.length === 0) return { kind: 'unknown', wanted };
  if (matches.length === 1) return { kind: 'found', session: matches[0]! };
  const complete = matches.length <= MAX_CANDIDATES;
  const ids = new Set(matches.map((match) => match.id));
  const roots = matches.filter((match) => match.parentSessionId === null || !ids.has(match.parentSessionId));
  if (complete && roots.length === 1) return { kind: 'found', session: roots[0]! };
  return { kind: 'ambiguous', wanted, candidates: matches.slice(0, MAX_CANDIDATES), more: !complete };
}

/**
 * Refuse a prefix too short to tell sessions apart (an exact id of any length is matched before this). `field`:
 * the request field the id came from, named first in the message (none for a command's own argument).
 */
export function checkPrefixLength(wanted: string, field?: string): void {
  const source = SOURCE_PREFIX.exec(wanted)?.[0] ?? '';
  if (wanted.length - source.length >= MIN_PREFIX_CHARS) return;
  const what = wanted === '' ? 'an empty session id' : `"${wanted}" is no session's id, and as a prefix it is too short`;
  throw new MoonError('bad_usage', `${named(field)}${what}: give the whole id or at least its first ${MIN_PREFIX_CHARS} characters${source ? ` after "${source}"` : ''}`, {
    field,
    hint: '`moon sessions` lists the ids',
  });
}

function named(field: string | undefined): string {
  return field === undefined ? '' : `${field}: `;
}

/** Resolve one id or prefix against the index; throws only for a prefix too short. */
export async function resolveSessionId(browse: BrowsePort, wanted: string, field?: string): Promise<SessionIdResolution> {
  const trimmed = wanted.trim();
  const matches = trimmed === '' ? [] : await browse.findSessionsByPrefix(trimmed, MAX_CANDIDATES + 1);
  return chooseSession(trimmed, matches, field);
}

/** The full id of the one session `wanted` names; an unknown or ambiguous id is an error that says which. */
export async function requireSessionId(browse: BrowsePort, wanted: string, field?: string): Promise<string> {
  const resolution = await resolveSessionId(browse, wanted, field);
  if (resolution.kind === 'found') return resolution.session.id;
  throw toResolutionError(resolution, field);
}

/**
 * Several ids at once: all resolved before any is used, the first failure thrown (so a command given several
 * forgets none when one is wrong). With `keepUnknownFull`, a full-length id no indexed session has is returned in
 * `unknown` instead of failing (what `forget` tombstones ahead of an index).
 */
export async function requireSessionIds(
  browse: BrowsePort,
  wanted: readonly string[],
  options: { field?: string; keepUnknownFull?: boolean } = {},
): Promise<{ ids: string[]; unknown: string[] }> {
  const field = options.field;
  const ids: string[] = [];
  const unknown: string[] = [];
  const failures: MoonError[] = [];
  for (const item of wanted) {
    const resolution = await resolveSessionId(browse, item, field);
    if (resolution.kind === 'found') ids.push(resolution.session.id);
    else if (resolution.kind === 'unknown' && options.keepUnknownFull && isFullLengthSessionId(resolution.wanted)) unknown.push(resolution.wanted);
    else failures.push(toResolutionError(resolution, field));
  }
  if (failures.length === 1) throw failures[0]!;
  if (failures.length > 1) {
    throw new MoonError(failures.some((failure) => failure.code === 'bad_usage') ? 'bad_usage' : 'not_found', failures.map((failure) => failure.message).join('\n'), {
      field,
      hint: failures[0]!.hint,
    });
  }
  return { ids: [...new Set(ids)], unknown: [...new Set(unknown)] };
}

/** The error an unresolved id is: not_found for an unknown one, bad_usage (give more of it) for an ambiguous one. */
export function toResolutionError(resolution: Exclude<SessionIdResolution, { kind: 'found' }>, field?: string): MoonError {
  if (resolution.kind === 'unknown') {
    const prefix = isFullLengthSessionId(resolution.wanted) ? '' : ', nor one whose id starts with it';
    return new MoonError('not_found', `${named(field)}no session ${resolution.wanted} in the index${prefix}`, {
      field,
      hint: '`moon sessions` lists the ids; `moon index` adds new transcripts',
    });
  }
  return new MoonError('bad_usage', `${named(field)}${describeAmbiguity(resolution)}`, { field, hint: 'give more of the id' });
}

/** "x" matches N sessions: one line each with its start (UTC), source and title. */
export function describeAmbiguity(resolution: Extract<SessionIdResolution, { kind: 'ambiguous' }>): string {
  const count = resolution.more ? `more than ${resolution.candidates.length}` : String(resolution.candidates.length);
  const lines = resolution.candidates.map((match) => `  ${describeMatch(match)}`);
  if (resolution.more) lines.push('  …');
  return [`"${resolution.wanted}" matches ${count} sessions:`, ...lines].join('\n');
}

function describeMatch(match: SessionMatch): string {
  const start = match.startMs === null ? 'no time' : `${new Date(match.startMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const about = match.title ?? match.project ?? '(untitled)';
  return `${match.id}  ${start}  ${match.source}  ${oneLine(about)}${match.parentSessionId ? ` (subagent of ${match.parentSessionId})` : ''}`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 60 ? `${flat.slice(0, 59)}…` : flat;
}
