import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { MoonError } from '../errors.js';
import { extractTextTerms } from '../normalize/keywords.js';
import type { ParsedHistory, ParsedPrompt } from '../sources/puffin-history.js';
import { sliceHead } from '../text/limits.js';
import { formatTime } from './content.js';
import { DEFAULT_QUERY_LIMIT, MAX_QUERY_LIMIT } from './limits.js';
import { hashBranch, hashHistory, hashPrompt } from './hashes.js';
import { readHistoryFile, type ReadHistory } from './read-history.js';
import { readIndex } from './serializer.js';
import { normalizeTopic } from './summary-shape.js';
import type { HistoryIndex, IndexMarker, IndexSegment } from './types.js';

/**
 * Searching with the index (seed 004's reason for being): the index answers first — segments ranked by how the
 * query's words meet their topics (topicIndex), key entities, markers and summary, weighted by importance, after
 * the `marker` and `topic` filters — and only then is the history read, and only the prompts of the segments
 * that matched are searched, for excerpts of what was actually said. A model reads a few segments' worth of
 * text, not the file. When the index matches nothing, the history's own text is searched instead, and the
 * answer says so.
 */
export interface HistoryQueryRequest {
  query: string;
  indexPath: string;
  /** Only segments holding a marker of this type, and only such markers. */
  marker?: string | undefined;
  /** Only segments tagged with this topic. */
  topic?: string | undefined;
  /** Segments returned (default 5, at most 50). */
  limit?: number | undefined;
  /** Prompts drilled into per segment (default 3). */
  promptsPerSegment?: number | undefined;
  /** The history to drill into; default the index's historyFile. */
  historyPath?: string | undefined;
  readHistory?: ReadHistory | undefined;
  /**
   * Where a history file may be read from (an agent's call): returns the path to read or throws. A recorded
   * history it refuses counts as absent, so the file `history.json` beside the index is tried instead.
   */
  confine?: ((path: string) => string) | undefined;
}

/** An index marker as a query answers it (no line or context). */
export type QueryMarker = Pick<IndexMarker, 'type' | 'content' | 'promptId' | 'sourceField' | 'importance' | 'segmentId'>;

export interface QuerySegment {
  id: string;
  branchId: string;
  score: number;
  summary: string;
  topics: string[];
  keyEntities: string[];
  importanceScore: number;
  startTime: string;
  endTime: string;
  promptCount: number;
  tokenCount: number;
  /** Where the query met the segment: `topic`, `entity`, `marker`, `summary`, `text` (the history fallback). */
  matchedBy: string[];
  markers: QueryMarker[];
}

export interface QueryPrompt {
  id: string;
  segmentId: string;
  branchId: string;
  time: string;
  title: string | null;
  score: number;
  excerpts: Array<{ field: 'prompt' | 'response'; text: string }>;
}

export interface HistoryQueryResult {
  query: string;
  index: string;
  historyFile: string;
  filters: { marker: string | null; topic: string | null };
  segments: QuerySegment[];
  prompts: QueryPrompt[];
  totals: { segments: number; matchedSegments: number; promptsSearched: number };
  notes: string[];
}

const DEFAULT_PROMPTS_PER_SEGMENT = 3;
const MARKERS_PER_SEGMENT = 5;
const EXCERPT_CHARS = 320;
const MAX_QUERY_CHARS = 2_000;
/** Prompt text read per field when searching it: a pasted megabyte costs what its head does. */
const SEARCH_CHARS = 200_000;

