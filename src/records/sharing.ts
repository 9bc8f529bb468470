import type { LongTermMemory } from './long-term.js';

/**
 * Who sees a long-term memory besides its own namespace (seed 003 §3's `scope`):
 * - `project`: its namespace only;
 * - `team`: every namespace of the same team — the repositories under one owner on one host
 *   (`github.com/acme/shop` and `github.com/acme/billing` share the team `github.com/acme`); a namespace without a
 *   git remote (`path:…`) has no team, so a team entry written there reaches no further than its folder;
 * - `user`: every namespace of this moon home (it is one person's machine and history).
 * One rule, used by the engines' queries (through `sharedReach`) and by single-entry reads (`isVisibleIn`).
 */
export interface SharedReach {
  /** The team's namespace prefix with its trailing slash (`github.com/acme/`), or null: no team to share with. */
  teamPrefix: string | null;
}

/** The team of a namespace: its host and owner, for a namespace named by a git remote; null otherwise. */
export function teamOf(namespaceId: string): string | null {
  if (/^[a-z]+:/.test(namespaceId)) return null; // path:…, project:…
  const parts = namespaceId.split('/');
  if (parts.length < 3) return null;
  return parts.slice(0, -1).join('/');
}

export function sharedReach(namespaceId: string): SharedReach {
  const team = teamOf(namespaceId);
  return { teamPrefix: team === null ? null : `${team}/` };
}

/** Whether an entry reaches a reader in `namespaceId` (null: the reader asked for every namespace). */
export function isVisibleIn(memory: Pick<LongTermMemory, 'namespace_id' | 'scope'>, namespaceId: string | null): boolean {
  if (namespaceId === null || memory.namespace_id === namespaceId) return true;
  if (memory.scope === 'user') return true;
  if (memory.scope !== 'team') return false;
  const team = teamOf(namespaceId);
  return team !== null && teamOf(memory.namespace_id) === team;
}
