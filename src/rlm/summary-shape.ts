/**
 * What every summary is cut to before it is stored, whoever wrote it: the schema's bounds and one spelling of
 * topics, so topicIndex groups `Bug Fix`, `bug-fix` and `bug fix` under one key.
 */
export const MAX_SUMMARY_CHARS = 1_000;
const MAX_TOPIC_CHARS = 64;
const MAX_ENTITY_CHARS = 200;
export const MAX_TOPICS = 7;
export const MAX_ENTITIES = 20;

/** At most `max` characters, cut after a word and marked `…`. */
export function shortenSummary(text: string, max = MAX_SUMMARY_CHARS): string {
  const clean = text.replace(/\s+/gu, ' ').trim();
  if (clean.length <= max) return clean;
  const head = clean.slice(0, max - 1);
  const space = head.lastIndexOf(' ');
  return `${(space > max / 2 ? head.slice(0, space) : head).trimEnd()}…`;
}

/** Lower case, words joined by hyphens, no other punctuation at the ends. */
export function normalizeTopic(topic: string): string {
  return topic
    .toLowerCase()
    .replace(/[\s_]+/gu, '-')
    .replace(/-{2,}/gu, '-')
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')
    .slice(0, MAX_TOPIC_CHARS);
}

/** Normalised, blanks and repeats dropped, order kept. */
export function normalizeTopics(topics: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const topic of topics) {
    if (typeof topic !== 'string') continue;
    const clean = normalizeTopic(topic);
    if (clean !== '' && !out.includes(clean)) out.push(clean);
  }
  return out;
}

/** Trimmed, one line, repeats dropped (case kept: `Config.ts` and `config.ts` are different files). */
export function normalizeEntities(entities: readonly unknown[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const entity of entities) {
    if (typeof entity !== 'string') continue;
    const clean = entity.replace(/\s+/gu, ' ').trim().slice(0, MAX_ENTITY_CHARS);
    if (clean === '' || seen.has(clean)) continue;
    seen.add(clean);
    out.push(clean);
  }
  return out;
}

/** A number in [0, 1]; null when the value is no number at all. */
export function clampImportance(value: unknown): number | null {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) return null;
  return Math.min(1, Math.max(0, number));
}
