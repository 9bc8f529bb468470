import { existsSync, statSync } from 'node:fs';
import { resolveNamespace } from '../records/envelope.js';
import type { FixPort } from '../store/ports.js';
import { hashFileOnDisk } from './extract.js';
import { type FoldedPattern, buildFixPatterns, foldFixPatterns, selectPatterns, settleFixPatterns } from './patterns.js';
import { type DecisionRecord, type FoldedDecision, buildDecisionRecords, foldDecisions, selectDecisions, settleDecisions } from './decisions.js';
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
 * The fold's own version: raise it when foldDecisions or foldFixPatterns change what they make of the same facts,
 * so no fold an older walk kept is read (the build id joins it in a built tree).
 */
export const FACT_FOLD_VERSION = 1;

/** A namespace's facts walked once: what FixPort.readFold keeps. */
interface FoldedFacts {
  decisions: FoldedDecision[];
  patterns: FoldedPattern[];
}

/**
 * Fix patterns and decisions of one namespace for one context pack: the facts are folded once — or not at all,
 * when the store kept a fold of the namespace's facts as they are (`foldBuild` names the fold's code; null: no
 * fold is read or kept) — and each cited file hashed once, however many history sources ask (the pack asks for
 * both). A fold made here is offered to the store for the next reader.
 */
export function readPackFacts(port: FixPort, hashFile: (path: string) => string | null = hashFileOnDisk, foldBuild: string | null = null) {
  const folds = new Map<string, Promise<FoldedFacts>>();
  const hashes = new Map<string, string | null>();
  const hashOnce = (path: string): string | null => {
    if (!hashes.has(path)) hashes.set(path, hashFile(path));
    return hashes.get(path)!;
  };
  const fold = async (namespace: string | null): Promise<FoldedFacts> => {
    const kept = namespace !== null && foldBuild !== null ? await port.readFold(namespace, foldBuild) : null;
    if (kept?.body) return JSON.parse(kept.body) as FoldedFacts;
    // The version was read before the facts: a fold of facts newer than it is never kept as its.
    const events = await port.listEvents({ namespaces: namespace === null ? null : [namespace] });
    const made = { decisions: foldDecisions(events), patterns: foldFixPatterns(events) };
    if (kept && namespace !== null && foldBuild !== null) {
      // Best effort: a fold not kept is made again by the next reader.
      await port.putFold(namespace, { version: kept.version, build: foldBuild, body: JSON.stringify(made) }).catch(() => false);
    }
    return made;
  };
  const factsOf = (namespace: string | null): Promise<FoldedFacts> => {
    const key = namespace ?? '\u0000all';
    let found = folds.get(key);
    if (!found) {
      found = fold(namespace);
      folds.set(key, found);
    }
    return found;
  };
  return {
    /** Fold the namespace's facts now (kept for the next reader) without settling anything. */
    async warm(namespace: string): Promise<void> {
      await factsOf(namespace);
    },
    async patterns(namespace: string | null, query: string | null, limit: number): Promise<FixPattern[]> {
      return selectPatterns(settleFixPatterns((await factsOf(namespace)).patterns, hashOnce), query).slice(0, limit);
    },
    async decisions(namespace: string | null): Promise<DecisionRecord[]> {
      return selectDecisions(settleDecisions((await factsOf(namespace)).decisions, hashOnce), null);
    },
  };
}
