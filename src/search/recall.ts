import { MoonError } from '../errors.js';
import type { Entry, RecallMatch, RecallResult } from '../model.js';
import type { SearchPort, SessionFieldPort, VectorPort } from '../store/ports.js';
import { isTechnical } from '../text/technical.js';
import type { Candidate, SearchFilters, SessionField, StoredSession } from '../store/types.js';
import { type RankedSession, rankSessionsByFields } from '../fields/rank-sessions.js';
import { selectIndexedText } from '../text/limits.js';
import { CONTEXT_RADIUS } from '../store/index-document.js';
import { isValidTimezone } from '../time/zone.js';
import { type BoostContext, type FusedCandidate, type SignalList, fuseSignals } from './fusion.js';
import { type RecallOptions, type RecallStrategy, parseTimeBound, toList } from './options.js';
import { findMatchedTerms, hasWordStartingWith, prepareHoldsAnyTerm } from './matched-terms.js';
import { makeSnippet } from './snippet.js';
import { capQueryText, capTerms, dropStopwords, isQuestionFrame, splitQueryTerms } from './terms.js';
import { PERSONAL_QUESTION, dropFrameWords, isPersonalQuestion, readSoftWindow } from './personal.js';
import { type TimeQuery, parseTimeQuery, resolveZoneName, toDailyFilters } from './time-query.js';

export interface RecallEnvironment {
  search: SearchPort;
  /** Null when the engine keeps no vectors for this query (embeddings off). */
  vectors: VectorPort | null;
  /** Default zone for times without an offset. */
  timezone: string;
  defaults: {
    limit: number;
    messagesPerSession: number;
    snippetChars: number;
    strategy: RecallStrategy;
    /** The session fields hybrid recall ranks sessions by (config recall.session_fields); none: messages alone. */
    sessionFields?: readonly SessionField[];
  };
  /** The sessions' fields (src/fields/); absent: sessions are ranked by their messages alone. */
  fields?: SessionFieldPort;
  /** Path of a session's projection when the index has none recorded. */
  projectionPathFor: (sessionId: string) => string;
  nowMs: () => number;
  /** Embeds the query with the index's model, or null when vectors are off or not built yet. */
  embedQuery: ((text: string) => Promise<Float32Array | null>) | null;
  /** A session's entries in order: read for `--explain` alone, to name the neighbours a term was found in. */
  listEntries?: (sessionId: string) => Promise<Entry[]>;
  /** The marker types the configuration knows: a `marker` filter naming another is a mistake to report. */
  markerTypes?: readonly string[];
}

/** Weight of a session's 1st, 2nd, 3rd ... best message in its score: one strong hit beats many weak ones. */
export const SESSION_DECAY = [1, 0.5, 0.25, 0.125, 0.0625];

/**
 * Candidates each list keeps: for messages, a multiple of the limit; for sessions, enough messages to fill every
 * session's top messages several times over (matches cluster in a few sessions).
 */
export const POOL = { messageMin: 50, perMessage: 5, sessionMin: 100, perSessionMessage: 4 };

/** Signal weights for weighted reciprocal-rank fusion. */
export const SIGNAL_WEIGHTS = { lexical: 1.0, trigram: 0.4, vector: 0.8, temporalWithText: 0.3, temporalOnly: 1.0, session: 0.6 };

/**
 * The session signal (fields/rank-sessions.ts): sessions ranked by their fields, at most `sessions` of them. Of the
 * best `fetch`, those whose fields hold at least `strong` of the query's weight and that no list brought a message
 * of have their messages looked up (a weaker match of the fields alone is no reason to show a session).
 */
export const SESSION_SIGNAL = { sessions: 50, fetch: 5, strong: 0.5 };

