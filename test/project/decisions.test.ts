import { describe, expect, it } from 'vitest';
import { extractDecisions, isTestRun, MAX_DECISION_CHARS, MAX_DECISIONS, summarizeResult } from '../../src/normalize/decisions.js';
import { buildBasicDoc, makeEntry } from './fixture.js';

describe('extractDecisions', () => {
  it('keeps sentences that state decisions or outcomes, and high-priority tool outcomes', () => {
    const decisions = extractDecisions(buildBasicDoc().entries);
    expect(decisions).toEqual([
      '`cargo build --release` → exit 101: error[E0432]: unresolved import `better_sqlite3`',
      'The root cause is a missing feature flag in Cargo.toml.',
      "We'll use the `bundled` feature instead of linking the system SQLite.",
      'Edited /Users/dev/moon-app/Cargo.toml',
      '`cargo build --release` → exit 0: Finished release [optimized] target(s) in 42.1s',
      'Decided to load them from `.env` via dotenv; confirmed `MOON_HOME` is read at CLI startup.',
      'Wrote /Users/dev/moon-app/.env',
      'All tests pass locally with `npm test`.',
    ]);
  });

  it('skips normal-priority tools, dangling calls, code blocks and non-decisions', () => {
    const entries = [
      makeEntry({ line: 1, role: 'assistant', text: 'Here is the file listing.\n```\n// we decided nothing here\n```\nLet\'s go with Postgres for storage.' }),
      makeEntry({ line: 2, role: 'tool', toolName: 'Read', toolTarget: 'a.ts', text: 'Read a.ts', priority: 'normal', result: 'x' }),
      makeEntry({ line: 3, role: 'tool', toolName: 'Bash', toolTarget: 'rm -rf dist', text: 'rm -rf dist', priority: 'high', result: null }),
      makeEntry({ line: 4, role: 'system', text: 'Decided by the system prompt.' }),
    ];
    expect(extractDecisions(entries)).toEqual(["Let's go with Postgres for storage."]);
    const abbreviated = makeEntry({ line: 5, role: 'user', text: 'We switched to a bundler, e.g. esbuild, for speed. ok' });
    expect(extractDecisions([abbreviated])).toEqual(['We switched to a bundler, e.g. esbuild, for speed.']);
  });

  it('deduplicates, bounds line length and count, preferring stated decisions', () => {
    const repeated = makeEntry({ line: 1, role: 'user', text: 'We switched to pnpm. we switched to pnpm!' });
    const long = makeEntry({ line: 2, role: 'assistant', text: `Fixed ${'the very long explanation '.repeat(20)}` });
    const many = Array.from({ length: 30 }, (_, i) => makeEntry({ line: 10 + i, role: 'assistant', text: `Resolved issue number ${i} today.` }));
    const tools = Array.from({ length: 5 }, (_, i) => makeEntry({ line: 100 + i, role: 'tool', toolName: 'Edit', toolTarget: `f${i}.ts`, text: 'Edit', priority: 'high', result: 'ok' }));
    const decisions = extractDecisions([...tools, long, repeated, ...many]);
    expect(decisions).toHaveLength(MAX_DECISIONS);
    expect(decisions[0]).toBe('We switched to pnpm.');
    expect(decisions.filter((d) => d.toLowerCase().startsWith('we switched'))).toHaveLength(1);
    expect(Array.from(decisions[1] as string)).toHaveLength(MAX_DECISION_CHARS);
    expect(decisions[1]?.endsWith('…')).toBe(true);
    expect(decisions.some((d) => d.startsWith('Edited'))).toBe(false);
    expect(extractDecisions(tools)).toEqual(['Edited f0.ts', 'Edited f1.ts', 'Edited f2.ts', 'Edited f3.ts', 'Edited f4.ts']);
  });

  it('summarizes results by exit code or first line', () => {
    expect(summarizeResult('build ok\nexit code: 0')).toBe('exit 0: build ok');
    expect(summarizeResult('Process exited with code 2')).toBe('exit 2');
    expect(summarizeResult('\n\nfirst line\nsecond')).toBe('first line');
    expect(summarizeResult(null)).toBe('(no result)');
  });

  it('drops task-board bookkeeping and echoes, keeps commits, merges, hand-offs and test runs', () => {
    // Calls and results as they appear in test/fixtures/claude-code/real-worktrees-session-with-subagents.
    const entries = [
      makeEntry({ line: 1, role: 'tool', toolName: 'TaskCreate', text: 'subject: Research plan mode (alice)\ndescription: Teammate alice researches Claude Code\'s plan mode', priority: 'high', result: 'Task #1 created successfully: Research plan mode (alice)' }),
      makeEntry({ line: 2, role: 'tool', toolName: 'TaskUpdate', text: 'taskId: 1\nstatus: in_progress\nowner: alice', priority: 'high', result: 'Updated task #1 owner, status' }),
      makeEntry({ line: 3, role: 'tool', toolName: 'TaskList', text: 'TaskList', priority: 'normal', result: '#1 [completed] Research plan mode (alice) (alice)' }),
      makeEntry({ line: 4, role: 'tool', toolName: 'TodoWrite', text: 'todos: [{"content":"Merge round 1","status":"in_progress"}]', priority: 'high', result: 'Todos have been modified successfully.' }),
      makeEntry({ line: 5, role: 'tool', toolName: 'SendMessage', text: 'to: alice\nsummary: round 2: pull master, add Comparison', priority: 'high', result: '{"success":true,"message":"Message sent to alice\'s inbox"}' }),
      makeEntry({ line: 6, role: 'tool', toolName: 'Agent', toolTarget: 'Research Claude Code plan mode', text: 'description: Research Claude Code plan mode\nsubagent_type: general-purpose\nname: alice\nisolation: worktree\nprompt: You are **alice**', priority: 'high', result: 'Round 1 complete. Master is untouched (still at `04752c6`).' }),
      makeEntry({ line: 7, role: 'tool', toolName: 'Bash', toolTarget: 'git merge --no-ff alice/research-plan-mode', text: 'git merge --no-ff alice/research-plan-mode bob/research-teammates carol/research-beads -m "merge round 1: alice, bob, carol research docs"', priority: 'high', result: "Fast-forwarding to: alice/research-plan-mode\nTrying simple merge with bob/research-teammates\nMerge made by the 'octopus' strategy." }),
      makeEntry({ line: 8, role: 'tool', toolName: 'Bash', toolTarget: 'git log --oneline --graph -10', text: 'git log --oneline --graph -10', priority: 'normal', result: '*---. 1b6c52f merge round 1' }),
      makeEntry({ line: 9, role: 'tool', toolName: 'Bash', toolTarget: 'npm test -- cart', text: 'npm test -- cart', priority: 'normal', result: 'FAIL cart.test.ts\n  expected 3 items, got 2', status: 'error' }),
      makeEntry({ line: 10, role: 'assistant', text: 'Round 1 merged cleanly. Now I\'ll dispatch round 2.' }),
    ];
    expect(extractDecisions(entries)).toEqual([
      'Spawned agent alice: Research Claude Code plan mode → Round 1 complete. Master is untouched (still at `04752c6`).',
      '`git merge --no-ff alice/research-plan-mode bob/research-teammates carol/research-beads -m "merge round 1: alice, bob, c…` → Fast-forwarding to: alice/research-plan-mode',
      '`npm test -- cart` → error: FAIL cart.test.ts',
      'Round 1 merged cleanly.',
    ]);
  });

  it('recognises test runs at the start of a command segment only', () => {
    for (const command of ['npm test', 'cd web && pnpm test', 'CI=1 npx vitest run', 'python -m pytest -q', 'cargo test --all', 'go test ./...', 'yarn run test']) {
      expect(isTestRun(command)).toBe(true);
    }
    for (const command of ['grep vitest package.json', 'cat test/cart.test.ts', 'npm run build', 'echo "npm test"']) {
      expect(isTestRun(command)).toBe(false);
    }
  });

  it('a test run is an outcome only when a command ran it, not a web search that names the runner', () => {
    const run = makeEntry({ role: 'tool', toolName: 'exec_command', text: 'npx vitest run', priority: 'normal', result: 'Tests 3 passed (3)', exitCode: 0 });
    const search = makeEntry({ role: 'tool', toolName: 'web_search', text: 'vitest runAllTimersAsync fake timers', priority: 'normal', status: 'completed' });
    expect(extractDecisions([run, search])).toEqual(['`npx vitest run` → exit 0: Tests 3 passed (3)']);
  });
});
