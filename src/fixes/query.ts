import { existsSync, statSync } from 'node:fs';
import { resolveNamespace } from '../records/envelope.js';
import type { FixPort } from '../store/ports.js';
import { hashFileOnDisk } from './extract.js';
import { buildFixPatterns, selectPatterns } from './patterns.js';
import { type DecisionRecord, buildDecisionRecords, selectDecisions } from './decisions.js';
import type { EvidenceState, FixEvent, FixPattern } from '../records/fixes.js';

export interface FixesRequest {
  /** A signature, an error text (normalised to its signature), or words every pattern shown must contain. */
  query?: string | null;
  /** A namespace id (`github.com/acme/shop`, `path:/home/dev/x`) or a project directory. */
  namespace?: string | null;
  /** Every namespace, each pattern still built from its own namespace's facts only. */
  allNamespaces?: boolean;
  /** Where the caller stands (default: the process's working directory): its namespace is the default scope. */
  cwd?: string;
  /** At most this many patterns (default 20). */
  limit?: number;
}

export interface FixesResult {
  /**
   * Which namespace the patterns come from (null: all). `widened` when the working directory matched no indexed
   * project, so every namespace stays in reach (seed 003 part 10).
   */
  scope: { namespace: string | null; all: boolean; widened: boolean };
  patterns: FixPattern[];
}

const DEFAULT_LIMIT = 20;

/** Fix patterns for a caller: scoped to a namespace unless asked for all, ranked by how often they worked. */
export async function queryFixes(port: FixPort, request: FixesRequest, hashFile: (path: string) => string | null = hashFileOnDisk): Promise<FixesResult> {
  const scope = await resolveFactScope(port, request);
  const events = await port.listEvents({ namespaces: scope.namespace === null ? null : [scope.namespace] });
  const patterns = selectPatterns(buildFixPatterns(events, hashFile), request.query ?? null);
  return { scope, patterns: patterns.slice(0, request.limit ?? DEFAULT_LIMIT) };
}

export type DecisionsRequest = FixesRequest & { states?: readonly EvidenceState[] };

export interface DecisionsResult {
  scope: FixesResult['scope'];
  decisions: DecisionRecord[];
}

/** Decisions stated in the caller's sessions, each followed to its outcome: verified first, then claimed, then stale. */
export async function queryDecisions(
  port: FixPort,
  request: DecisionsRequest,
  hashFile: (path: string) => string | null = hashFileOnDisk,
): Promise<DecisionsResult> {
  const scope = await resolveFactScope(port, request);
  const events = await port.listEvents({ namespaces: scope.namespace === null ? null : [scope.namespace] });
  const states = request.states ? new Set(request.states) : null;
  const decisions = selectDecisions(buildDecisionRecords(events, hashFile), request.query ?? null).filter((record) => states === null || states.has(record.state));
  return { scope, decisions: decisions.slice(0, request.limit ?? DEFAULT_LIMIT) };
}

/** The namespace a request reads: named, all, else the working directory's when it is indexed (else all: `widened`). */
async function resolveFactScope(port: FixPort, request: FixesRequest): Promise<FixesResult['scope']> {
  if (request.allNamespaces) return { namespace: null, all: true, widened: false };
  if (request.namespace) {
    const namespace = isDirectory(request.namespace) ? resolveNamespace(request.namespace).namespace_id : request.namespace;
    return { namespace, all: false, widened: false };
  }
  const here = resolveNamespace(request.cwd ?? process.cwd()).namespace_id;
  const known = await port.listNamespaces();
  return known.includes(here) ? { namespace: here, all: false, widened: false } : { namespace: null, all: true, widened: true };
}

function isDirectory(value: string): boolean {
  try {
    return (value.startsWith('/') || value.startsWith('.') || value.startsWith('~')) && existsSync(value) && statSync(value).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Fix patterns and decisions of one namespace for one context pack: the facts are read once and each cited file
 * hashed once, however many history sources ask (the pack asks for both).
 */
export function readPackFacts(port: FixPort, hashFile: (path: string) => string | null = hashFileOnDisk) {
  const events = new Map<string, Promise<FixEvent[]>>();
  const hashes = new Map<string, string | null>();
  const hashOnce = (path: string): string | null => {
    if (!hashes.has(path)) hashes.set(path, hashFile(path));
    return hashes.get(path)!;
  };
  const factsOf = (namespace: string | null): Promise<FixEvent[]> => {
    const key = namespace ?? '\u0000all';
    let found = events.get(key);
    if (!found) {
      found = port.listEvents({ namespaces: namespace === null ? null : [namespace] });
      events.set(key, found);
    }
    return found;
  };
  return {
    async patterns(namespace: string | null, query: string | null, limit: number): Promise<FixPattern[]> {
      return selectPatterns(buildFixPatterns(await factsOf(namespace), hashOnce), query).slice(0, limit);
    },
    async decisions(namespace: string | null): Promise<DecisionRecord[]> {
      return selectDecisions(buildDecisionRecords(await factsOf(namespace), hashOnce), null);
    },
  };
}