export async function recall(environment: RecallEnvironment, options: RecallOptions): Promise<RecallResult> {
  const plan = await planRecall(environment, options);
  const highlight = [...plan.terms, ...plan.required];
  const tiers = await rankTiers(environment, plan);
  const picked: { top: FusedCandidate[]; score: number; count: number; window: Tier['window'] }[] = [];
  const seenSessions = new Set<string>();
  for (const tier of tiers) {
    const remaining = plan.limit - picked.length;
    if (remaining <= 0) break;
    if (plan.group === 'message') {
      for (const candidate of tier.candidates.slice(0, remaining)) picked.push({ top: [candidate], score: candidate.score, count: 1, window: tier.window });
      continue;
    }
    // With no words to weigh, every message in the window is as relevant as the next: sessions rank by their
    // most recent one, not by how many messages they had there.
    const timeOnly = plan.terms.length === 0 && plan.required.length === 0;
    const groups = groupBySession(tier.candidates, plan.perSession, timeOnly ? [1] : SESSION_DECAY).filter((group) => !seenSessions.has(group.sessionId));
    for (const group of groups.slice(0, remaining)) {
      seenSessions.add(group.sessionId);
      picked.push({ top: group.top, score: group.score, count: group.count, window: tier.window });
    }
  }
  // Only the sessions the matches name are read (a common word's candidates span hundreds of sessions).
  const sessions = new Map<string, StoredSession | null>();
  for (const { top } of picked) {
    for (const candidate of top) {
      const id = candidate.entry.sessionId;
      if (!sessions.has(id)) sessions.set(id, await environment.search.getSession(id));
    }
  }
  const sessionOf = (id: string): StoredSession | null => sessions.get(id) ?? null;
  const neighboursOf = options.explain === true ? await readNeighbours(environment, picked.flatMap(({ top }) => top)) : null;
  const matches = picked.map(({ top, score, count, window }) => toMatch(environment, sessionOf, top, score, count, highlight, neighboursOf, window));
  return {
    query: options.query,
    matches,
    generated_at_epoch_secs: Math.floor(environment.nowMs() / 1000),
    ...(plan.notes.length > 0 ? { notes: plan.notes } : {}),
  };
}

interface Tier {
  candidates: FusedCandidate[];
  /** With a time expression: whether these matches are inside its window. */
  window: 'inside' | 'outside' | null;
}

/**
 * A time expression filters candidates before the top-k is taken. When the window holds fewer matches than
 * asked for, the rest is filled from the whole history — searched with the original words, time words
 * included — and placed after every in-window match, marked `time_window: "outside"`. A window that excluded
 * what the user meant ("in June" for something told in July) then demotes it instead of hiding it.
 */
async function rankTiers(environment: RecallEnvironment, plan: RecallPlan): Promise<Tier[]> {
  const hasTime = Boolean(plan.filters.windows || plan.filters.daily || plan.filters.sessionRelative);
  const inside = plan.empty ? [] : await rankCandidates(environment, plan);
  if (!hasTime) return [{ candidates: inside, window: null }];
  const enough = plan.group === 'message' ? inside.length >= plan.limit : countSessions(inside) >= plan.limit;
  if (enough || !plan.time) return [{ candidates: inside, window: 'inside' }];
  const wide = widenPlan(plan, plan.time.original);
  const seen = new Set(inside.map((candidate) => candidate.rowid));
  const outside = wide.empty ? [] : (await rankCandidates(environment, wide)).filter((candidate) => !seen.has(candidate.rowid));
  return [
    { candidates: inside, window: 'inside' },
    { candidates: outside, window: 'outside' },
  ];
}

function countSessions(candidates: FusedCandidate[]): number {
  return new Set(candidates.map((candidate) => candidate.entry.sessionId)).size;
}

interface RecallPlan {
  strategy: RecallStrategy;
  group: 'session' | 'message';
  limit: number;
  perSession: number;
  pool: number;
  terms: string[];
  required: string[];
  excluded: string[];
  text: string;
  time: (TimeQuery & { original: string }) | null;
  filters: SearchFilters;
  boosts: BoostContext;
  empty: boolean;
  /** What was left out of an oversized query (RecallResult.notes). */
  notes: string[];
}

