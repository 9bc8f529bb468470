/**
 * Budget of a property test: `numRuns` inputs (HOSTILE_RUNS overrides), stopped after a time limit (HOSTILE_MS)
 * so a slow machine still finishes. `npm run test:soak` raises both to hunt for rare counterexamples; every one
 * found is kept as a fixed case in counterexamples.test.ts.
 */
export function propertyRuns(defaultRuns: number, defaultMs: number): { numRuns: number; interruptAfterTimeLimit: number } {
  return {
    numRuns: Number(process.env.HOSTILE_RUNS ?? defaultRuns),
    interruptAfterTimeLimit: Number(process.env.HOSTILE_MS ?? defaultMs),
  };
}
