import type { MoonConfig } from '../config.js';
import type { TokenCounter } from '../text/tokens.js';
import { type Namespace, resolveNamespace } from '../records/envelope.js';
import type { DocPort } from '../store/ports.js';
import { assemblePack } from './assemble.js';
import { beadsSubsystem } from './beads.js';
import { documentsSubsystem } from './documents.js';
import { type HistorySource, historySubsystem, memoryFileSubsystem } from './sources.js';
import { longTermSubsystem } from './plane-sources.js';
import type { LongTermMemory } from '../records/long-term.js';
import { type ContextPack, type Omission, PACK_SECTIONS, type PackRequest, type PackSection, type PackSubsystem } from './types.js';

export interface ContextPackRequest {
  task: string;
  /** Tokens; default memory.context_budget_tokens (MEMORY_CONTEXT_BUDGET_TOKENS). */
  budget?: number;
  error?: string | null;
  /** A Beads issue id. */
  planning?: string | null;
  /** The caller's working directory: its namespace (resolveNamespace) scopes the pack. Undefined: the process's; null: none. */
  cwd?: string | null;
  /** An explicit namespace id instead of the cwd's. */
  namespace?: string | null;
  /** Every namespace (history and documents unscoped). */
  allNamespaces?: boolean;
  /**
   * Whether history also recalls what was said in earlier sessions (default true). The session-start hook asks
   * without: it lists the recent sessions itself, and recall is most of a pack's time on a large index.
   */
  recall?: boolean;
}

export interface PackDeps {
  memory: MoonConfig['memory'];
  memoryFile: string;
  docs: () => Promise<DocPort>;
  /** History sources: today recall over the namespace's sessions; digests and fix patterns join later. */
  history: readonly HistorySource[];
  counter: () => Promise<TokenCounter>;
  safe: () => Promise<(text: string) => string>;
  clock: () => number;
  /** Approved long-term memories of the namespace (the MemoryPort, or Mem0): curated and few, all offered to the packager; null when off. */
  longTerm?: ((query: string, namespace: string | null) => Promise<LongTermMemory[]>) | null;
  /** Replaces subsystems by section (tests: a broken one; later planes: their own). */
  subsystems?: Partial<Record<PackSection, PackSubsystem | null>>;
  onOmit?: (omission: Omission) => void;
}

export function packNamespace(request: Pick<ContextPackRequest, 'cwd' | 'namespace' | 'allNamespaces'>): { namespace_id: string | null; root: string | null } {
  // cwd null: the caller has no folder (an HTTP request without one): no repo-local files, no namespace of its own.
  const here: Namespace | null = request.cwd === null ? null : resolveNamespace(request.cwd ?? process.cwd());
  const root = here?.root ?? null;
  if (request.allNamespaces) return { namespace_id: null, root };
  // The folder's own files (.beads/, MEMORY.md lines about it) still come from where the caller stands.
  if (request.namespace) return { namespace_id: request.namespace, root };
  return { namespace_id: here?.namespace_id ?? null, root };
}

/** The context pack for a task (seed 003 §4), from the configured planes, within the budget, failing open. */
export async function buildContextPack(deps: PackDeps, request: ContextPackRequest): Promise<ContextPack> {
  const memory = deps.memory;
  const budget = request.budget ?? memory.context_budget_tokens;
  const where = packNamespace(request);
  const packRequest: PackRequest = { task: request.task, error: request.error ?? null, planning: request.planning ?? null, ...where };
  if (!memory.enabled) {
    const omitted = PACK_SECTIONS.map((subsystem): Omission => ({ subsystem, reason: 'disabled', detail: 'MEMORY_ENABLED=false' }));
    return { task: request.task, namespace_id: where.namespace_id, items: [], budget, used_tokens: 0, omitted };
  }
  const off = new Set<PackSection>();
  if (memory.planning === 'off') off.add('planning');
  if (memory.history === 'off') off.add('history');
  if (memory.long_term === 'off') off.add('long_term');
  const defaults: Record<PackSection, PackSubsystem | null> = {
    planning: beadsSubsystem(),
    history: historySubsystem(deps.history),
    // The long-term plane (moon's own store or Mem0), with MEMORY.md's lines about the project beside it.
    long_term:
      memory.long_term === 'off'
        ? null
        : deps.longTerm
          ? longTermSubsystem(deps.longTerm, memory.long_term === 'moon' ? memoryFileSubsystem(deps.memoryFile) : null, deps.clock)
          : memory.long_term === 'moon'
            ? memoryFileSubsystem(deps.memoryFile)
            : null,
    documents: documentsSubsystem(deps.docs, deps.clock),
  };
  const [safe, counter] = await Promise.all([deps.safe(), deps.counter()]);
  const subsystems = PACK_SECTIONS.map((section) => (section in (deps.subsystems ?? {}) ? deps.subsystems![section] : defaults[section]))
    .filter((subsystem): subsystem is PackSubsystem => subsystem !== null && subsystem !== undefined)
    .map((subsystem) => madeSafe(subsystem, safe));
  return assemblePack(packRequest, subsystems, { budget, failOpen: memory.fail_open, counter, off, onOmit: deps.onOmit });
}

/** Every text a subsystem hands out passes makeSafeText (with the secret detector) before it is counted. */
function madeSafe(subsystem: PackSubsystem, safe: (text: string) => string): PackSubsystem {
  return {
    name: subsystem.name,
    deadlineMs: subsystem.deadlineMs,
    async gather(request, budget) {
      const candidates = await subsystem.gather(request, budget);
      return candidates.map((candidate) => ({ ...candidate, text: safe(candidate.text), source: safe(candidate.source) }));
    },
  };
}