export async function queryHistoryIndex(request: HistoryQueryRequest): Promise<HistoryQueryResult> {
  const indexPath = resolve(request.indexPath);
  const index = readIndex(indexPath);
  if (!index) throw new MoonError('not_found', `no history index at ${indexPath}`, { hint: 'build it with moon rlm index --history PATH --out PATH' });
  const limit = request.limit ?? DEFAULT_QUERY_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_QUERY_LIMIT) throw new MoonError('bad_usage', `limit must be a whole number from 1 to ${MAX_QUERY_LIMIT}, got ${limit}`);
  const query = sliceHead(request.query.trim(), MAX_QUERY_CHARS);
  const marker = request.marker ? request.marker.trim().toLowerCase() : null;
  const topic = request.topic ? normalizeTopic(request.topic) : null;
  if (query === '' && !marker && !topic) throw new MoonError('bad_usage', 'give a query, a marker type or a topic');
  const terms = listQueryTerms(query);
  const notes: string[] = [];
  if (marker && !index.markers.some((item) => item.type === marker)) notes.push(`the index holds no @/${marker} markers`);
  if (topic && !Object.hasOwn(index.topicIndex, topic)) notes.push(`the index has no topic "${topic}"`);

  const ranked = rankSegments(index, terms, marker, topic);
  const historyFile = locateHistory(indexPath, index, request.historyPath, request.confine ?? ((path) => path));
  let history: ParsedHistory | null = null;
  if (existsSync(historyFile)) {
    history = await (request.readHistory ?? readHistoryFile)(historyFile);
    if (hasHistoryChanged(index, history)) notes.push(`the history changed since the index was built (${index.generatedAt}): run moon rlm index --incremental to update it`);
  } else {
    notes.push(`the history file ${historyFile} is not there: answering from the index alone`);
  }
  let top = ranked.slice(0, limit);
  let fromText = false;
  if (top.length === 0 && terms.length > 0 && history && !marker && !topic) {
    // The index knows nothing of these words: the detail may be in what was said, not in the summaries.
    top = searchHistoryText(index, history, terms).slice(0, limit);
    fromText = top.length > 0;
    notes.push(fromText ? 'no segment summary, topic, entity or marker matched: these segments were found in the history text' : 'nothing in the index or the history matched');
  }
  const prompts = history ? drillIntoPrompts(top, history, index, terms, marker, request.promptsPerSegment ?? DEFAULT_PROMPTS_PER_SEGMENT) : { list: [], searched: 0 };
  return {
    query,
    index: indexPath,
    historyFile,
    filters: { marker, topic },
    segments: top.map(({ segment, score, matchedBy }) => shapeSegment(index, segment, score, fromText ? ['text'] : matchedBy, marker)),
    prompts: prompts.list,
    totals: { segments: index.segments.length, matchedSegments: fromText ? top.length : ranked.length, promptsSearched: prompts.searched },
    notes,
  };
}

/** The query's words as moon's keyword rules read them (lower case, stopwords out), else its plain words. */
export function listQueryTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const { term } of extractTextTerms(query)) terms.add(term.toLowerCase());
  if (terms.size === 0) for (const word of query.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}._/-]*/gu) ?? []) if (word.length >= 2) terms.add(word);
  return [...terms].slice(0, 32);
}

interface Ranked {
  segment: IndexSegment;
  score: number;
  matchedBy: string[];
}

function rankSegments(index: HistoryIndex, terms: readonly string[], marker: string | null, topic: string | null): Ranked[] {
  const markersOf = groupMarkers(index.markers);
  const allowed = topic ? new Set(Object.hasOwn(index.topicIndex, topic) ? index.topicIndex[topic] : []) : null;
  const out: Ranked[] = [];
  for (const segment of index.segments) {
    if (allowed && !allowed.has(segment.id)) continue;
    const markers = markersOf.get(segment.id) ?? [];
    const typed = marker ? markers.filter((item) => item.type === marker) : markers;
    if (marker && typed.length === 0) continue;
    const importance = 0.75 + 0.5 * segment.importanceScore;
    if (terms.length === 0) {
      // Filters alone: the most important first, then those with more (and weightier) markers.
      const weight = typed.reduce((sum, item) => sum + item.importance, 0);
      out.push({ segment, score: round(importance * (1 + Math.log1p(weight))), matchedBy: [marker ? 'marker' : 'topic'] });
      continue;
    }
    const matchedBy = new Set<string>();
    let score = 0;
    let covered = 0;
    const summary = segment.summary.toLowerCase();
    const topicWords = segment.topics.map((item) => [item, ...item.split('-')]);
    const entities = segment.keyEntities.map((item) => item.toLowerCase());
    for (const term of terms) {
      let hit = 0;
      if (topicWords.some((words) => words.includes(term) || words[0] === normalizeTopic(term))) {
        hit += 3;
        matchedBy.add('topic');
      }
      if (entities.some((entity) => entity.includes(term))) {
        hit += 2;
        matchedBy.add('entity');
      }
      if (typed.some((item) => item.content.toLowerCase().includes(term) || item.type === term)) {
        hit += 2;
        matchedBy.add('marker');
      }
      if (summary.includes(term)) {
        hit += 1;
        matchedBy.add('summary');
      }
      if (hit > 0) covered += 1;
      score += hit;
    }
    if (score === 0) continue;
    const coverage = covered / terms.length;
    out.push({ segment, score: round(score * (0.5 + coverage) * importance), matchedBy: [...matchedBy] });
  }
  return out.sort((a, b) => b.score - a.score || b.segment.endTimestamp - a.segment.endTimestamp);
}

