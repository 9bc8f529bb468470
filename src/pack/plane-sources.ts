import type { RunDigest } from '../digest/types.js';
import { isMoonError } from '../errors.js';
import type { FixPattern } from '../fixes/types.js';
import type { LongTermMemory } from '../memory/long-term.js';
import { isInjectable } from '../memory/long-term.js';
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
