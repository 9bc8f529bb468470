import { clampImportance, MAX_ENTITIES, MAX_TOPICS, normalizeEntities, normalizeTopics, shortenSummary } from './summary-shape.js';
import type { SegmentSummary } from './summary-local.js';

/**
 * Seed 004's summary prompt template, as the seed writes it (it is part of the specification). `{content}` is
 * the segment's content. Raising TEMPLATE_VERSION invalidates every cached answer.
 */
export const SUMMARY_PROMPT_TEMPLATE = `
Given the following conversation segment from a software development project:

<segment>
{content}
</segment>

Provide a JSON response with:
1. "summary": A 2-3 sentence summary of the main topics and outcomes
2. "topics": Array of 3-7 topic tags (e.g., "authentication", "refactoring", "bug-fix")
3. "keyEntities": Array of specific files, functions, or concepts mentioned
4. "importanceScore": A score from 0.0 to 1.0 based on:
   - 1.0: Critical architectural decisions, security issues, breaking changes
   - 0.7-0.9: Important features, significant bugs, design patterns
   - 0.4-0.6: Standard development work, minor fixes
   - 0.1-0.3: Routine queries, documentation, formatting

Respond ONLY with valid JSON.
`;

export const TEMPLATE_VERSION = '1';

/** The answer's bound (seed 004's rlm-subcall asks for at most 1000 tokens). */
export const SUMMARY_MAX_TOKENS = 1_000;

export function renderSummaryPrompt(content: string): string {
  // A function replacer: `$&` and friends in the content stay as written.
  return SUMMARY_PROMPT_TEMPLATE.replace('{content}', () => content);
}

export interface ParsedAnswer {
  summary: SegmentSummary;
  /** `llm`: the answer was a valid object; `llm-fallback`: fields were recovered from a broken one. */
  source: 'llm' | 'llm-fallback';
}

/**
 * A model's answer to the template, as a summary. A valid JSON object with a summary is taken as it is (shaped to
 * the schema's bounds); otherwise the fields are recovered by pattern from the text — a cut object, an object
 * inside prose, single fields — and a plain prose answer becomes the summary itself. Whatever is still missing
 * comes from `fallback` (the local summariser's answer for the same segment). Null when nothing usable is there.
 */
export function parseSummaryAnswer(text: string, fallback: () => SegmentSummary): ParsedAnswer | null {
  const parsed = parseObject(text);
  if (parsed && typeof parsed.summary === 'string' && parsed.summary.trim() !== '') {
    const topics = Array.isArray(parsed.topics) ? normalizeTopics(parsed.topics) : null;
    const entities = Array.isArray(parsed.keyEntities) ? normalizeEntities(parsed.keyEntities) : null;
    const importance = clampImportance(parsed.importanceScore);
    const complete = topics !== null && entities !== null && importance !== null;
    const local = complete ? null : fallback();
    return {
      summary: {
        summary: shortenSummary(parsed.summary),
        topics: (topics ?? local!.topics).slice(0, MAX_TOPICS),
        keyEntities: (entities ?? local!.keyEntities).slice(0, MAX_ENTITIES),
        importanceScore: importance ?? local!.importanceScore,
      },
      source: complete ? 'llm' : 'llm-fallback',
    };
  }
  const recovered = recoverFields(text);
  if (recovered.summary === null) return null;
  const local = fallback();
  return {
    summary: {
      summary: shortenSummary(recovered.summary),
      topics: (recovered.topics ?? local.topics).slice(0, MAX_TOPICS),
      keyEntities: (recovered.keyEntities ?? local.keyEntities).slice(0, MAX_ENTITIES),
      importanceScore: recovered.importanceScore ?? local.importanceScore,
    },
    source: 'llm-fallback',
  };
}

/** The answer as a JSON object: whole, or the outermost `{…}` inside it. */
function parseObject(text: string): Record<string, unknown> | null {
  const attempt = (candidate: string): Record<string, unknown> | null => {
    try {
      const value = JSON.parse(candidate) as unknown;
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  };
  const trimmed = text.trim();
  const whole = attempt(trimmed);
  if (whole) return whole;
  const start = trimmed.indexOf('{');
  const end = trimmed.lastIndexOf('}');
  return start >= 0 && end > start ? attempt(trimmed.slice(start, end + 1)) : null;
}

interface Recovered {
  summary: string | null;
  topics: string[] | null;
  keyEntities: string[] | null;
  importanceScore: number | null;
}

/** Fields by pattern (each pattern runs in time linear in the answer, which maxTokens bounds). */
function recoverFields(text: string): Recovered {
  const summaryMatch = /"summary"\s*:\s*"((?:[^"\\]|\\.)*)"?/u.exec(text);
  const list = (name: string): string[] | null => {
    const match = new RegExp(`"${name}"\\s*:\\s*\\[([^\\]]*)\\]?`, 'u').exec(text);
    if (!match) return null;
    const items = [...match[1]!.matchAll(/"((?:[^"\\]|\\.)*)"/gu)].map((item) => decodeJsonString(item[1]!));
    return items.length > 0 ? items : null;
  };
  const importance = /"importanceScore"\s*:\s*"?(-?\d+(?:\.\d+)?)/u.exec(text);
  let summary = summaryMatch ? decodeJsonString(summaryMatch[1]!).trim() : null;
  if (summary === '') summary = null;
  if (summary === null && !/[{}[\]"]/u.test(text.slice(0, 200))) {
    // A prose answer: its first sentences are the summary.
    const sentences = text.replace(/\s+/gu, ' ').trim().split(/(?<=[.!?])\s+/u).slice(0, 3).join(' ');
    summary = sentences === '' ? null : sentences;
  }
  return {
    summary,
    topics: list('topics') === null ? null : normalizeTopics(list('topics')!),
    keyEntities: list('keyEntities') === null ? null : normalizeEntities(list('keyEntities')!),
    importanceScore: importance ? clampImportance(importance[1]) : null,
  };
}

function decodeJsonString(body: string): string {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return body.replace(/\\(["\\/])/gu, '$1').replace(/\\n/gu, '\n');
  }
}
