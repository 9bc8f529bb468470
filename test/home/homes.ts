import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { REPO, spawnMoon, type CliRun } from '../helpers/cli.js';

/** Transcripts from test/fixtures a home is indexed from: two agents, one session each. */
export const FIXTURES = [
  join(REPO, 'test', 'fixtures', 'codex', 'synthetic-unified-exec.jsonl'),
  join(REPO, 'test', 'fixtures', 'claude-code', 'synthetic-summary-titles.jsonl'),
];

/** Run the built CLI on `home`. */
export function moonAt(home: string, args: string[]): Promise<CliRun> {
  return spawnMoon(args, { MOON_HOME: home, MOON_INDEX_WORKERS: '0' });
}

/** A home at `home` indexed from copies of FIXTURES under `sources`, by the CLI. */
export async function indexFixtureHome(home: string, sources: string): Promise<void> {
  mkdirSync(sources, { recursive: true });
  for (const fixture of FIXTURES) copyFileSync(fixture, join(sources, fixture.split('/').pop()!));
  const run = await moonAt(home, ['index', sources]);
  if (run.code !== 0) throw new Error(`moon index failed: ${run.stderr}`);
}

/** Every file under `dir` (recursively) by its path relative to `dir`, with the sha256 of its bytes. */
export function hashTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (folder: string): void => {
    for (const item of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, item.name);
      if (item.isDirectory()) walk(path);
      else out.set(relative(dir, path), createHash('sha256').update(readFileSync(path)).digest('hex'));
    }
  };
  walk(dir);
  return out;
}

export interface SessionPaths {
  id: string;
  archive_path: string | null;
  projection_path: string | null;
}

export function readSessionPaths(home: string): SessionPaths[] {
  const db = new Database(join(home, 'moon.db'), { readonly: true });
  try {
    return db.prepare('SELECT id, archive_path, projection_path FROM sessions ORDER BY id').all() as SessionPaths[];
  } finally {
    db.close();
  }
}

export function readLedgerLines(home: string): Record<string, unknown>[] {
  return readFileSync(join(home, 'archives', 'ledger.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * Turn a home into what moon wrote before paths were home-relative: every ledger `archive_path` and every
 * session's archive and projection path absolute (under `home`), and no layout marker. That is the format of
 * the ledger lines and index rows of earlier releases, field for field.
 */
export function makeLegacyHome(home: string): void {
  const ledger = join(home, 'archives', 'ledger.jsonl');
  const lines = readLedgerLines(home).map((line) =>
    typeof line.archive_path === 'string' && !line.archive_path.startsWith('/') ? { ...line, archive_path: join(home, line.archive_path) } : line,
  );
  writeFileSync(ledger, lines.map((line) => `${JSON.stringify(line)}\n`).join(''), { mode: 0o600 });
  const db = new Database(join(home, 'moon.db'));
  try {
    const rows = db.prepare('SELECT id, archive_path, projection_path FROM sessions').all() as SessionPaths[];
    const update = db.prepare('UPDATE sessions SET archive_path = ?, projection_path = ? WHERE id = ?');
    const absolute = (path: string | null): string | null => (path === null || path.startsWith('/') ? path : join(home, path));
    db.transaction(() => {
      for (const row of rows) update.run(absolute(row.archive_path), absolute(row.projection_path), row.id);
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  rmSync(join(home, 'archives', 'layout.json'), { force: true });
}
