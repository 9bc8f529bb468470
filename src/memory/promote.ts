import { readFile } from 'node:fs/promises';
import { readDistillInput } from '../distill/read-projection.js';
import type { StoreEngine } from '../store/ports.js';
import { duplicateKind } from './dedupe.js';
import type { MemoryProvenance } from '../records/long-term.js';
import { resolveNamespace } from '../records/envelope.js';

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

/** Fix patterns that worked (verified, not stale) in at least this many fixes are proposed. */
export const MIN_FIX_WORKED = 2;

/**
 * Fix patterns that worked more than once in the namespace (seed 003: "fix patterns that worked more than once"):
 * the error and what fixed it, with the fixing sessions and messages as provenance.
 */
export const fixPatternsThatWorked: PromotionSource = {
  name: 'fix_patterns',
  async candidates(context) {
    const { queryFixes } = await import('../fixes/query.js');
    const { patterns } = await queryFixes(context.engine.fixes, { namespace: context.namespaceId, limit: 50 });
    return patterns
      .filter((pattern) => pattern.state === 'verified' && pattern.worked >= MIN_FIX_WORKED)
      .map((pattern) => {
        const files = [...new Set(pattern.evidence.flatMap((item) => item.files))].slice(0, 4);
        const targets = pattern.targets.slice(0, 2).map((target) => `\`${target}\``).join(', ');
        return {
          text: `When ${targets || 'a command'} fails with \`${pattern.signature}\`, the fix that worked ${pattern.worked} times changed ${files.join(', ') || 'the code'}.`,
          provenance: [
            {
              source: `promoted:fix_pattern:${pattern.signature}`,
              session_ids: [...new Set(pattern.evidence.map((item) => item.session_id))].sort(),
              message_ids: pattern.evidence.flatMap((item) => item.message_ids).slice(0, 20),
            },
          ],
        };
      });
  },
};

/** Gotchas of run digests that recur (duplicate text) in at least two sessions of the namespace: environment pitfalls. */
export const repeatedDigestGotchas: PromotionSource = {
  name: 'digest_gotchas',
  async candidates(context) {
    const digests = await context.engine.digests.list({ namespace: context.namespaceId, limit: 500, nowMs: Date.now() });
    const groups: { text: string; sessions: Set<string>; messages: string[] }[] = [];
    for (const digest of digests) {
      for (const gotcha of digest.body.gotchas) {
        const group = groups.find((existing) => duplicateKind(existing.text, gotcha.text) !== null);
        if (group) {
          group.sessions.add(digest.session_id);
          group.messages.push(...gotcha.message_ids);
        } else groups.push({ text: gotcha.text, sessions: new Set([digest.session_id]), messages: [...gotcha.message_ids] });
      }
    }
    return groups
      .filter((group) => group.sessions.size >= MIN_DECISION_SESSIONS)
      .map((group) => ({
        text: group.text,
        provenance: [{ source: 'promoted:digest_gotcha', session_ids: [...group.sessions].sort(), message_ids: group.messages.slice(0, 20) }],
      }));
  },
};

export const PROMOTION_SOURCES: readonly PromotionSource[] = [repeatedDecisions, fixPatternsThatWorked, repeatedDigestGotchas];

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
