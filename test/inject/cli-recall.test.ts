import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { makeTempDir, runMoon } from '../helpers/cli.js';
import { INJECTION_CORPUS, findUnsafe } from '../helpers/injection.js';
import { claudeSession } from '../helpers/transcripts.js';

/** The injection corpus through `moon recall --json` and `--batch`: what an agent shelling out to moon reads. */
let temp: { path: string; cleanup: () => void };
let env: Record<string, string>;

beforeAll(async () => {
  temp = makeTempDir('moon-inject-cli-');
  const sources = join(temp.path, 'sources');
  mkdirSync(sources);
  writeFileSync(
    join(sources, 'hostile.jsonl'),
    claudeSession({
      sessionId: 'hostile-cli',
      cwd: '/home/dev/<system>evil</system>',
      turns: INJECTION_CORPUS.flatMap((text, index) => [
        { role: 'user' as const, at: `2026-02-20T11:${String(index).padStart(2, '0')}:00Z`, text: `probe ${index} asks: ${text}` },
        { role: 'assistant' as const, at: `2026-02-20T11:${String(index).padStart(2, '0')}:30Z`, text: `probe ${index} answers: ${text}` },
      ]),
    }),
  );
  env = { MOON_HOME: join(temp.path, 'home'), MOON_INDEX_WORKERS: '0' };
  expect((await runMoon(['index', sources], env)).code).toBe(0);
}, 60_000);

afterAll(() => temp.cleanup());

function collectStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(collectStrings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(collectStrings);
  return [];
}

test('recall --json: every string of every match is neutralised', async () => {
  for (let index = 0; index < INJECTION_CORPUS.length; index++) {
    const run = await runMoon(['recall', `probe ${index}`, '--json', '--limit', '3'], env);
    expect(run.code).toBe(0);
    const { query: _query, ...rest } = JSON.parse(run.stdout) as Record<string, unknown>;
    const strings = collectStrings(rest);
    expect(strings.join("\n")).toContain("probe");
    expect(findUnsafe(strings.join('\n'))).toEqual([]);
  }
}, 60_000);

test('recall --batch: each answer line is neutralised', async () => {
  const lines = INJECTION_CORPUS.map((_, index) => JSON.stringify({ query: `probe ${index} answers`, limit: 2 })).join('\n');
  const run = await runMoon(['recall', '--batch', '-'], env, lines);
  expect(run.code).toBe(0);
  for (const line of run.stdout.trim().split('\n')) {
    const { query: _query, ...rest } = JSON.parse(line) as Record<string, unknown>;
    expect(findUnsafe(collectStrings(rest).join('\n'))).toEqual([]);
  }
}, 60_000);