async function planRecall(environment: RecallEnvironment, options: RecallOptions): Promise<RecallPlan> {
  const limit = options.limit ?? environment.defaults.limit;
  const perSession = options.messagesPerSession ?? environment.defaults.messagesPerSession;
  if (!Number.isInteger(limit) || limit <= 0) throw new MoonError('bad_usage', `limit: expected a positive integer, got ${limit}`, { field: 'limit' });
  const zone = resolveQueryZone(options.tz ?? environment.timezone);
  const nowMs = options.now ? parseTimeBound('now', options.now, zone) : environment.nowMs();
  const strategy = options.strategy ?? environment.defaults.strategy;
  const notes: string[] = [];
  const keep = <T>(capped: { note: string | null } & T): T => {
    if (capped.note !== null) notes.push(capped.note);
    return capped;
  };
  const { text: query } = keep(capQueryText(options.query));
  // The baseline reads the query as plain words; hybrid first lifts time expressions out of it.
  const parsed = strategy === 'hybrid' ? parseTimeQuery(query, { nowMs, zone }) : null;
  const time = parsed ? { ...parsed, original: query } : null;
  const text = time ? time.text : query;
  // Personal questions (src/search/personal.ts): frame words dropped, the user's words and a soft window boosted.
  const personal = strategy === 'hybrid' && isPersonalQuestion(query);
  const split = dropStopwords(splitQueryTerms(text));
  const { terms: words } = keep(capTerms(personal ? dropFrameWords(split) : split, 'query'));
  const asksForWindow = time !== null && (time.windows.length > 0 || time.daily.length > 0 || time.sessionRelative !== null);
  const terms = asksForWindow && isQuestionFrame(words) ? [] : words;
  const soft = personal && terms.length > 0 ? readSoftWindow(time, nowMs) : null;
  const required = keep(capTerms((toList(options.require) ?? []).flatMap(splitQueryTerms), '--require')).terms;
  const excluded = keep(capTerms((toList(options.exclude) ?? []).flatMap(splitQueryTerms), '--exclude')).terms;
  const filters: SearchFilters = {
    sessionIds: toList(options.session),
    excludeSessionIds: toList(options.excludeSession),
    projects: toList(options.project),
    sources: toList(options.source),
    roles: toList(options.role),
    priorities: toList(options.priority),
    tools: toList(options.tool),
    markerTypes: checkMarkerTypes(toList(options.marker), environment.markerTypes),
    sinceMs: options.since ? parseTimeBound('since', options.since, zone, nowMs) : undefined,
    untilMs: options.until ? parseTimeBound('until', options.until, zone, nowMs) : undefined,
    windows: time && time.windows.length > 0 && !soft ? time.windows.map(({ startMs, endMs }) => ({ startMs, endMs })) : undefined,
    daily: time && time.daily.length > 0 ? await listDailyFilters(environment.search, time, nowMs) : undefined,
    sessionRelative: time?.sessionRelative ?? undefined,
  };
  const group = options.group ?? 'session';
  const hasTime = Boolean(filters.windows || filters.daily || filters.sessionRelative);
  return {
    strategy,
    group,
    limit,
    perSession,
    pool: group === 'message' ? Math.max(POOL.messageMin, limit * POOL.perMessage) : Math.max(POOL.sessionMin, limit * perSession * POOL.perSessionMessage),
    terms,
    required,
    excluded,
    text,
    time,
    filters,
    boosts: {
      ...buildBoostContext(text, terms),
      ...(soft ? { since: { ...soft, factor: PERSONAL_QUESTION.sinceFactor } } : {}),
      ...(personal ? { userWords: { factor: PERSONAL_QUESTION.userFactor, holds: prepareHoldsAnyTerm(terms) } } : {}),
    },
    empty: terms.length === 0 && required.length === 0 && !hasTime,
    notes,
  };
}

