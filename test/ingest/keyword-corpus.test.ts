import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { makeTempDir, runMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

let root: string;
let cleanup: () => void;

beforeEach(() => {
  const temp = makeTempDir('moon-corpus-');
  root = temp.path;
  cleanup = temp.cleanup;
});
afterEach(() => cleanup());

function writeSession(dir: string, id: string, texts: string[]): void {
  mkdirSync(dir, { recursive: true });
  const turns = texts.map((text, index) => ({
    role: (index % 2 === 0 ? 'user' : 'assistant') as 'user' | 'assistant',
    at: new Date(Date.parse('2026-01-05T10:00:00Z') + index * 60_000).toISOString(),
    id: `${id}-${index + 1}`,
    text,
  }));
  writeFileSync(join(dir, `${id}.jsonl`), claudeSession({ sessionId: id, cwd: '/home/dev/shop', turns }));
}

function readKeywords(home: string, id: string): string[] {
  const projection = readFileSync(join(home, 'archives', 'mlib', `${id}.md`), 'utf8');
  const line = projection.split('\n').find((row) => row.startsWith('keywords: '))!;
  return JSON.parse(line.slice('keywords: '.length)) as string[];
}

const FOCUS = [
  'Deploy the shop again, the deploy from yesterday broke checkout',
  'The deploy failed because kubernetes rejected the manifest',
  'Fix the kubernetes manifest and deploy once more',
  'Deploy done; kubernetes now runs three replicas',
];

test('keywords rank what is distinctive for a session above what every session says', async () => {
  // Alone, "deploy" (every message) outranks "kubernetes" (three of four).
  const alone = join(root, 'alone');
  writeSession(join(root, 'one'), 'focus', FOCUS);
  expect((await runMoon(['index', join(root, 'one')], { MOON_HOME: alone })).code).toBe(0);
  const solo = readKeywords(alone, 'focus');
  expect(solo.indexOf('deploy')).toBeLessThan(solo.indexOf('kubernetes'));

  // Beside sessions that all deploy too, "kubernetes" is what sets this one apart.
  const shared = join(root, 'shared');
  const corpus = join(root, 'many');
  for (const id of ['a', 'b', 'c', 'd']) {
    writeSession(corpus, `other-${id}`, ['Deploy the docs site', 'Deploy finished, the docs deploy is live']);
  }
  writeSession(corpus, 'zz-focus', FOCUS);
  expect((await runMoon(['index', corpus], { MOON_HOME: shared })).code).toBe(0);
  const ranked = readKeywords(shared, 'zz-focus');
  expect(ranked.indexOf('kubernetes')).toBeGreaterThanOrEqual(0);
  expect(ranked.indexOf('kubernetes')).toBeLessThan(ranked.indexOf('deploy'));
});
