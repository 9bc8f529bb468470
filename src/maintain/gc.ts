import type { StoreEngine } from '../store/ports.js';

/**
 * `moon gc`: removes what has expired (`expires_at` passed), one purge step per memory plane. Other planes
 * (run digests, fix patterns, documents) add their step to GC_STEPS.
 */
export interface GcStep {
  /** The record kind it purges, as the report names it. */
  readonly name: string;
  purge(engine: StoreEngine, nowMs: number): Promise<number>;
}

export interface GcReport {
  steps: { name: string; purged: number }[];
  purged: number;
}

export const GC_STEPS: readonly GcStep[] = [
  { name: 'long_term', purge: (engine, nowMs) => engine.memories.purgeExpired(nowMs) },
  { name: 'run_digest', purge: (engine, nowMs) => engine.digests.remove({ expiredAtMs: nowMs }) },
];

export async function runGc(engine: StoreEngine, nowMs: number, steps: readonly GcStep[] = GC_STEPS): Promise<GcReport> {
  const report: GcReport = { steps: [], purged: 0 };
  for (const step of steps) {
    const purged = await step.purge(engine, nowMs);
    report.steps.push({ name: step.name, purged });
    report.purged += purged;
  }
  return report;
}
