import { readFile } from 'node:fs/promises';
import { readDistillInput } from '../distill/read-projection.js';
import type { StoreEngine } from '../store/ports.js';
import { duplicateKind } from './dedupe.js';
import type { MemoryProvenance } from './long-term.js';
import { resolveNamespace } from './records.js';

/**
 * Promotion: stable learnings proposed as long-term memory DRAFTS with their provenance — never approved here.
 * Each source finds candidates in one namespace; `moon memory propose` runs every source of PROMOTION_SOURCES.
 *
 * Extension point for run digests and fix patterns: add a PromotionSource (e.g. `fixPatternsThatWorkedTwice`,
 * `repeatedDigestGotchas`) to PROMOTION_SOURCES; its provenance source should read `promoted:<kind>:<ref>`.
 */
export interface PromotionCandidate {
  text: string;
  provenance: MemoryProvenance[];
}

export interface PromotionContext {
  engine: StoreEngine;
  namespaceId: string;
  /** The namespace of a session's working directory (cached by the caller). */
  namespaceOf(cwd: string | null, project: string | null): string;
}

export interface PromotionSource {
  readonly name: string;
  candidates(context: PromotionContext): Promise<PromotionCandidate[]>;
}

/** How many different sessions must have made a decision before it is proposed. */
export const MIN_DECISION_SESSIONS = 2;

/**
 * Decisions that repeat across sessions of the namespace: the `## Decisions & Outcomes` lines of the sessions'
 * projections, grouped when one duplicates another (src/memory/dedupe.ts), proposed when ≥ 2 sessions made them.
 */
export const repeatedDecisions: PromotionSource = {
  name: 'repeated_decisions',
  async candidates(context) {
    const groups: { text: string; sessions: Set<string> }[] = [];
    for (const session of await context.engine.ingest.listSessions()) {
      if (!session.projectionPath) continue;
      if (context.namespaceOf(session.cwd, session.project) !== context.namespaceId) continue;
      let decisions: string[];
      try {
        decisions = readDistillInput(await readFile(session.projectionPath, 'utf8'), session.projectionPath).decisions;
      } catch {
        continue;
      }
      for (const decision of decisions) {
        const group = groups.find((existing) => duplicateKind(existing.text, decision) !== null);
        if (group) group.sessions.add(session.id);
        else groups.push({ text: decision, sessions: new Set([session.id]) });
      }
    }
    return groups
      .filter((group) => group.sessions.size >= MIN_DECISION_SESSIONS)
      .map((group) => ({
        text: group.text,
        provenance: [{ source: 'promoted:decision', session_ids: [...group.sessions].sort(), message_ids: [] }],
      }));
  },
};

export const PROMOTION_SOURCES: readonly PromotionSource[] = [repeatedDecisions];

/** A namespace resolver that reads each working directory once. */
export function cachedNamespaceOf(): (cwd: string | null, project: string | null) => string {
  const cache = new Map<string, string>();
  return (cwd, project) => {
    const key = `${cwd ?? ''}\u0000${project ?? ''}`;
    let found = cache.get(key);
    if (found === undefined) {
      found = resolveNamespace(cwd, project).namespace_id;
      cache.set(key, found);
    }
    return found;
  };
}
