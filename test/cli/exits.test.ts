import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';

let root: string;
let home: string;
let cleanup: () => void;

beforeEach(() => {
  const temp = makeTempDir('moon-exits-');
  root = temp.path;
  cleanup = temp.cleanup;
  home = join(root, 'home');
});
afterEach(() => cleanup());

const FIXTURE = join(REPO, 'test', 'fixtures', 'claude-code', 'synthetic-streaming-split-text.jsonl');

describe('exit codes', () => {
  test('moon index on a path that does not exist exits 2 and names the path', async () => {
    const missing = join(root, 'nonexistent');
    const run = await spawnMoon(['index', missing], { MOON_HOME: home });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(missing);
    expect(run.stdout).toBe('');
  });

  test('an empty .jsonl is nothing to index yet, then indexed once it has content', async () => {
    const corpus = join(root, 'corpus');
    mkdirSync(corpus);
    const file = join(corpus, 'new-session.jsonl');
    writeFileSync(file, '');
    const empty = await spawnMoon(['index', corpus, '--json'], { MOON_HOME: home });
    expect(empty.code, empty.stderr).toBe(0);
    expect(JSON.parse(empty.stdout)).toMatchObject({ files: 1, empty: 1, failed: 0, indexed: 0 });
    const text = await spawnMoon(['index', corpus], { MOON_HOME: home });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('empty 1 (nothing to index yet)');

    appendFileSync(file, readFileSync(FIXTURE));
    const filled = await spawnMoon(['index', corpus, '--json'], { MOON_HOME: home });
    expect(filled.code, filled.stderr).toBe(0);
    expect(JSON.parse(filled.stdout)).toMatchObject({ files: 1, empty: 0, indexed: 1, failed: 0 });
  });

  test('--version prints the package version', async () => {
    const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    const run = await spawnMoon(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(manifest.version);
  });
});

describe('moon recall --batch', () => {
  test('writes exactly one line per input line; blank and bad lines get a JSON error object', async () => {
    const indexed = await spawnMoon(['index', FIXTURE], { MOON_HOME: home });
    expect(indexed.code, indexed.stderr).toBe(0);
    const batch = join(root, 'queries.jsonl');
    const input = ['{"query": "cart tests"}', '', '{not json', '   ', '{"query": "quantity", "limit": 1}'];
    writeFileSync(batch, `${input.join('\n')}\n`);
    const run = await spawnMoon(['recall', '--batch', batch], { MOON_HOME: home });
    expect(run.code).toBe(2);
    const lines = run.stdout.split('\n').filter((line, index, all) => index < all.length - 1 || line !== '');
    expect(lines).toHaveLength(input.length);
    const parsed = lines.map((line) => JSON.parse(line) as { query: string; error?: string; matches: unknown[] });
    expect(parsed.map((result) => (result.error ? 'error' : 'ok'))).toEqual(['ok', 'error', 'error', 'error', 'ok']);
    expect(parsed[1]!.error).toContain(`${batch}:2`);
    expect(parsed[2]!.error).toContain(`${batch}:3`);
    expect(parsed[4]!.query).toBe('quantity');
    expect(run.stderr).toContain(`${batch}:4`);
  });
});