/** The fallback: segments whose prompts' text holds the words, by how many distinct words and how often. */
function searchHistoryText(index: HistoryIndex, history: ParsedHistory, terms: readonly string[]): Ranked[] {
  const segmentOf = new Map<string, IndexSegment>();
  for (const segment of index.segments) for (const id of segment.promptIds) segmentOf.set(id, segment);
  const scores = new Map<string, number>();
  for (const branch of history.branches) {
    for (const prompt of branch.prompts) {
      const segment = segmentOf.get(prompt.id);
      if (!segment) continue;
      const score = scorePromptText(prompt, terms);
      if (score > 0) scores.set(segment.id, (scores.get(segment.id) ?? 0) + score);
    }
  }
  return index.segments
    .filter((segment) => scores.has(segment.id))
    .map((segment) => ({ segment, score: round(scores.get(segment.id)! * (0.75 + 0.5 * segment.importanceScore)), matchedBy: ['text'] }))
    .sort((a, b) => b.score - a.score || b.segment.endTimestamp - a.segment.endTimestamp);
}

function drillIntoPrompts(
  top: readonly Ranked[],
  history: ParsedHistory,
  index: HistoryIndex,
  terms: readonly string[],
  marker: string | null,
  perSegment: number,
): { list: QueryPrompt[]; searched: number } {
  const byId = new Map<string, ParsedPrompt>();
  for (const branch of history.branches) for (const prompt of branch.prompts) byId.set(prompt.id, prompt);
  const markersOf = new Map<string, IndexMarker[]>();
  for (const item of index.markers) {
    if (marker && item.type !== marker) continue;
    const list = markersOf.get(item.promptId) ?? [];
    list.push(item);
    markersOf.set(item.promptId, list);
  }
  const list: QueryPrompt[] = [];
  let searched = 0;
  for (const { segment } of top) {
    const scored: Array<{ prompt: ParsedPrompt; score: number }> = [];
    for (const id of segment.promptIds) {
      const prompt = byId.get(id);
      if (!prompt) continue;
      searched += 1;
      const marked = markersOf.get(id) ?? [];
      const markerScore = marked.reduce((sum, item) => sum + item.importance * (terms.length === 0 || terms.some((term) => item.content.toLowerCase().includes(term)) ? 2 : 0.5), 0);
      const score = scorePromptText(prompt, terms) + markerScore;
      if (score > 0) scored.push({ prompt, score });
    }
    if (scored.length === 0) {
      // Matched through its summary alone: its first prompt says what the segment began with.
      const first = byId.get(segment.promptIds[0]!);
      if (first) scored.push({ prompt: first, score: 0 });
    }
    scored.sort((a, b) => b.score - a.score || a.prompt.position - b.prompt.position);
    for (const { prompt, score } of scored.slice(0, perSegment)) {
      list.push({
        id: prompt.id,
        segmentId: segment.id,
        branchId: prompt.branchId,
        time: formatTime(prompt.timestamp),
        title: prompt.title,
        score: round(score),
        excerpts: excerptPrompt(prompt, terms, markersOf.get(prompt.id) ?? []),
      });
    }
  }
  return { list, searched };
}

/** Distinct words found × 2, plus how often (at most 5 a word), over the prompt's and the response's text. */
function scorePromptText(prompt: ParsedPrompt, terms: readonly string[]): number {
  if (terms.length === 0) return 0;
  const text = `${sliceHead(prompt.title ?? '', 500)}\n${sliceHead(prompt.content, SEARCH_CHARS)}\n${sliceHead(prompt.response?.content ?? '', SEARCH_CHARS)}`.toLowerCase();
  let score = 0;
  for (const term of terms) {
    let count = 0;
    for (let at = text.indexOf(term); at >= 0 && count < 5; at = text.indexOf(term, at + term.length)) count += 1;
    if (count > 0) score += 2 + count;
  }
  return score;
}