/** The filter's marker types, each one the configuration knows (a typo would silently find nothing). */
function checkMarkerTypes(types: string[] | undefined, known: readonly string[] | undefined): string[] | undefined {
  if (!types || types.length === 0) return undefined;
  const unknown = known ? types.filter((type) => !known.includes(type)) : [];
  if (unknown.length > 0) {
    throw new MoonError('bad_usage', `marker: "${unknown[0]}" is not a marker type here (${known!.join(', ')})`, {
      field: 'marker',
      hint: 'custom types are configured under [markers] in moon.toml',
    });
  }
  return [...new Set(types)];
}

/**
 * A time of day with no date covers the whole history up to now, split where the zone's offset changes; with no
 * history, a filter that matches nothing stands in so the query still means "at that time".
 */
async function listDailyFilters(store: SearchPort, time: TimeQuery, nowMs: number): Promise<NonNullable<SearchFilters['daily']>> {
  const bounds = await store.readTimeBounds();
  const range = bounds ? { startMs: bounds.startMs, endMs: Math.min(bounds.endMs + 1, nowMs) } : null;
  if (!range || range.endMs <= range.startMs) return [{ startMs: 0, endMs: 0, offsetMs: 0, fromMs: 0, toMs: 0 }];
  return time.daily.flatMap((window) => toDailyFilters(window, range));
}

/** The same plan without its time filters, searching the given words (the query with its time words). */
function widenPlan(plan: RecallPlan, text: string): RecallPlan {
  // Already within the character cap; a note for the term cap was made when the plan was.
  const terms = capTerms(dropStopwords(splitQueryTerms(text)), 'query').terms;
  const { windows: _windows, daily: _daily, sessionRelative: _relative, ...filters } = plan.filters;
  return {
    ...plan,
    text,
    terms,
    filters,
    boosts: buildBoostContext(text, terms),
    empty: terms.length === 0 && plan.required.length === 0,
  };
}

async function rankCandidates(environment: RecallEnvironment, plan: RecallPlan): Promise<FusedCandidate[]> {
  const store = environment.search;
  const any = plan.terms.length > 0 ? plan.terms : plan.required;
  const baseline = plan.strategy === 'bm25';
  const lexical = await searchWords(store, plan, any, !baseline);
  if (baseline) return lexical.map(asBaseline);
  const lists: SignalList[] = [{ signal: 'lexical', weight: SIGNAL_WEIGHTS.lexical, candidates: lexical }];
  // Only a term that could be a word cut short is looked up whole first (on PostgreSQL a phrase no entry holds is
  // a scan of every entry holding its words).
  const { substrings, prefixes: unknown } = selectPartialTerms(any, () => false);
  const prefixes: string[] = [];
  for (const term of unknown) if (!(await store.hasLexicalMatch(term))) prefixes.push(term);
  if (substrings.length > 0) {
    const trigram = await store.searchTrigram({
      any: substrings,
      all: plan.required,
      none: plan.excluded,
      filters: plan.filters,
      limit: plan.pool,
    });
    lists.push({ signal: 'trigram', weight: SIGNAL_WEIGHTS.trigram, candidates: trigram });
  }
  if (prefixes.length > 0) {
    // A plain word the index does not know is likely cut short ("wrangl"): words that start with it.
    const prefix = await store.searchLexical({
      any: prefixes,
      all: plan.required,
      none: plan.excluded,
      filters: plan.filters,
      limit: plan.pool,
      context: false,
      prefix: true,
    });
    // The index stems a prefix first ("buy" → "bui*" finds "build"): keep the entries a typed prefix starts a word of.
    const typed = prefix.filter((candidate) => prefixes.some((term) => hasWordStartingWith(candidate.entry, term)));
    lists.push({ signal: 'trigram', weight: SIGNAL_WEIGHTS.trigram, candidates: typed });
  }
  if (environment.vectors && environment.embedQuery && plan.text.trim() !== '' && plan.terms.length > 0) {
    const vector = await environment.embedQuery(plan.text);
    if (vector) {
      const candidates = await environment.vectors.search({ vector, all: plan.required, none: plan.excluded, filters: plan.filters, limit: plan.pool });
      lists.push({ signal: 'vector', weight: SIGNAL_WEIGHTS.vector, candidates });
    }
  }
  if (plan.filters.windows || plan.filters.daily || plan.filters.sessionRelative) {
    const center = plan.filters.windows?.[0] ? (plan.filters.windows[0].startMs + plan.filters.windows[0].endMs) / 2 : null;
    const temporal = await store.searchTime({ filters: plan.filters, all: plan.required, none: plan.excluded, centerMs: center, limit: plan.pool });
    const weight = any.length > 0 ? SIGNAL_WEIGHTS.temporalWithText : SIGNAL_WEIGHTS.temporalOnly;
    lists.push({ signal: 'temporal', weight, candidates: temporal });
  }
  const sessions = await rankSessions(environment, plan);
  if (sessions.length === 0) return fuseSignals(lists, plan.boosts);
  const quiet = await readQuietSessions(environment.search, plan, sessions, lists[0]!);
  lists.push(listSessionSignal(sessions, lists, quiet));
  const fused = fuseSignals(lists, plan.boosts);
  const fieldsOf = new Map(sessions.map((session) => [session.sessionId, session.fields]));
  for (const item of fused) {
    if (item.explanation.signals.session) item.explanation.session_fields = fieldsOf.get(item.entry.sessionId) ?? [];
  }
  return fused;
}

