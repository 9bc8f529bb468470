import { findDuplicate, type DuplicateKind } from './dedupe.js';
import { type LongTermMemory, type MemoryProvenance, type MemoryScope, type ReviewState, newMemoryId } from '../records/long-term.js';
import type { MemoryPort } from '../store/ports.js';

export interface RememberInput {
  text: string;
  namespace_id: string;
  repo: string | null;
  scope?: MemoryScope;
  /** Default `draft`: nothing becomes approved knowledge without a person. */
  review_state?: ReviewState;
  provenance: MemoryProvenance[];
  agent_loaded?: boolean;
  expires_at_ms?: number | null;
}

export interface RememberResult {
  memory: LongTermMemory;
  /** `created`; `merged` into a duplicate (provenance added); `unchanged`: a duplicate with this provenance already. */
  outcome: 'created' | 'merged' | 'unchanged';
  duplicate: DuplicateKind | null;
}

/**
 * Add a long-term memory, or merge it into the entry of its namespace and scope it duplicates (exact or
 * near-exact text, src/memory/dedupe.ts): one entry with both provenances. Deprecated entries are not merged
 * into (the same text said again is a new draft to review).
 */
export async function rememberMemory(port: MemoryPort, input: RememberInput, nowMs: number): Promise<RememberResult> {
  const text = input.text.trim();
  const scope = input.scope ?? 'project';
  let duplicate: DuplicateKind | null = null;
  const result = await port.addOrMerge(
    {
      id: newMemoryId(),
      text,
      namespace_id: input.namespace_id,
      repo: input.repo,
      scope,
      review_state: input.review_state ?? 'draft',
      provenance: input.provenance,
      agent_loaded: input.agent_loaded ?? false,
      created_at_ms: nowMs,
      expires_at_ms: input.expires_at_ms ?? null,
    },
    (candidates) => {
      const found = findDuplicate(
        text,
        candidates.filter((memory) => memory.scope === scope),
      );
      duplicate = found?.kind ?? null;
      return found?.match ?? null;
    },
  );
  return { ...result, duplicate: result.outcome === 'created' ? null : duplicate };
}