/** A window of text around the first word found in each field (or a marker's line), else the prompt's head. */
function excerptPrompt(prompt: ParsedPrompt, terms: readonly string[], markers: readonly IndexMarker[]): QueryPrompt['excerpts'] {
  const out: QueryPrompt['excerpts'] = [];
  const fields: Array<['prompt' | 'response', string]> = [['prompt', prompt.content]];
  if (prompt.response) fields.push(['response', prompt.response.content]);
  for (const [field, full] of fields) {
    const text = sliceHead(full, SEARCH_CHARS);
    const lower = text.toLowerCase();
    let at = -1;
    for (const term of terms) {
      const found = lower.indexOf(term);
      if (found >= 0 && (at < 0 || found < at)) at = found;
    }
    if (at < 0) {
      const mark = markers.find((item) => item.sourceField === field);
      if (mark) at = Math.max(0, lower.indexOf(mark.content.toLowerCase()));
    }
    if (at >= 0) out.push({ field, text: cutWindow(text, at) });
  }
  if (out.length === 0) out.push({ field: 'prompt', text: cutWindow(prompt.content, 0) });
  return out;
}

function cutWindow(text: string, at: number): string {
  const start = Math.max(0, at - EXCERPT_CHARS / 2);
  const end = Math.min(text.length, start + EXCERPT_CHARS);
  const piece = text.slice(start, end).replace(/\s+/gu, ' ').trim();
  return `${start > 0 ? '…' : ''}${piece}${end < text.length ? '…' : ''}`;
}

function shapeSegment(index: HistoryIndex, segment: IndexSegment, score: number, matchedBy: string[], marker: string | null): QuerySegment {
  const markers = index.markers
    .filter((item) => item.segmentId === segment.id && (!marker || item.type === marker))
    .sort((a, b) => b.importance - a.importance)
    .slice(0, MARKERS_PER_SEGMENT)
    .map(({ type, content, promptId, sourceField, importance, segmentId }) => ({ type, content, promptId, sourceField, importance, segmentId }));
  return {
    id: segment.id,
    branchId: segment.branchId,
    score,
    summary: segment.summary,
    topics: segment.topics,
    keyEntities: segment.keyEntities,
    importanceScore: segment.importanceScore,
    startTime: formatTime(segment.startTimestamp),
    endTime: formatTime(segment.endTimestamp),
    promptCount: segment.promptIds.length,
    tokenCount: segment.tokenCount,
    matchedBy,
    markers,
  };
}

/**
 * The history to drill into: the one named, else the one the index was built from, else — the project moved —
 * `history.json` beside the index (where `.puffin/history.index.json` sits next to `.puffin/history.json`).
 */
function locateHistory(indexPath: string, index: HistoryIndex, named: string | undefined, confine: (path: string) => string): string {
  if (named !== undefined) return confine(resolve(named));
  const allowed = (path: string): string | null => {
    try {
      return confine(path);
    } catch {
      return null;
    }
  };
  const recorded = allowed(resolve(index.historyFile));
  if (recorded !== null && existsSync(recorded)) return recorded;
  const beside = allowed(join(dirname(indexPath), 'history.json'));
  if (beside !== null && existsSync(beside)) return beside;
  return recorded ?? beside ?? confine(resolve(index.historyFile));
}

/** Whether the history's content differs from what the index was built from. */
function hasHistoryChanged(index: HistoryIndex, history: ParsedHistory): boolean {
  const branches = history.branches.map((branch) => hashBranch(branch.id, branch.prompts.map(hashPrompt)));
  return hashHistory(branches) !== index.contentHash;
}

function groupMarkers(markers: readonly IndexMarker[]): Map<string, IndexMarker[]> {
  const out = new Map<string, IndexMarker[]>();
  for (const marker of markers) {
    const list = out.get(marker.segmentId) ?? [];
    list.push(marker);
    out.set(marker.segmentId, list);
  }
  return out;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
