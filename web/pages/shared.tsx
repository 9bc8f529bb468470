import { ApiError } from '../api.js';

/** The agents moon reads, as a select's options (any first): one list for every filter. */
const AGENTS: [value: string, label: string][] = [
  ['claude-code', 'Claude Code'],
  ['codex', 'Codex'],
  ['openclaw', 'OpenClaw'],
  ['puffin', 'Puffin'],
];

export function AgentOptions() {
  return (
    <>
      <option value="">any</option>
      {AGENTS.map(([value, label]) => (
        <option key={value} value={value}>
          {label}
        </option>
      ))}
    </>
  );
}

/** An error from the API as people read it: what went wrong, and the hint when moon gave one. */
export function ErrorNote({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const message = error instanceof ApiError ? error.message : error instanceof Error ? error.message : String(error);
  const hint = error instanceof ApiError ? error.hint : undefined;
  return (
    <p class="card error" role="alert">
      {message}
      {hint ? <span> — {hint}</span> : null}
    </p>
  );
}

/** Words too common to mark in a snippet (recall drops them from the query too). */
const UNMARKED = new Set(['the', 'and', 'for', 'was', 'were', 'did', 'does', 'what', 'why', 'how', 'when', 'where', 'who', 'which', 'with', 'that', 'this', 'from', 'into', 'our', 'you', 'are', 'not', 'but', 'have', 'has', 'had', 'can', 'any', 'all', 'about']);

/** The words of a query worth marking: two letters or more, not the commonest words. */
export function markableWords(query: string): string[] {
  return [...new Set(query.toLowerCase().split(/[^\p{L}\p{N}_./-]+/u).filter((word) => word.length >= 2 && !UNMARKED.has(word)))];
}

/** `text` with each word that starts like one of `words` (case-insensitive) marked: "build" marks "building". */
export function Marked({ text, words }: { text: string; words: readonly string[] }) {
  if (words.length === 0) return <>{text}</>;
  const escaped = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(${escaped.join('|')})`, 'giu');
  const parts = text.split(pattern);
  return <>{parts.map((part, index) => (index % 2 === 1 ? <mark key={index}>{part}</mark> : part))}</>;
}
