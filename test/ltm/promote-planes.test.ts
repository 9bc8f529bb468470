import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Moon, createMoon } from '../../src/moon.js';
import { makeTempDir } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

/** Promotion from the other planes: a fix that worked in two runs, and a gotcha two digests share, become drafts. */
const cwd = '/home/dev/shop';

function run(sessionId: string, day: string): string {
  return claudeSession({
    sessionId,
    cwd,
    turns: [
      { role: 'user', at: `${day}T10:00:00Z`, text: 'The cart totals test fails again. Please fix it.' },
      { role: 'assistant', at: `${day}T10:00:05Z`, tool: { name: 'Bash', input: { command: 'npm test' }, result: "Exit code 1\nTypeError: Cannot read properties of undefined (reading 'map')" } },
      { role: 'assistant', at: `${day}T10:01:00Z`, tool: { name: 'Edit', input: { file_path: `${cwd}/src/cart.ts`, old_string: 'items', new_string: 'items = []' }, result: 'updated' } },
      { role: 'assistant', at: `${day}T10:02:00Z`, tool: { name: 'Bash', input: { command: 'npm test' }, result: ' Tests 12 passed (12)' } },
      { role: 'assistant', at: `${day}T10:03:00Z`, text: 'Fixed: the cart totals test passes.' },
    ],
  })
    .split('\n')
    .map((line) => (line.includes('Exit code 1') ? line.replace('"type":"tool_result"', '"type":"tool_result","is_error":true') : line))
    .join('\n');
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

test('propose drafts a fix that worked twice and a gotcha two runs hit, with provenance; nothing is approved', async () => {
  const dir = makeTempDir('moon-promote-');
  const sources = join(dir.path, 'sources');
  mkdirSync(sources);
  writeFileSync(join(sources, 'run-1.jsonl'), run('run-1', '2026-03-01'));
  writeFileSync(join(sources, 'run-2.jsonl'), run('run-2', '2026-03-05'));
  const env = { MOON_RESIDENTIAL_TIMEZONE: 'UTC', MOON_INDEX_WORKERS: '0' };
  const moon: Moon = createMoon(loadConfig({ home: join(dir.path, 'home'), env }), () => Date.parse('2026-03-06T00:00:00Z'), { env });
  cleanups.push(async () => {
    await moon.close();
    dir.cleanup();
  });
  await moon.history.index({ roots: [sources] });
  await moon.memory.digestSession({ all: true });
  const memory = await moon.memory.longTerm();
  await memory.propose({ cwd });
  const drafts = await memory.list({ cwd, states: ['draft'] });
  const fix = drafts.find((entry) => entry.provenance.some((item) => item.source.startsWith('promoted:fix_pattern:')));
  expect(fix?.text).toMatch(/`npm test` fails with `TypeError: Cannot read properties of undefined \(reading 'map'\)`.*worked 2 times changed \/home\/dev\/shop\/src\/cart\.ts/);
  expect(fix?.provenance[0]?.session_ids).toEqual(['run-1', 'run-2']);
  const gotcha = drafts.find((entry) => entry.provenance.some((item) => item.source === 'promoted:digest_gotcha'));
  expect(gotcha?.provenance[0]?.session_ids).toEqual(['run-1', 'run-2']);
  expect(await memory.list({ cwd, states: ['approved'] })).toEqual([]);
}, 60_000);
