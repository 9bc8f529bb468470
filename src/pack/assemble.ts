import { MoonError } from '../errors.js';
import type { TokenCounter } from '../text/tokens.js';
import {
  type ContextPack,
  type Omission,
  PACK_SECTIONS,
  type PackCandidate,
  type PackItem,
  type PackRequest,
  type PackSection,
  type PackSubsystem,
  SubsystemUnavailable,
} from './types.js';

/** Each section's share of the budget; what a section leaves unused flows on to the next. */
export const SECTION_SHARES: Record<PackSection, number> = { planning: 0.2, history: 0.35, long_term: 0.2, documents: 0.25 };

export interface AssembleOptions {
  budget: number;
  /** False: a subsystem that errs or is slow raises (MEMORY_FAIL_OPEN=false); off or missing still only omit. */
  failOpen: boolean;
  counter: TokenCounter;
  /** Sections listed here are not run at all and are omitted as `off` (MEMORY_PLANNING=off, …). */
  off?: ReadonlySet<PackSection>;
  /** Told of each subsystem left out, e.g. to log it. */
  onOmit?: (omission: Omission) => void;
}

/**
 * Run the subsystems side by side, each under its deadline, and package their candidates within the budget.
 * Sections are filled in the seed's order; each may spend its share plus whatever the sections before it left;
 * an item that does not fit is skipped (a smaller one after it may fit). A last pass spends what is left over on
 * items skipped earlier, in section order. The total of token costs never exceeds the budget.
 */
export async function assemblePack(request: PackRequest, subsystems: readonly PackSubsystem[], options: AssembleOptions): Promise<ContextPack> {
  const budget = Math.max(0, Math.floor(options.budget));
  const omitted: Omission[] = [];
  const omit = (omission: Omission): void => {
    omitted.push(omission);
    options.onOmit?.(omission);
  };
  const bySection = new Map<PackSection, PackSubsystem>();
  for (const subsystem of subsystems) bySection.set(subsystem.name, subsystem);

  const gathered = await Promise.all(
    PACK_SECTIONS.map(async (section): Promise<{ section: PackSection; candidates: PackCandidate[] }> => {
      const subsystem = bySection.get(section);
      if (options.off?.has(section)) {
        omit({ subsystem: section, reason: 'off', detail: 'turned off in the configuration' });
        return { section, candidates: [] };
      }
      if (!subsystem) {
        omit({ subsystem: section, reason: 'missing', detail: 'no source is available for this section' });
        return { section, candidates: [] };
      }
      try {
        const candidates = await withDeadline(subsystem.gather(request, Math.floor(budget * SECTION_SHARES[section])), subsystem.deadlineMs, section);
        return { section, candidates };
      } catch (error) {
        if (error instanceof SubsystemUnavailable || (error instanceof MoonError && error.code === 'not_found')) {
          omit({ subsystem: section, reason: error instanceof SubsystemUnavailable ? error.reason : 'missing', detail: error.message });
          return { section, candidates: [] };
        }
        const timedOut = error instanceof DeadlineExceeded;
        if (!options.failOpen) {
          throw new MoonError('io', `context pack: ${section} ${timedOut ? 'timed out' : 'failed'}: ${(error as Error).message}`, {
            hint: 'MEMORY_FAIL_OPEN=false raises; leave it unset (true) to pack without the failing part',
            cause: error,
          });
        }
        omit({ subsystem: section, reason: timedOut ? 'timeout' : 'error', detail: (error as Error).message });
        return { section, candidates: [] };
      }
    }),
  );

  const all = gathered.flatMap(({ section, candidates }) => candidates.map((candidate) => ({ section, candidate })));
  const costs = all.length > 0 ? await options.counter.count(all.map(({ candidate }) => candidate.text)) : [];
  const costed = all.map(({ section, candidate }, index) => ({ ...candidate, section, token_cost: costs[index]! }) satisfies PackItem);

  const taken = new Set<PackItem>();
  let used = 0;
  let carry = 0;
  for (const section of PACK_SECTIONS) {
    let allowance = Math.floor(budget * SECTION_SHARES[section]) + carry;
    for (const item of costed) {
      if (item.section !== section || item.token_cost > allowance) continue;
      taken.add(item);
      allowance -= item.token_cost;
      used += item.token_cost;
    }
    carry = allowance;
  }
  // Rounding down the shares and the sections' leftovers: spent on what was skipped, in order.
  for (const item of costed) {
    if (taken.has(item) || used + item.token_cost > budget) continue;
    taken.add(item);
    used += item.token_cost;
  }
  for (const section of PACK_SECTIONS) {
    const left = costed.filter((item) => item.section === section && !taken.has(item)).length;
    if (left > 0) omit({ subsystem: section, reason: 'over_budget', detail: `${left} item${left === 1 ? '' : 's'} did not fit the budget` });
  }
  return {
    task: request.task,
    namespace_id: request.namespace_id,
    items: costed.filter((item) => taken.has(item)),
    budget,
    used_tokens: used,
    // In section order whatever order the subsystems finished in (a stable sort keeps over_budget after the rest).
    omitted: omitted.sort((a, b) => PACK_SECTIONS.indexOf(a.subsystem) - PACK_SECTIONS.indexOf(b.subsystem)),
  };
}

class DeadlineExceeded extends Error {}

function withDeadline<T>(work: Promise<T>, ms: number, section: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(`${section} gave no answer within ${ms} ms`)), ms);
    timer.unref?.();
  });
  // A late answer (or a late failure) of the losing side is dropped.
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
