import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { REPO, makeTempDir, runMoon } from '../helpers/cli.js';

/**
 * Seed 000 §1 problem 4: provider wrappers and JSON escapes must never reach what a person or an agent reads.
 * Every golden projection, every text the index holds and the recall snippets of every fixture (all formats, and
 * the bundled examples) are scanned for the wrappers adapters unwrap and for escape noise. A `\n` written
 * literally is allowed only where the transcript's own decoded text has it (source code such as
 * `join("\n")`), never where it is an artefact of JSON encoding.
 */
const FIXTURES = join(REPO, 'test', 'fixtures');
const GOLDEN = join(FIXTURES, 'golden', 'projections');
const WRAPPERS = [
  /\{"output":/,
  /"metadata":\{"exit_code"/,
  /"duration_seconds"/,
  /^\{"success":/m,
  /Chunk ID: /,
  /Process running with session ID/,
  // A tool result that is a bare JSON document reads as `key: value` lines instead.
  /→ \[?\{"/,
];

function listTranscripts(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'golden' ? [] : listTranscripts(path);
    return entry.isFile() && entry.name.endsWith('.jsonl') ? [path] : [];
  });
}

/** Every string value of every record, decoded once: the text as the agent and the user saw it. */
function readDecodedText(paths: readonly string[]): string {
  const parts: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') parts.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
  };
  for (const path of paths) {
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      try {
        collect(JSON.parse(line));
      } catch {
        // malformed lines are part of some fixtures
      }
    }
  }
  return parts.join('\n');
}

/** Problems in one text: wrappers, double escapes, and literal `\n` that the decoded source does not have. */
function findNoise(text: string, decoded: string): string[] {
  const found = WRAPPERS.filter((pattern) => pattern.test(text)).map((pattern) => `wrapper ${pattern.source}`);
  if (text.includes('\\\\"') || text.includes('\\\\n')) found.push('double escape');
  for (let index = text.indexOf('\\n'); index >= 0; index = text.indexOf('\\n', index + 2)) {
    // The word holding it, as written: code keeps its `\n` (flattening only changes whitespace around words),
    // an encoding artefact has no twin in the decoded source.
    let start = index;
    while (start > 0 && !/\s/.test(text[start - 1]!)) start -= 1;
    let end = index + 2;
    while (end < text.length && !/\s/.test(text[end]!)) end += 1;
    const word = text.slice(start, end).replace(/…$/, '');
    if (!decoded.includes(word)) found.push(`literal \\n in "${word}"`);
  }
  return found;
}

const transcripts = [...listTranscripts(FIXTURES), ...listTranscripts(join(REPO, 'examples'))].sort();
const decoded = readDecodedText(transcripts);
let home: string;
let cleanup: () => void;

beforeAll(async () => {
  const temp = makeTempDir('moon-noise-');
  home = join(temp.path, 'home');
  cleanup = temp.cleanup;
  const run = await runMoon(['index', ...transcripts.map((path) => relative(REPO, path)), '--json'], { MOON_HOME: home });
  expect([0, 1]).toContain(run.code); // the malformed-line fixtures make it report warnings, never lose the rest
});
afterAll(() => cleanup());

describe('no wire noise reaches a reader', () => {
  test.each(readdirSync(GOLDEN).filter((name) => name.endsWith('.md')))('golden projection %s', (name) => {
    expect(findNoise(readFileSync(join(GOLDEN, name), 'utf8'), decoded)).toEqual([]);
  });

  test('every indexed text and result', () => {
    const db = new Database(join(home, 'moon.db'), { readonly: true });
    const rows = db.prepare('SELECT session_id, id, text, result FROM entries').all() as { session_id: string; id: string; text: string; result: string | null }[];
    db.close();
    expect(rows.length).toBeGreaterThan(500);
    const noisy = rows.flatMap((row) =>
      [...findNoise(row.text, decoded), ...findNoise(`→ ${row.result ?? ''}`, decoded)].map((problem) => `${row.session_id}/${row.id}: ${problem}`),
    );
    expect(noisy).toEqual([]);
  });

  test('recall snippets', async () => {
    for (const query of ['vitest run invoice', 'npm test', 'apply_patch', 'wrangler deploy', 'git commit']) {
      const run = await runMoon(['recall', query, '--json', '--limit', '10'], { MOON_HOME: home });
      const result = JSON.parse(run.stdout) as RecallResult;
      for (const match of result.matches) expect(findNoise(match.snippet, decoded), `${query}: ${match.snippet}`).toEqual([]);
    }
  });
});
