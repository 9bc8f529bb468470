import type { RecallResult } from '../model.js';
import type { ProjectScope } from './scope.js';

/**
 * A recall as every door answers it (CLI `--json`, MCP `structuredContent`, HTTP JSON): seed 001's RecallResult —
 * `matches[]`, each with `metadata.session_id` and `metadata.message_ids` — plus the scope it was searched in and
 * its notes when there are any, snake_case throughout. One function makes it, so the three doors cannot drift.
 */
export interface RecallScopeOutput {
  /** current: only sessions of the caller's project; all: every project. */
  projects: 'current' | 'all';
  /** roots/cwd: what the project was taken from; session: the call named sessions; the rest say why it is all. */
  reason: 'roots' | 'cwd' | 'all_projects' | 'no_project' | 'unmatched_cwd' | 'session';
  roots: string[];
}

export interface RecallOutput extends RecallResult {
  scope: RecallScopeOutput;
}

/** The scope a recall ran in, as the doors show it (never the list of session ids behind it). */
export function describeRecallScope(scope: ProjectScope | null, namedSessions = false): RecallScopeOutput {
  if (namedSessions) return { projects: 'all', reason: 'session', roots: [] };
  if (scope === null) return { projects: 'all', reason: 'all_projects', roots: [] };
  if (scope.kind === 'all') return { projects: 'all', reason: scope.reason, roots: scope.roots };
  return { projects: 'current', reason: scope.via, roots: scope.roots };
}

export function toRecallOutput(result: RecallResult, scope: RecallScopeOutput): RecallOutput {
  return {
    query: result.query,
    matches: result.matches,
    generated_at_epoch_secs: result.generated_at_epoch_secs,
    scope,
    // As seed 001 has it: present only when there is something to say (part of the query not searched, a scope).
    ...(result.notes !== undefined && result.notes.length > 0 ? { notes: result.notes } : {}),
  };
}
