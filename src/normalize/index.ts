import { type Entry, type Session, addCount } from '../model.js';
import type { ParsedChunk } from '../sources/source.js';
import { cleanText } from './clean.js';
import { findContaminated } from './contamination.js';
import { classifyNoise, DEFAULT_MIN_LENGTH } from './filters.js';
import { classifyPriority } from './priority.js';

/**
 * The normalize stage: raw ParsedChunk in, clean/redacted/filtered ParsedChunk out. Pure: the input chunk is
 * not modified, entry order is kept, and the same input always gives the same output.
 */

export { cleanText } from './clean.js';
export { unescapeJsonNoise } from './unescape.js';
export { createRedactor, type Redactor, type RedactorOptions } from './redact.js';
export { redactReportMessages } from './redact/report.js';
export { classifyNoise, NOISE_REASONS, type NoiseCandidate, type NoiseReason } from './filters.js';
export { classifyPriority, isMutatingCommand } from './priority.js';
export { classifyRecallEvent, findContaminated, looksLikeRecallOutput } from './contamination.js';

export interface NormalizeOptions {
  redact: (text: string) => string;
  /** Seed 002 §2.1 minimum message length in characters (default 10). */
  minLength?: number;
}

export interface NormalizeResult {
  chunk: ParsedChunk;
  /** Entries dropped as noise. */
  filtered: number;
  /** The same count by NoiseReason; reasons that dropped nothing are absent. */
  filteredByReason: Record<string, number>;
}

/** Clean then redact: the one text transform every stage that stores or shows transcript text should apply. */
export function createTextNormalizer(redact: (text: string) => string): (text: string) => string {
  return (text) => redact(cleanText(text));
}

export function normalizeChunk(chunk: ParsedChunk, options: NormalizeOptions): NormalizeResult {
  const normalizeText = createTextNormalizer(options.redact);
  const minLength = options.minLength ?? DEFAULT_MIN_LENGTH;
  const entries: Entry[] = [];
  const filteredByReason: Record<string, number> = {};
  let filtered = 0;

  const cleaned = chunk.entries.map((raw) => normalizeEntry(raw, normalizeText, options.redact));
  const contaminated = findContaminated(cleaned);
  for (const entry of cleaned) {
    const reason: string | null = contaminated.has(entry) ? 'recall-contamination' : classifyNoise(entry, { minLength });
    if (reason !== null) {
      filtered++;
      addCount(filteredByReason, reason);
      continue;
    }
    entries.push(entry);
  }

  return {
    chunk: {
      ...chunk,
      session: redactSession(chunk.session, options.redact),
      carry: redactStrings(chunk.carry, options.redact),
      entries,
      results: chunk.results.map((patch) => ({ ...patch, result: patch.result === null ? null : normalizeText(patch.result) })),
      anchors: chunk.anchors.map((anchor) => ({ ...anchor, note: normalizeText(anchor.note) })),
    },
    filtered,
    filteredByReason,
  };
}

/**
 * Session facts are stored, projected and printed like message text, and a token can sit in any of them: a
 * folder named after a key, a branch `fix/ghp_…`, a task description quoting a password. The transcript path stays
 * as it is: it names the file moon reads, and the raw archive is owner-only anyway.
 */
function redactSession(session: Session, redact: (text: string) => string): Session {
  const field = (value: string | null): string | null => (value === null ? null : redact(value));
  return {
    ...session,
    project: field(session.project),
    cwd: field(session.cwd),
    branch: field(session.branch),
    title: field(session.title),
    agentType: field(session.agentType),
    agentDescription: field(session.agentDescription),
  };
}

/**
 * The carry is stored with the file's offset, and adapters keep session facts in it (cwd, branch, title) to
 * restate them in later chunks; those facts are redacted like the session's. Ids and hashes hold no secrets and
 * come out unchanged.
 */
function redactStrings(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redact));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactStrings(item, redact)]));
  }
  return value;
}

function normalizeEntry(raw: Entry, normalizeText: (text: string) => string, redact: (text: string) => string): Entry {
  const text = normalizeText(raw.text);
  const toolName = raw.toolName === null ? null : redact(raw.toolName);
  const result = raw.result === null ? null : normalizeText(raw.result);
  const target = raw.toolTarget === null ? null : normalizeText(raw.toolTarget);
  const toolTarget = target === '' ? null : target;
  return {
    ...raw,
    text,
    toolName,
    result,
    toolTarget,
    priority: raw.role === 'tool' ? prioritize(toolName, text, toolTarget) : null,
  };
}

/**
 * The call text is the fullest description (the whole command; the target holds only its first line), but some
 * adapters put the action only in the target, so either one being high is enough.
 */
function prioritize(toolName: string | null, text: string, target: string | null): Entry['priority'] {
  if (classifyPriority(toolName, text) === 'high') return 'high';
  return target !== null && target !== text && classifyPriority(toolName, target) === 'high' ? 'high' : 'normal';
}
