import { MoonError } from '../errors.js';
import type { Entry, RecallMatch, RecallResult } from '../model.js';
import type { Candidate, SearchFilters, Store, StoredSession } from '../store/store.js';
import { type RecallOptions, parseIsoBound } from './options.js';
import { makeSnippet } from './snippet.js';
import { dropStopwords, splitQueryTerms } from './terms.js';

export interface RecallEnvironment {
  store: Store;
  /** Default zone for dates without an offset. */
  timezone: string;
  defaults: { limit: number; messagesPerSession: number; snippetChars: number };
  /** Path of a session's projection when the index has none recorded. */
  projectionPathFor: (sessionId: string) => string;
  nowMs: () => number;
}

/** Weight of a session's 1st, 2nd, 3rd ... best message in its score: one strong hit beats many weak ones. */
const SESSION_DECAY = [1, 0.5, 0.25, 0.125, 0.0625];

export function recall(environment: RecallEnvironment, options: RecallOptions): RecallResult {
  const limit = options.limit ?? environment.defaults.limit;
  const perSession = options.messagesPerSession ?? environment.defaults.messagesPerSession;
  const zone = options.tz ?? environment.timezone;
  if (!Number.isInteger(limit) || limit <= 0) throw new MoonError('bad_usage', `--limit: expected a positive integer, got ${limit}`);
  const terms = dropStopwords(splitQueryTerms(options.query));
  const required = (options.require ?? []).flatMap(splitQueryTerms);
  const excluded = (options.exclude ?? []).flatMap(splitQueryTerms);
  const filters: SearchFilters = {
    sessionIds: options.session,
    excludeSessionIds: options.excludeSession,
    projects: options.project,
    sources: options.source,
    roles: options.role,
    tools: options.tool,
    sinceMs: options.since ? parseIsoBound('--since', options.since, zone) : undefined,
    untilMs: options.until ? parseIsoBound('--until', options.until, zone) : undefined,
  };
  const group = options.group ?? 'session';
  const pool = group === 'message' ? limit : Math.max(100, limit * perSession * 8);
  const candidates = environment.store.searchLexical({ any: terms, all: required, none: excluded, filters, limit: pool });
  const highlight = [...terms, ...required];
  const sessions = new Map<string, StoredSession | null>();
  const sessionOf = (id: string): StoredSession | null => {
    if (!sessions.has(id)) sessions.set(id, environment.store.getSession(id));
    return sessions.get(id) ?? null;
  };
  const matches =
    group === 'message'
      ? candidates.slice(0, limit).map((candidate) => toMatch(environment, sessionOf, [candidate], candidate.score, 1, highlight))
      : groupBySession(candidates, limit, perSession).map((grouped) =>
          toMatch(environment, sessionOf, grouped.top, grouped.score, grouped.count, highlight),
        );
  return { query: options.query, matches, generated_at_epoch_secs: Math.floor(environment.nowMs() / 1000) };
}

interface SessionGroup {
  sessionId: string;
  top: Candidate[];
  score: number;
  count: number;
  latestMs: number;
}

/** Seed 002 stage 4: aggregate messages per session, rank sessions by score then recency, keep top M each. */
function groupBySession(candidates: Candidate[], limit: number, perSession: number): SessionGroup[] {
  const groups = new Map<string, SessionGroup>();
  for (const candidate of candidates) {
    const id = candidate.entry.sessionId;
    let group = groups.get(id);
    if (!group) {
      group = { sessionId: id, top: [], score: 0, count: 0, latestMs: -Infinity };
      groups.set(id, group);
    }
    group.count += 1;
    group.latestMs = Math.max(group.latestMs, candidate.entry.ts ?? -Infinity);
    if (group.top.length < perSession) group.top.push(candidate);
  }
  for (const group of groups.values()) {
    group.score = group.top.reduce((sum, candidate, index) => sum + candidate.score * (SESSION_DECAY[index] ?? 0), 0);
  }
  return [...groups.values()]
    .sort((a, b) => b.score - a.score || b.latestMs - a.latestMs || a.sessionId.localeCompare(b.sessionId))
    .slice(0, limit);
}

function toMatch(
  environment: RecallEnvironment,
  sessionOf: (id: string) => StoredSession | null,
  top: Candidate[],
  score: number,
  count: number,
  terms: string[],
): RecallMatch {
  const first = top[0]!.entry;
  const session = sessionOf(first.sessionId);
  const snippetChars = environment.defaults.snippetChars;
  const snippet = top.map((candidate) => `[${roleLabel(candidate.entry)}] ${makeSnippet(searchableText(candidate.entry), terms, snippetChars)}`).join('\n');
  return {
    archive_path: session?.projectionPath ?? environment.projectionPathFor(first.sessionId),
    snippet,
    score: round(score),
    metadata: {
      session_id: first.sessionId,
      source: session?.source ?? 'claude-code',
      project: session?.project ?? null,
      cwd: session?.cwd ?? null,
      branch: session?.branch ?? null,
      message_ids: top.map((candidate) => candidate.entry.id),
      timestamps: top.map((candidate) => toIso(candidate.entry.ts)),
      roles: top.map((candidate) => candidate.entry.role),
      tools: top.map((candidate) => candidate.entry.toolName),
      scores: top.map((candidate) => round(candidate.score)),
      match_count: count,
      session_start: toIso(session?.startMs ?? null),
      session_end: toIso(session?.endMs ?? null),
      raw_archive_path: session?.archivePath ?? null,
    },
  };
}

function searchableText(entry: Entry): string {
  return entry.result ? `${entry.text} → ${entry.result}` : entry.text;
}

function roleLabel(entry: Entry): string {
  return entry.role === 'tool' && entry.toolName ? `tool:${entry.toolName}` : entry.role;
}

function toIso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
