import { randomBytes } from 'node:crypto';

/**
 * Long-term memory (plane C, seed 003 §3): curated, reusable knowledge — decisions, conventions, pitfalls,
 * preferences — with provenance and review. Entries carry the record envelope's namespace, repo and times
 * (src/records/envelope.ts); their trust class follows the review state (approved → `approved`, else `derived`).
 */
export const MEMORY_SCOPES = ['project', 'team', 'user'] as const;
export type MemoryScope = (typeof MEMORY_SCOPES)[number];

/** `draft` until a person approves it; `deprecated` stays searchable (flagged) and is never injected. */
export const REVIEW_STATES = ['draft', 'approved', 'deprecated'] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

/**
 * Where an entry came from. `source`: `manual`, `import:<path>` (an agent's own memory file) or
 * `promoted:<ref>` (a repeated decision, a digest, a fix pattern). `content_hash`: of the imported file, so a
 * second import of the same content adds nothing.
 */
export interface MemoryProvenance {
  source: string;
  session_ids: string[];
  message_ids: string[];
  content_hash?: string;
}

export interface LongTermMemory {
  id: string;
  record_kind: 'long_term';
  text: string;
  namespace_id: string;
  repo: string | null;
  scope: MemoryScope;
  review_state: ReviewState;
  /** Every source that contributed this text (duplicates merged into one entry keep all of theirs). */
  provenance: MemoryProvenance[];
  /** The agent already loads it (CLAUDE.md, AGENTS.md, its auto-memory): context packs leave it out. */
  agent_loaded: boolean;
  /** 1 for a new entry; each edit adds one and keeps the previous text as a version row. */
  version: number;
  created_at_ms: number;
  updated_at_ms: number;
  expires_at_ms: number | null;
}

/** A previous text of an entry, kept when it was edited. */
export interface MemoryVersion {
  memory_id: string;
  version: number;
  text: string;
  /** When this text was replaced. */
  replaced_at_ms: number;
}

export type NewMemory = Omit<LongTermMemory, 'record_kind' | 'version' | 'updated_at_ms'>;

export function newMemoryId(): string {
  return `mem_${randomBytes(6).toString('hex')}`;
}

export function trustClassOf(memory: Pick<LongTermMemory, 'review_state'>): 'approved' | 'derived' {
  return memory.review_state === 'approved' ? 'approved' : 'derived';
}

/** Whether the entry is returned at `nowMs` (an expired one never is; `moon gc` removes it). */
export function isLive(memory: Pick<LongTermMemory, 'expires_at_ms'>, nowMs: number): boolean {
  return memory.expires_at_ms === null || memory.expires_at_ms > nowMs;
}

/** Provenance lists joined: one element per distinct (source, content hash), session and message ids unioned. */
export function mergeProvenance(a: readonly MemoryProvenance[], b: readonly MemoryProvenance[]): MemoryProvenance[] {
  const merged: MemoryProvenance[] = a.map((item) => ({ ...item, session_ids: [...item.session_ids], message_ids: [...item.message_ids] }));
  for (const item of b) {
    const same = merged.find((existing) => existing.source === item.source && (existing.content_hash ?? null) === (item.content_hash ?? null));
    if (!same) {
      merged.push({ ...item, session_ids: [...new Set(item.session_ids)], message_ids: [...new Set(item.message_ids)] });
      continue;
    }
    same.session_ids = [...new Set([...same.session_ids, ...item.session_ids])];
    same.message_ids = [...new Set([...same.message_ids, ...item.message_ids])];
  }
  return merged;
}

export function sameProvenance(a: readonly MemoryProvenance[], b: readonly MemoryProvenance[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Words of a search, each of which an entry must hold (matched case-insensitively as substrings). */
export function searchWords(text: string): string[] {
  return [...new Set(text.toLowerCase().split(/[^\p{L}\p{N}_.-]+/u).filter((word) => word.length > 0))];
}

/**
 * Whether a context pack may hand this entry to an agent: approved, live, and not something the agent already
 * loads by itself (an imported CLAUDE.md / AGENTS.md / auto-memory line). Drafts and deprecated entries never are.
 */
export function isInjectable(memory: Pick<LongTermMemory, 'review_state' | 'agent_loaded' | 'expires_at_ms'>, nowMs: number): boolean {
  return memory.review_state === 'approved' && !memory.agent_loaded && isLive(memory, nowMs);
}
