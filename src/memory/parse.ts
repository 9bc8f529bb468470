import { MoonError } from '../errors.js';
import { MEMORY_AGENTS, type MemoryAgent } from './import-agents.js';
import { MEMORY_SCOPES, type MemoryScope, REVIEW_STATES, type ReviewState } from '../records/long-term.js';

/** Values of the long-term memory requests, checked; errors name the request field (the CLI shows its flag). */
export function parseScope(value: string | undefined): MemoryScope | undefined {
  if (value === undefined) return undefined;
  if (!(MEMORY_SCOPES as readonly string[]).includes(value)) throw new MoonError('bad_usage', `scope: must be one of ${MEMORY_SCOPES.join(', ')}, got "${value}"`, { field: 'scope' });
  return value as MemoryScope;
}

export function parseStates(value: string | undefined): ReviewState[] | undefined {
  if (value === undefined) return undefined;
  const states = value.split(',').map((item) => item.trim());
  const bad = states.find((state) => !(REVIEW_STATES as readonly string[]).includes(state));
  if (bad !== undefined) throw new MoonError('bad_usage', `state: takes ${REVIEW_STATES.join(', ')} (comma-separated), got "${bad}"`, { field: 'state' });
  return states as ReviewState[];
}

export function parseExpires(value: string | undefined): number | null {
  if (value === undefined) return null;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value.trim()) ? Date.parse(value.trim()) : Number.NaN;
  if (!Number.isFinite(ms)) throw new MoonError('bad_usage', `expires: takes an ISO date or date-time (2026-03-01, 2026-03-01T09:00:00Z), got "${value}"`, { field: 'expires' });
  return ms;
}

export function parseAgent(value: string | undefined): MemoryAgent | undefined {
  if (value === undefined) return undefined;
  if (!(MEMORY_AGENTS as readonly string[]).includes(value)) throw new MoonError('bad_usage', `agent: must be one of ${MEMORY_AGENTS.join(', ')}, got "${value}"`, { field: 'agent' });
  return value as MemoryAgent;
}
