import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Moon, createMoon } from '../../src/moon.js';
import { scopeRecallOptions } from '../../src/search/scope.js';
import { makeTempDir } from '../helpers/cli.js';
import { type TestPostgres, startTestPostgres } from '../helpers/postgres.js';
import { claudeSession } from '../helpers/transcripts.js';

/**
 * Seed 003 isolation, every output path at once: two projects with look-alike runs (the same failing test, the
 * same fix, the same kind of memory), each carrying a word of its own. Whatever project B asks — recall scoped
 * to its folder, digests, fix patterns, long-term memory, the context pack — nothing of A appears. Both engines.
 */
const A = { cwd: '/home/dev/shop', session: 'shop-a', word: 'zebrafish' };
const B = { cwd: '/home/dev/shop2', session: 'shop-b', word: 'dolphin' };
const NOW = Date.parse('2026-03-02T00:00:00Z');

function run(project: typeof A): string {
  return claudeSession({
    sessionId: project.session,
    cwd: project.cwd,
    turns: [
      { role: 'user', at: '2026-03-01T10:00:00Z', text: `The cart totals test fails for the ${project.word} checkout. Please fix it.` },
      {
        role: 'assistant',
        at: '2026-03-01T10:00:05Z',
        tool: { name: 'Bash', input: { command: 'npm test' }, result: "Exit code 1\n FAIL test/cart.test.ts\nTypeError: Cannot read properties of undefined (reading 'map')" },
      },
      {
        role: 'assistant',
        at: '2026-03-01T10:01:00Z',
        text: `I decided to default items to an empty array for the ${project.word} cart.`,
        tool: { name: 'Edit', input: { file_path: `${project.cwd}/src/cart.ts`, old_string: 'items', new_string: 'items = []' }, result: 'updated' },
      },
      { role: 'assistant', at: '2026-03-01T10:02:00Z', tool: { name: 'Bash', input: { command: 'npm test' }, result: ' Tests 12 passed (12)' } },
      { role: 'assistant', at: '2026-03-01T10:03:00Z', text: `Fixed the ${project.word} cart totals: the test passes.` },
    ],
  })
    .split('\n')
    .map((line) => (line.includes('Exit code 1') ? line.replace('"type":"tool_result"', '"type":"tool_result","is_error":true') : line))
    .join('\n');
}

let postgres: Promise<TestPostgres> | null = null;
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await (await postgres?.catch(() => null))?.stop();
});

async function open(engine: 'sqlite' | 'postgres'): Promise<Moon> {
  const dir = makeTempDir('moon-isolation-');
  const sources = join(dir.path, 'sources');
  mkdirSync(sources);
  for (const project of [A, B]) writeFileSync(join(sources, `${project.session}.jsonl`), run(project));
  const env: Record<string, string> = { MOON_RESIDENTIAL_TIMEZONE: 'UTC', MOON_INDEX_WORKERS: '0' };
  if (engine === 'postgres') {
    postgres ??= startTestPostgres();
    env.MOON_DATABASE_URL = await (await postgres).createDatabase(`moon_isolation_${process.pid}`);
  }
  const moon = createMoon(loadConfig({ home: join(dir.path, 'home'), env }), () => NOW, { env });
  cleanups.push(async () => {
    await moon.close();
    dir.cleanup();
  });
  await moon.history.index({ roots: [sources] });
  await moon.memory.digestSession({ all: true });
  const memory = await moon.memory.longTerm();
  for (const project of [A, B]) {
    const added = await memory.add({ text: `Cart items default to an empty array in the ${project.word} checkout`, cwd: project.cwd });
    await memory.setState({ id: added.memory.id, state: 'approved', cwd: project.cwd });
  }
  return moon;
}

describe.each(['sqlite', 'postgres'] as const)('%s', (engine) => {
  test("nothing of project A in any output for project B", async () => {
    const moon = await open(engine);
    const namespace = `path:${B.cwd}`;
    const outputs: Record<string, unknown> = {};
    const scope = await moon.history.resolveScope({ cwd: B.cwd });
    const scoped = scopeRecallOptions({ query: 'cart totals test fails empty array' }, scope);
    outputs.recall = scoped ? await moon.history.recall(scoped) : null;
    // The library's own entry point answers the same.
    if (scoped) expect(await moon.recall(scoped)).toEqual(outputs.recall);
    outputs.digests = await moon.memory.searchDigests({ query: 'cart totals test', namespace });
    outputs.digestList = await moon.memory.listDigests({ namespace });
    outputs.fixes = await moon.memory.fixes({ query: "TypeError: Cannot read properties of undefined (reading 'map')", namespace });
    outputs.decisions = await moon.memory.decisions({ query: 'empty array', namespace });
    const memory = await moon.memory.longTerm();
    outputs.memories = await memory.list({ cwd: B.cwd });
    outputs.memorySearch = await memory.search({ query: 'empty array', cwd: B.cwd });
    outputs.sessionStartPack = await moon.memory.contextPack({ task: 'default items to an empty array in the cart', cwd: B.cwd, budget: 4000, recall: false });
    outputs.pack = await moon.memory.contextPack({ task: 'fix the cart totals test', error: "TypeError: Cannot read properties of undefined (reading 'map')", cwd: B.cwd, budget: 4000 });
    for (const [path, output] of Object.entries(outputs)) {
      const text = JSON.stringify(output);
      // B's own work is there (its word, or its session as evidence)…
      expect(text.includes(B.word) || text.includes(B.session), path).toBe(true);
      // …and not a trace of A's.
      expect(text, path).not.toContain(A.word);
      expect(text, path).not.toContain(A.session);
    }
  }, 120_000);
});
