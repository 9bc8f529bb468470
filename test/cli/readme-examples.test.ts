import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { REPO, makeTempDir, runMoon } from '../helpers/cli.js';

/**
 * The README's examples, run exactly as written on the bundled examples and with today's clock (no --now):
 * each must find the session it promises. A new example in the README fails here until it has an expectation.
 */
const EXPECTED: Record<string, { session: string; window?: 'inside' | 'outside'; says?: string }> = {
  '"what happened at 05:39 AEDT"': { session: '5f3c2a1e', window: 'inside' },
  '"why did the build fail"': { session: '5f3c2a1e', says: 'TS2339' },
  '"stripe webhook 401 early in the session"': { session: 'a7d41c09', window: 'inside' },
  '"postgres backup in January 2026"': { session: '3e8f1a2b', window: 'inside' },
  'setSystemTime --tool apply_patch': { session: '019c8b2e' },
  '"deploy last Saturday morning"': { session: '5f3c2a1e' },
};

let home: string;
let cleanup: () => void;

beforeAll(async () => {
  const temp = makeTempDir('moon-readme-');
  home = join(temp.path, 'home');
  cleanup = temp.cleanup;
  const run = await runMoon(['index', join(REPO, 'examples')], { MOON_HOME: home });
  expect(run.code, run.stderr).toBe(0);
});
afterAll(() => cleanup());

/** `./bin/moon.js recall ARGS   # comment` lines of the README (or `npx moon`, `moon`), ARGS as written. */
function listReadmeRecalls(): string[] {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  return [...readme.matchAll(/^(?:npx moon|\.\/bin\/moon\.js|moon) recall (.+?)(?:\s{2,}#.*)?$/gm)].map((match) => match[1]!.trim());
}

/** Each README example's comment: what it promises to show. */
function commentOf(example: string): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const line = readme.split('\n').find((text) => text.includes(`recall ${example}`) && text.includes('#'));
  return line?.split('#').slice(1).join('#') ?? '';
}

/** Split shell words: double-quoted strings stay whole. */
function splitArgs(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]!);
}

describe('README examples', () => {
  test('every recall example in the README has an expectation here', () => {
    const examples = listReadmeRecalls();
    expect(examples.length).toBeGreaterThanOrEqual(5);
    expect(examples.filter((example) => !(example in EXPECTED))).toEqual([]);
  });

  test.each(Object.entries(EXPECTED))('moon recall %s', async (example, expected) => {
    expect(listReadmeRecalls()).toContain(example);
    const run = await runMoon(['recall', ...splitArgs(example), '--json'], { MOON_HOME: home });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as RecallResult;
    const first = result.matches[0];
    expect(first?.metadata.session_id.startsWith(expected.session)).toBe(true);
    if (expected.window) expect(first?.metadata.time_window).toBe(expected.window);
    if (expected.says !== undefined) {
      // What the comment promises is what a person running the line as written sees.
      expect(commentOf(example)).toContain(expected.says);
      const shown = await runMoon(['recall', ...splitArgs(example)], { MOON_HOME: home });
      expect(shown.stdout).toContain(expected.says);
    }
  });
});
