import type { RecordKind, TrustClass } from '../records/envelope.js';

/**
 * The context pack (seed 003 §4): before an agent acts, one token-budgeted bundle of planning state, history,
 * long-term memory and documents, every item citing where it came from. Each part is a PackSubsystem; the
 * packager (assemble.ts) runs them side by side, each under its own deadline, and never lets one that is off,
 * missing, failing or slow stop the pack (fail-open).
 */

/** The pack's sections, in the order the seed gives them; each subsystem fills one. */
export const PACK_SECTIONS = ['planning', 'history', 'long_term', 'documents'] as const;
export type PackSection = (typeof PACK_SECTIONS)[number];

/** What a pack item is, beyond the memory planes' record kinds: a work item from planning, a past session's messages. */
export type PackRecordKind = RecordKind | 'work_item' | 'session';

export interface PackRequest {
  /** What the agent is about to do. */
  task: string;
  /** An error text the agent is facing: history sources match it first. */
  error?: string | null;
  /** A planning reference (a Beads issue id). */
  planning?: string | null;
  /** The namespace the pack is for (resolveNamespace), or null for every namespace. */
  namespace_id: string | null;
  /** The namespace's folder (its repository root), where `.beads/` and the docs are; null when unknown. */
  root: string | null;
}

/** An item as a subsystem hands it over; the packager counts its tokens. */
export interface PackCandidate {
  text: string;
  /** Where it is, readable: `.beads/issues.jsonl#bd-12`, `docs/adr/0001.md:14`, `session 5f1c…`. */
  source: string;
  record_kind: PackRecordKind;
  trust_class: TrustClass;
  /** What it rests on: ids, paths, hashes, message ids. */
  provenance: Record<string, unknown>;
  /** When it was last true (ISO UTC), or null when unknown. */
  recency: string | null;
}

export interface PackItem extends PackCandidate {
  section: PackSection;
  /** Tokens of `text` (cl100k_base, the tokenizer the hooks use). */
  token_cost: number;
}

export interface PackSubsystem {
  readonly name: PackSection;
  /** Past this many milliseconds its answer is not waited for. */
  readonly deadlineMs: number;
  /** Candidates best first; `budget` is the section's share in tokens (a hint: the packager enforces it). */
  gather(request: PackRequest, budget: number): Promise<PackCandidate[]>;
}

/** Why a subsystem contributed nothing, or why some of its items were left out. */
export type OmissionReason = 'off' | 'missing' | 'error' | 'timeout' | 'over_budget' | 'disabled';

export interface Omission {
  subsystem: PackSection;
  reason: OmissionReason;
  /** Details: the error's message, the deadline, how many items did not fit. */
  detail?: string;
}

export interface ContextPack {
  task: string;
  namespace_id: string | null;
  items: PackItem[];
  budget: number;
  used_tokens: number;
  omitted: Omission[];
}

/** A subsystem that is configured off or has nothing to read from: it is listed as omitted, and why. */
export class SubsystemUnavailable extends Error {
  constructor(
    readonly reason: 'off' | 'missing',
    message: string,
  ) {
    super(message);
  }
}
