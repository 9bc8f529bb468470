import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Says which PostgreSQL the PostgreSQL cases run on (and fails at once when MOON_TEST_POSTGRES=server finds none).
    globalSetup: ['test/global-setup.ts'],
    // CI also writes a machine-readable report; .ci/run prints its "N passed, N failed" line from it.
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: process.env.CI ? { json: 'test-results.json' } : undefined,
  },
});