/** Sessions ranked by their fields, when the configuration uses any and the query has words. */
async function rankSessions(environment: RecallEnvironment, plan: RecallPlan): Promise<RankedSession[]> {
  const fields = environment.defaults.sessionFields ?? [];
  if (!environment.fields || fields.length === 0 || plan.terms.length === 0) return [];
  const ranked = await rankSessionsByFields(environment.fields, plan.terms, { fields, limit: SESSION_SIGNAL.sessions });
  const only = plan.filters.sessionIds;
  return only && only.length > 0 ? ranked.filter((session) => only.includes(session.sessionId)) : ranked;
}

/**
 * A session its fields match strongly (at least SESSION_SIGNAL.strong of the query's weight) but of which the words
 * list holds no message — the words a person uses for the session as a whole, in its summary or title, or scattered over
 * messages each too weak for the lists: shown by its latest messages under the filters, returned for the session
 * signal alone. (Looking up its best messages for the words instead was measured: a word list restricted to a few
 * sessions cannot prune, and it added 5–20 ms to a query on a 100k-message index, more for paths.)
 */
async function readQuietSessions(store: SearchPort, plan: RecallPlan, sessions: readonly RankedSession[], words: SignalList): Promise<Candidate[]> {
  const present = new Set(words.candidates.map((candidate) => candidate.entry.sessionId));
  const missing = sessions
    .slice(0, SESSION_SIGNAL.fetch)
    .filter((session) => session.coverage >= SESSION_SIGNAL.strong && !present.has(session.sessionId))
    .map((session) => session.sessionId);
  if (missing.length === 0) return [];
  const filters = { ...plan.filters, sessionIds: missing };
  return store.searchTime({ filters, all: plan.required, none: plan.excluded, centerMs: null, limit: missing.length * plan.perSession });
}

/**
 * The session signal: every message the other lists brought, of a session the fields rank, at its session's rank
 * among the sessions present, weighed by how much of the query its fields hold (RankedSession.coverage).
 */
