import { summarizeExtractively } from '../llm/local.js';
import { extractTextTerms, KIND_WEIGHT, type TermKind } from '../normalize/keywords.js';
import { inferTopics } from '../normalize/topics.js';
import type { PromptText } from './prompt-text.js';
import { sliceHead } from '../text/limits.js';
import { MAX_SUMMARY_CHARS, normalizeEntities, normalizeTopics, shortenSummary } from './summary-shape.js';

/**
 * The local summariser: no model, no network, the same answer for the same segment every time — what the
 * generator uses when no LLM provider is configured, and when a provider fails for good on a segment.
 *
 * - **Reads** the head of each prompt (what was asked) first, then the head of each response, up to
 *   SCAN_CHARS per segment: a segment costs the same whatever its size.
 * - **Summary**: the most salient sentences of that text (the `local` provider's extractive ranking), in order,
 *   within SUMMARY_TOKENS; after them, the segment's highest-priority marker when it has one.
 * - **Topics**: moon's topic labels for the segment's keywords, then its best plain keywords: five in all.
 * - **Key entities**: files the responses modified, then paths, identifiers, packages and `tool sub` commands.
 * - **Importance**: the highest marker's priority / 10 (a decision or breaking change is 1.0, a ref 0.3);
 *   without markers 0.5 when files were modified (ordinary development work), else 0.3 (a routine exchange).
 */
export interface SegmentSummary {
  summary: string;
  topics: string[];
  keyEntities: string[];
  importanceScore: number;
}

export interface LocalMarker {
  type: string;
  content: string;
  importance: number;
}

const PROMPT_HEAD_CHARS = 1_000;
const RESPONSE_HEAD_CHARS = 600;
const SCAN_CHARS = 32_000;
const SUMMARY_TOKENS = 90;
/** Topic labels first, then keywords: five tags (seed 004 asks for 3 to 7). */
const LOCAL_TOPICS = 5;
const MAX_ENTITIES = 12;
/** Commands alone (`git`, `make`) say little; `git rebase` does. */
const ENTITY_KINDS: ReadonlySet<TermKind> = new Set(['path', 'identifier', 'package']);
/** Words every development conversation uses: no topic. */
const GENERIC_WORDS: ReadonlySet<string> = new Set([
  'user', 'users', 'prompt', 'prompts', 'file', 'files', 'code', 'create', 'created', 'implement', 'implemented',
  'implementation', 'update', 'updated', 'change', 'changes', 'need', 'want', 'check', 'work', 'works', 'thing',
  'things', 'way', 'let', 'now', 'new', 'add', 'added', 'use', 'using', 'used', 'make', 'sure', 'see', 'look',
]);

/**
 * What the local summariser reads of a segment: the head of its text (see collectScanText), the files its
 * responses modified and how many prompts it has. A few tens of kilobytes, whatever the segment's size.
 */
export interface SummaryInput {
  text: string;
  files: string[];
  promptCount: number;
}

export function summarizeSegmentLocally(prompts: readonly PromptText[], markers: readonly LocalMarker[]): SegmentSummary {
  return summarizeInputLocally(collectSummaryInput(prompts), markers);
}

/** A segment's prompts reduced to what the local summariser reads: the prompts may be let go after. */
export function collectSummaryInput(prompts: readonly PromptText[]): SummaryInput {
  const files: string[] = [];
  for (const prompt of prompts) for (const file of prompt.response?.filesModified ?? []) files.push(file.path);
  return { text: collectScanText(prompts), files, promptCount: prompts.length };
}

export function summarizeInputLocally(input: SummaryInput, markers: readonly LocalMarker[]): SegmentSummary {
  const { text, files } = input;
  const extract = summarizeExtractively(`INPUT:\n${text}`, { maxTokens: SUMMARY_TOKENS }).replace(/\s*\n\s*/gu, ' ').trim();
  const top = [...markers].sort((a, b) => b.importance - a.importance)[0];
  const marked = top ? `@/${top.type}: ${top.content}` : '';
  const summary = shortenSummary([extract, marked].filter((part) => part !== '').join(' — ') || describeEmpty(input.promptCount), MAX_SUMMARY_CHARS);
  const { keywords, entities } = rankTerms(text);
  const labels = inferTopics([], keywords);
  const topics = normalizeTopics([...labels, ...keywords]).slice(0, LOCAL_TOPICS);
  const markerImportance = markers.reduce((best, marker) => Math.max(best, marker.importance), 0);
  return {
    summary,
    topics,
    keyEntities: normalizeEntities([...files, ...entities]).slice(0, MAX_ENTITIES),
    importanceScore: Math.max(markerImportance, files.length > 0 ? 0.5 : 0.3),
  };
}

/** Prompt heads, then response heads, within SCAN_CHARS. */
function collectScanText(prompts: readonly PromptText[]): string {
  const parts: string[] = [];
  let used = 0;
  const add = (text: string, max: number): boolean => {
    if (used >= SCAN_CHARS) return false;
    const piece = sliceHead(text, Math.min(max, SCAN_CHARS - used));
    if (piece.trim() === '') return true;
    parts.push(piece);
    used += piece.length + 1;
    return true;
  };
  for (const prompt of prompts) if (!add(prompt.title ? `${prompt.title}. ${prompt.content}` : prompt.content, PROMPT_HEAD_CHARS)) break;
  for (const prompt of prompts) if (prompt.response && !add(prompt.response.content, RESPONSE_HEAD_CHARS)) break;
  return stripMarkdown(parts.join('\n'));
}

/** Markdown's heading marks, emphasis and quote marks: noise in an extracted sentence. */
function stripMarkdown(text: string): string {
  return text.replace(/^[ \t]{0,3}(?:#{1,6}|>+)[ \t]+/gm, '').replace(/\*\*|__/g, '');
}

/** Terms by weight × how many lines hold them: plain keywords, and the technical ones as entities. */
function rankTerms(text: string): { keywords: string[]; entities: string[] } {
  const scores = new Map<string, { score: number; kind: TermKind; original: string }>();
  for (const line of text.split('\n')) {
    const seen = new Set<string>();
    for (const { term, kind } of extractTextTerms(line)) {
      const key = term.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = scores.get(key);
      if (entry) entry.score += KIND_WEIGHT[kind];
      else scores.set(key, { score: KIND_WEIGHT[kind], kind, original: term });
    }
  }
  const ranked = [...scores.values()].sort((a, b) => b.score - a.score || (a.original < b.original ? -1 : a.original > b.original ? 1 : 0));
  return {
    keywords: ranked
      .filter((item) => (item.kind === 'word' || item.kind === 'compound') && !GENERIC_WORDS.has(item.original))
      .slice(0, 30)
      .map((item) => item.original),
    entities: ranked.filter((item) => ENTITY_KINDS.has(item.kind) || (item.kind === 'command' && item.original.includes(' '))).slice(0, MAX_ENTITIES * 2).map((item) => item.original),
  };
}

function describeEmpty(count: number): string {
  return `${count} prompt${count === 1 ? '' : 's'} without text to summarise.`;
}
