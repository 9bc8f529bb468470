import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/cli.js';
import { hashTree, indexFixtureHome, moonAt, readLedgerLines, readSessionPaths } from './homes.js';

const CODEX = '019d8a3f-5b10-7d2c-8e9f-0a1b2c3d4e5f';
const CLAUDE = 'old-titles-1';

/** Files a session has in a home: its raw copy and its projection. */
function sessionFiles(home: string, source: string, id: string): string[] {
  return [join(home, 'archives', 'raw', source, `${id}.jsonl`), join(home, 'archives', 'mlib', `${id}.md`)];
}

describe('a moved or copied home (CLI)', () => {
  let dir: ReturnType<typeof makeTempDir>;
  let made: string;

  beforeAll(async () => {
    // One home indexed by the CLI; each test works on its own copy of it.
    dir = makeTempDir('moon-home-relative-');
    made = join(dir.path, 'made', 'home');
    await indexFixtureHome(made, join(dir.path, 'made', 'sources'));
    return () => dir.cleanup();
  });

  let scratch: ReturnType<typeof makeTempDir>;
  afterEach(() => scratch?.cleanup());
  const freshHome = (): string => {
    scratch = makeTempDir('moon-home-case-');
    const home = join(scratch.path, 'first');
    cpSync(made, home, { recursive: true });
    return home;
  };

  it('stores the paths inside the home relative to it, and the sources outside it absolute', () => {
    const ledger = readLedgerLines(made);
    expect(ledger.length).toBe(2);
    for (const line of ledger) {
      expect(line.archive_path).toMatch(/^archives\/raw\/[a-z-]+\/[^/]+\.jsonl$/);
      expect(existsSync(join(made, String(line.archive_path)))).toBe(true);
    }
    const rows = readSessionPaths(made);
    expect(rows.map((row) => row.id).sort()).toEqual([CODEX, CLAUDE].sort());
    for (const row of rows) {
      expect(row.archive_path).toMatch(/^archives\/raw\//);
      expect(row.projection_path).toMatch(/^archives\/mlib\//);
    }
    expect(JSON.parse(readFileSync(join(made, 'archives', 'layout.json'), 'utf8'))).toMatchObject({ paths_version: 1 });
  });

  it('after mv: verify passes, show, recall, rebuild and forget work on the new place', async () => {
    const old = freshHome();
    const home = join(scratch.path, 'moved', 'elsewhere');
    mkdirSync(join(scratch.path, 'moved'));
    renameSync(old, home);

    const verify = await moonAt(home, ['verify']);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);

    const show = await moonAt(home, ['show', '--json', CODEX]);
    expect(show.code, show.stderr).toBe(0);
    const shown = JSON.parse(show.stdout) as { found: boolean; session: { projection_path: string }; projection: string };
    expect(shown.found).toBe(true);
    expect(shown.session.projection_path).toBe(join(home, 'archives', 'mlib', `${CODEX}.md`));
    expect(shown.projection).toBe(readFileSync(shown.session.projection_path, 'utf8'));

    const recall = await moonAt(home, ['recall', '--json', 'retry']);
    expect(recall.code, recall.stderr).toBe(0);
    const matches = (JSON.parse(recall.stdout) as { matches: { archive_path: string; metadata: { raw_archive_path?: string | null } }[] }).matches;
    expect(matches.length).toBeGreaterThan(0);
    for (const match of matches) {
      expect(match.archive_path.startsWith(`${home}/`)).toBe(true);
      expect(existsSync(match.archive_path)).toBe(true);
    }

    const rebuild = await moonAt(home, ['rebuild']);
    expect(rebuild.code, rebuild.stderr).toBe(0);
    expect((await moonAt(home, ['verify'])).code).toBe(0);

    const forget = await moonAt(home, ['forget', '--json', CODEX]);
    expect(forget.code, forget.stderr).toBe(0);
    const report = JSON.parse(forget.stdout) as { removed_files: string[]; skipped_files: unknown[] };
    expect(report.removed_files.sort()).toEqual(sessionFiles(home, 'codex', CODEX).sort());
    expect(report.skipped_files).toEqual([]);
    for (const file of sessionFiles(home, 'codex', CODEX)) expect(existsSync(file)).toBe(false);
    expect((await moonAt(home, ['verify'])).code).toBe(0);
  });

  it("after cp -r: the copy's forget removes the copy's files and leaves the original byte-identical", async () => {
    const original = freshHome();
    const copy = join(scratch.path, 'copy');
    cpSync(original, copy, { recursive: true });
    const before = hashTree(original);

    expect((await moonAt(copy, ['verify'])).code).toBe(0);
    const forget = await moonAt(copy, ['forget', '--json', CLAUDE, CODEX]);
    expect(forget.code, forget.stderr).toBe(0);
    const report = JSON.parse(forget.stdout) as { removed_files: string[] };
    const expected = [...sessionFiles(copy, 'codex', CODEX), ...sessionFiles(copy, 'claude-code', CLAUDE)];
    expect(report.removed_files.sort()).toEqual(expected.sort());
    for (const file of expected) expect(existsSync(file)).toBe(false);

    expect(hashTree(original)).toEqual(before);
    const verify = await moonAt(original, ['verify']);
    expect(verify.code, verify.stdout).toBe(0);
    expect((await moonAt(original, ['show', CODEX])).code).toBe(0);
  });

  it('a raw copy the index and ledger name outside the home is reported as skipped and left alone', async () => {
    const home = freshHome();
    const outside = join(scratch.path, 'not-moon', 'precious.jsonl');
    mkdirSync(join(scratch.path, 'not-moon'));
    writeFileSync(outside, 'keep me\n');
    appendFileSync(
      join(home, 'archives', 'ledger.jsonl'),
      `${JSON.stringify({ session_id: CODEX, archive_path: outside, content_hash: 'f'.repeat(64), created_at_epoch_secs: 1, indexed_collection: 'moon', projection_filtered_noise_count: 0 })}\n`,
    );
    // The index names the outside file as the session's raw copy (an index written elsewhere, or tampered with).
    const db = new Database(join(home, 'moon.db'));
    db.prepare('UPDATE sessions SET archive_path = ? WHERE id = ?').run(outside, CODEX);
    db.close();

    const dry = await moonAt(home, ['forget', '--json', '--dry-run', CODEX]);
    expect((JSON.parse(dry.stdout) as { forgotten: { archive_path: string }[] }).forgotten[0]?.archive_path).toBe(outside);

    const forget = await moonAt(home, ['forget', CODEX]);
    expect(forget.code, forget.stderr).toBe(0);
    expect(forget.stdout).toContain(`not removed: ${outside} (outside this home`);
    expect(readFileSync(outside, 'utf8')).toBe('keep me\n');
    expect(existsSync(join(home, 'archives', 'mlib', `${CODEX}.md`))).toBe(false);
  });
});