function listSessionSignal(sessions: readonly RankedSession[], lists: readonly SignalList[], quiet: readonly Candidate[]): SignalList {
  const byRowid = new Map<number, Candidate>();
  for (const list of lists) for (const candidate of list.candidates) if (!byRowid.has(candidate.rowid)) byRowid.set(candidate.rowid, candidate);
  for (const candidate of quiet) if (!byRowid.has(candidate.rowid)) byRowid.set(candidate.rowid, candidate);
  const present = new Set([...byRowid.values()].map((candidate) => candidate.entry.sessionId));
  const rankOf = new Map<string, { rank: number; score: number; coverage: number }>();
  for (const session of sessions) {
    if (present.has(session.sessionId)) rankOf.set(session.sessionId, { rank: rankOf.size + 1, score: session.score, coverage: session.coverage });
  }
  const candidates: Candidate[] = [];
  const ranks: number[] = [];
  const factors: number[] = [];
  const held = [...byRowid.values()].filter((candidate) => rankOf.has(candidate.entry.sessionId));
  held.sort((a, b) => rankOf.get(a.entry.sessionId)!.rank - rankOf.get(b.entry.sessionId)!.rank || a.rowid - b.rowid);
  for (const candidate of held) {
    const session = rankOf.get(candidate.entry.sessionId)!;
    candidates.push({ ...candidate, score: session.score });
    ranks.push(session.rank);
    factors.push(session.coverage);
  }
  return { signal: 'session', weight: SIGNAL_WEIGHTS.session, candidates, ranks, factors };
}

/**
 * Terms the word index cannot answer whole. Technical ones — identifiers, paths, versions, CJK, which the word
 * tokenizer splits or cannot split — go to the substring (trigram) list, whose body holds only such tokens.
 * Plain words the word index does not know are likely cut short ("wrangl"): they are looked up as word
 * prefixes. Plain words the index knows are left to it: substring matches of "support" or "group" only add
 * noise (measured on LoCoMo: -4 points turn-level Recall@5 when every term went to the trigram list).
 */
export function selectPartialTerms(terms: readonly string[], isKnownWord: (term: string) => boolean): { substrings: string[]; prefixes: string[] } {
  const long = terms.filter((term) => [...term].length >= 3);
  return {
    substrings: long.filter((term) => isTechnical(term)),
    prefixes: long.filter((term) => !isTechnical(term) && endsInWord(term) && !isKnownWord(term)),
  };
}

/**
 * A term whose last word has three letters or more: only such a word can be cut short. A contraction the index
 * does not hold ("I'm", "we've", "don't") ends in one or two letters, and as a prefix ("i m*") it would match every
 * entry with "I" before a word starting with m — noise, and on a large index the slowest list of the query.
 */
function endsInWord(term: string): boolean {
  const words = term.match(/[\p{L}\p{N}]+/gu);
  return words !== null && [...words[words.length - 1]!].length >= 3;
}

/**
 * The words list: the exact BM25 top of every entry holding any term (the engines prune what cannot reach it,
 * store/top-k.ts).
 */
async function searchWords(store: SearchPort, plan: RecallPlan, any: string[], context: boolean): Promise<Candidate[]> {
  if (any.length === 0) return [];
  return store.searchLexical({ any, all: plan.required, none: plan.excluded, filters: plan.filters, limit: plan.pool, context });
}

function asBaseline(candidate: Candidate, index: number): FusedCandidate {
  return {
    rowid: candidate.rowid,
    entry: candidate.entry,
    score: candidate.score,
    explanation: {
      signals: { lexical: { rank: index + 1, raw: candidate.score, contribution: candidate.score } },
      boosts: [],
      fused: candidate.score,
      score: candidate.score,
    },
  };
}

const PATH_LIKE = /^(?:[\w.@~-]+\/)+[\w.@-]+$|^[\w-]+\.[a-z][a-z0-9]{0,5}$/i;

