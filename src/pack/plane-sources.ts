import type { RunDigest } from '../records/digests.js';
import { isMoonError } from '../errors.js';
import type { DecisionRecord } from '../fixes/decisions.js';
import { classifyDecisionLine } from '../text/decision-line.js';
import type { FixPattern } from '../records/fixes.js';
import type { LongTermMemory } from '../records/long-term.js';
import { isInjectable } from '../records/long-term.js';
import type { HistorySource } from './sources.js';
import { type PackCandidate, type PackSubsystem, SubsystemUnavailable } from './types.js';

/**
 * The memory planes as pack sources: run digests of similar past runs and fix patterns (history, seed 003 §5.3 —
 * patterns for the given error first, verified before claimed), and approved long-term memories (§5.4; never
 * what the agent already loads, never drafts or deprecated ones). Each hands candidates with their evidence.
 */
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function digestHistorySource(search: (query: string, namespace: string | null) => Promise<RunDigest[]>): HistorySource {
  return async (request) => {
    const digests = await search(request.error ? `${request.error} ${request.task}` : request.task, request.namespace_id);
    return digests.map((digest): PackCandidate => {
      const gotchas = digest.body.gotchas.slice(0, 2).map((line) => line.text);
      const text = [`${digest.title} — ${digest.body.outcome.text}`, ...gotchas.map((gotcha) => `gotcha: ${gotcha}`)].join('\n');
      return {
        text,
        source: `digest of session ${digest.session_id}`,
        record_kind: 'run_digest',
        trust_class: digest.trust_class,
        provenance: { session_id: digest.session_id, content_hash: digest.content_hash, produced_by: digest.produced_by, run_ref: digest.run_ref },
        recency: iso(digest.created_at_ms),
      };
    });
  };
}

const STATE_ORDER: Record<string, number> = { verified: 0, claimed: 1, open: 2, stale: 3 };

export function fixHistorySource(query: (text: string | null, namespace: string | null) => Promise<FixPattern[]>): HistorySource {
  return async (request) => {
    // Only with an error to match: without one, fix patterns would be noise beside the task.
    if (!request.error) return [];
    const patterns = (await query(request.error, request.namespace_id)).filter((pattern) => pattern.state !== 'open');
    patterns.sort((a, b) => (STATE_ORDER[a.state] ?? 9) - (STATE_ORDER[b.state] ?? 9) || b.worked - a.worked);
    return patterns.map((pattern): PackCandidate => {
      const fix = pattern.evidence[0];
      const files = fix && fix.files.length > 0 ? ` (changed ${fix.files.slice(0, 3).join(', ')})` : '';
      return {
        text: `${pattern.state} fix for \`${pattern.signature}\`: worked ${pattern.worked} time${pattern.worked === 1 ? '' : 's'}${files}; seen ${pattern.count}×`,
        source: `fix pattern ${pattern.signature}`,
        record_kind: 'fix_pattern',
        trust_class: pattern.trust_class,
        provenance: { signature: pattern.signature, state: pattern.state, evidence: pattern.evidence.slice(0, 3) },
        recency: iso(pattern.last_seen_ms),
      };
    });
  };
}

/** Words of a task worth matching a decision on: four letters or more, not the usual glue. */
const GLUE = new Set(['with', 'from', 'into', 'that', 'this', 'then', 'than', 'what', 'when', 'where', 'which', 'while', 'should', 'would', 'could', 'about', 'after', 'before', 'make', 'does', 'have', 'there', 'their', 'them', 'they', 'your', 'ours', 'also', 'just', 'some', 'more', 'most', 'only', 'over', 'fix', 'fixes']);
export function taskWords(text: string): string[] {
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}_][\p{L}\p{N}_.-]*[\p{L}\p{N}_]/gu) ?? [])].filter((word) => word.length >= 4 && !GLUE.has(word));
}

/**
 * Decisions stated in earlier sessions of the namespace that share words with the task (two at least, or the
 * task's only one), each with its evidence state: verified ones first, stale ones said to be stale.
 */
export function decisionHistorySource(list: (namespace: string | null) => Promise<DecisionRecord[]>, limit = 4): HistorySource {
  return async (request) => {
    const words = taskWords(`${request.task} ${request.error ?? ''}`);
    if (words.length === 0) return [];
    const need = Math.min(2, words.length);
    const scored = (await list(request.namespace_id))
      // Only what its words show to be a decision (src/text/decision-line.ts), its own label taken off: a pack
      // says "verified decision: …" once, and never of a request, a command or an outcome.
      .flatMap((record) => {
        const verdict = classifyDecisionLine(record.text);
        return verdict.decision ? [{ ...record, text: verdict.text }] : [];
      })
      .map((decision) => {
        const text = decision.text.toLowerCase();
        return { decision, hits: words.filter((word) => text.includes(word)).length };
      })
      .filter((item) => item.hits >= need);
    scored.sort((a, b) => (STATE_ORDER[a.decision.state] ?? 9) - (STATE_ORDER[b.decision.state] ?? 9) || b.hits - a.hits || (b.decision.ts ?? 0) - (a.decision.ts ?? 0));
    return scored.slice(0, limit).map(({ decision }): PackCandidate => {
      const how = decision.verified_by ? (decision.verified_by.how === 'commit_landed' ? ' (landed)' : ' (a check passed after it)') : '';
      const why = decision.stale_reason ? ` (${decision.stale_reason})` : '';
      return {
        text: `${decision.state} decision${how}${why}: ${decision.text}`,
        source: `decision in session ${decision.session_id}`,
        record_kind: 'decision',
        trust_class: decision.trust_class,
        provenance: {
          session_id: decision.session_id,
          // The decision's own message first, then the change that carried it out.
          message_ids: decision.run_ref?.message_ids ?? [decision.message_id],
          state: decision.state,
          files: decision.files.slice(0, 5),
          commits: decision.commits,
          verified_by: decision.verified_by,
        },
        recency: iso(decision.ts),
      };
    });
  };
}

export function longTermSubsystem(
  search: (query: string, namespace: string | null) => Promise<LongTermMemory[]>,
  fallback: PackSubsystem | null,
  nowMs: () => number,
  deadlineMs = 200,
): PackSubsystem {
  return {
    name: 'long_term',
    deadlineMs,
    async gather(request, budget) {
      let found: LongTermMemory[];
      try {
        found = (await search(request.task, request.namespace_id)).filter((memory) => isInjectable(memory, nowMs()));
      } catch (error) {
        // A backend not set up (Mem0 without its key, no index yet) is missing, not broken.
        if (isMoonError(error) && (error.code === 'bad_config' || error.code === 'not_found')) throw new SubsystemUnavailable('missing', error.message);
        throw error;
      }
      const items = found.map(
        (memory): PackCandidate => ({
          text: memory.text,
          source: `long-term memory ${memory.id}`,
          record_kind: 'long_term',
          trust_class: 'approved',
          provenance: { id: memory.id, version: memory.version, scope: memory.scope, sources: memory.provenance },
          recency: iso(memory.updated_at_ms),
        }),
      );
      // MEMORY.md's lines about the project stand beside them (L2 writes it; people edit it).
      const fromFile = fallback ? await fallback.gather(request, budget).catch(() => []) : [];
      return [...items, ...fromFile];
    },
  };
}
