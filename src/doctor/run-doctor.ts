import { type CheckResult, runChecks } from './checks.js';
import { type GatherDeps, gatherFacts } from './facts.js';

export interface DoctorReport {
  /** No check failed (warnings allowed): `moon doctor` exits 0. */
  ok: boolean;
  checks: CheckResult[];
  problems: number;
  warnings: number;
}

/** Gather the facts, run every check over them. */
export async function runDoctor(deps: GatherDeps): Promise<DoctorReport> {
  const checks = runChecks(await gatherFacts(deps));
  const problems = checks.filter((check) => check.status === 'fail').length;
  return { ok: problems === 0, checks, problems, warnings: checks.filter((check) => check.status === 'warn').length };
}