function buildBoostContext(text: string, terms: string[]): BoostContext {
  const quoted = [...text.matchAll(/"([^"]{3,})"/g)].map((match) => match[1]!.toLowerCase().trim());
  const plain = text.replace(/"/g, ' ').replace(/\s+/g, ' ').trim().toLowerCase();
  const phrases = [
    ...quoted.map((phrase) => ({ text: phrase, factor: 1.5 })),
    ...(terms.length >= 2 && plain.length >= 8 ? [{ text: plain, factor: 1.3 }] : []),
  ];
  return {
    phrases,
    words: new Set(terms.map((term) => term.toLowerCase())),
    paths: terms.filter((term) => PATH_LIKE.test(term)).map((term) => term.toLowerCase()),
    priority: true,
  };
}

function resolveQueryZone(zone: string): string {
  if (isValidTimezone(zone)) return zone;
  const resolved = resolveZoneName(zone, Date.now());
  if (!resolved) throw new MoonError('bad_usage', `tz: "${zone}" is not an IANA time zone or a known abbreviation`, { field: 'tz' });
  return resolved.zone;
}

interface SessionGroup {
  sessionId: string;
  top: FusedCandidate[];
  score: number;
  count: number;
  latestMs: number;
}

/** Seed 002 stage 4: aggregate messages per session, rank sessions by score then recency, keep top M each. */
function groupBySession(candidates: FusedCandidate[], perSession: number, decay: readonly number[]): SessionGroup[] {
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
    group.score = round(group.top.reduce((sum, candidate, index) => sum + candidate.score * (decay[index] ?? 0), 0));
  }
  return [...groups.values()]
    .sort((a, b) => b.score - a.score || b.latestMs - a.latestMs || a.sessionId.localeCompare(b.sessionId));
}

/**
 * The entries whose text the index put in each candidate's context column: CONTEXT_RADIUS on each side in session
 * order. Each session is read once.
 */
async function readNeighbours(environment: RecallEnvironment, candidates: readonly FusedCandidate[]): Promise<(entry: Entry) => Entry[]> {
  const bySession = new Map<string, Entry[]>();
  if (environment.listEntries) {
    for (const { entry } of candidates) {
      if (!bySession.has(entry.sessionId)) bySession.set(entry.sessionId, await environment.listEntries(entry.sessionId));
    }
  }
  return (entry) => {
    const entries = bySession.get(entry.sessionId) ?? [];
    const at = entries.findIndex((item) => item.id === entry.id);
    if (at < 0) return [];
    return entries.slice(Math.max(0, at - CONTEXT_RADIUS), at + CONTEXT_RADIUS + 1).filter((item) => item.id !== entry.id);
  };
}

function toMatch(
  environment: RecallEnvironment,
  sessionOf: (id: string) => StoredSession | null,
  top: FusedCandidate[],
  score: number,
  count: number,
  terms: string[],
  neighboursOf: ((entry: Entry) => Entry[]) | null,
  window: 'inside' | 'outside' | null,
): RecallMatch {
  const first = top[0]!.entry;
  const session = sessionOf(first.sessionId);
  const snippetChars = environment.defaults.snippetChars;
  const snippet = top
    .map((candidate) => `[${roleLabel(candidate.entry)}] ${makeSnippet(searchableText(candidate.entry), terms, snippetChars)}`)
    .join('\n');
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
      priorities: top.map((candidate) => candidate.entry.priority),
      scores: top.map((candidate) => round(candidate.score)),
      match_count: count,
      session_start: toIso(session?.startMs ?? null),
      session_end: toIso(session?.endMs ?? null),
      raw_archive_path: session?.archivePath ?? null,
      ...(window ? { time_window: window } : {}),
      ...(neighboursOf
        ? { explain: top.map((candidate) => ({ ...candidate.explanation, terms: findMatchedTerms(candidate.entry, terms, neighboursOf(candidate.entry)) })) }
        : {}),
    },
  };
}

/** The call and its result as one text; each part cut to what the index holds, so a snippet never copies megabytes. */
function searchableText(entry: Entry): string {
  return entry.result ? `${selectIndexedText(entry.text)} → ${selectIndexedText(entry.result)}` : entry.text;
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
