import { cpSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/cli.js';
import { hashTree, indexFixtureHome, makeLegacyHome, moonAt, readLedgerLines, readSessionPaths } from './homes.js';

const CODEX = '019d8a3f-5b10-7d2c-8e9f-0a1b2c3d4e5f';

/** What an earlier release left at `<dir>/home`: indexed from the fixtures, every stored path absolute. */
async function makeLegacyAt(dir: string): Promise<string> {
  const home = join(dir, 'home');
  await indexFixtureHome(home, join(dir, 'sources'));
  makeLegacyHome(home);
  return home;
}

function expectHomeRelative(home: string): void {
  const ledger = readLedgerLines(home);
  expect(ledger.length).toBe(2);
  for (const line of ledger) {
    expect(line.archive_path).toMatch(/^archives\/raw\/[a-z-]+\/[^/]+\.jsonl$/);
    expect(existsSync(join(home, String(line.archive_path)))).toBe(true);
  }
  const rows = readSessionPaths(home);
  expect(rows.length).toBe(2);
  for (const row of rows) {
    expect(row.archive_path).toMatch(/^archives\/raw\//);
    expect(row.projection_path).toMatch(/^archives\/mlib\//);
  }
  expect(JSON.parse(readFileSync(join(home, 'archives', 'layout.json'), 'utf8'))).toMatchObject({ paths_version: 1 });
}

describe('a home written with absolute paths (earlier releases)', () => {
  let scratch: ReturnType<typeof makeTempDir>;
  afterEach(() => scratch?.cleanup());

  it('is converted once on open, then verifies, moves and verifies again', async () => {
    scratch = makeTempDir('moon-legacy-');
    const home = await makeLegacyAt(scratch.path);
    // The generator wrote the old format: absolute paths into the home, no marker.
    for (const line of readLedgerLines(home)) expect(String(line.archive_path).startsWith(`${home}/`)).toBe(true);
    for (const row of readSessionPaths(home)) expect(row.projection_path?.startsWith(`${home}/`)).toBe(true);
    expect(existsSync(join(home, 'archives', 'layout.json'))).toBe(false);

    const verify = await moonAt(home, ['verify']);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expectHomeRelative(home);

    // Opening again changes nothing.
    const converted = hashTree(join(home, 'archives'));
    expect((await moonAt(home, ['verify'])).code).toBe(0);
    expect(hashTree(join(home, 'archives'))).toEqual(converted);

    const moved = join(scratch.path, 'moved-home');
    renameSync(home, moved);
    const after = await moonAt(moved, ['verify']);
    expect(after.code, after.stdout + after.stderr).toBe(0);
    const show = await moonAt(moved, ['show', '--json', CODEX]);
    expect(show.code, show.stderr).toBe(0);
    expect((JSON.parse(show.stdout) as { session: { projection_path: string } }).session.projection_path).toBe(join(moved, 'archives', 'mlib', `${CODEX}.md`));
  });

  it('an old home moved before its first open: paths into the old place are made relative to the new one', async () => {
    scratch = makeTempDir('moon-legacy-');
    const home = await makeLegacyAt(scratch.path);
    const moved = join(scratch.path, 'elsewhere', 'home');
    mkdirSync(join(scratch.path, 'elsewhere'));
    renameSync(home, moved);

    const verify = await moonAt(moved, ['verify']);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expectHomeRelative(moved);
    const recall = await moonAt(moved, ['recall', '--json', 'retry']);
    const matches = (JSON.parse(recall.stdout) as { matches: { archive_path: string }[] }).matches;
    expect(matches.length).toBeGreaterThan(0);
    for (const match of matches) expect(match.archive_path.startsWith(`${moved}/`)).toBe(true);
  });

  it('an old home copied with cp -r: the copy converts to its own files, and its forget leaves the original byte-identical', async () => {
    scratch = makeTempDir('moon-legacy-');
    const original = await makeLegacyAt(scratch.path);
    const copy = join(scratch.path, 'copy');
    cpSync(original, copy, { recursive: true });
    // The copy's ledger and index name the original's files, which exist.
    const before = hashTree(original);

    const forget = await moonAt(copy, ['forget', '--json', CODEX]);
    expect(forget.code, forget.stderr).toBe(0);
    const report = JSON.parse(forget.stdout) as { removed_files: string[]; skipped_files: unknown[] };
    expect(report.removed_files.sort()).toEqual(
      [join(copy, 'archives', 'raw', 'codex', `${CODEX}.jsonl`), join(copy, 'archives', 'mlib', `${CODEX}.md`)].sort(),
    );
    expect(report.skipped_files).toEqual([]);
    expect(hashTree(original)).toEqual(before);
    expect(existsSync(join(original, 'archives', 'raw', 'codex', `${CODEX}.jsonl`))).toBe(true);
  });

  it('two processes opening an old home at once convert it once', async () => {
    scratch = makeTempDir('moon-legacy-');
    const home = await makeLegacyAt(scratch.path);
    const runs = await Promise.all([moonAt(home, ['verify']), moonAt(home, ['verify']), moonAt(home, ['sessions'])]);
    for (const run of runs) expect(run.code, run.stdout + run.stderr).toBe(0);
    expectHomeRelative(home);
    expect(existsSync(join(home, 'archives', 'layout.lock'))).toBe(false);
  });
});
