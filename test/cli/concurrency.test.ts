import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';

let root: string;
let corpus: string;
let cleanup: () => void;

beforeEach(() => {
  const temp = makeTempDir('moon-concurrent-');
  root = temp.path;
  cleanup = temp.cleanup;
  // Real transcripts from three agents, copied out of the repository so each home indexes the same files.
  corpus = join(root, 'corpus');
  mkdirSync(corpus);
  cpSync(join(REPO, 'test', 'fixtures', 'claude-code'), join(corpus, 'claude-code'), { recursive: true });
  cpSync(join(REPO, 'test', 'fixtures', 'codex'), join(corpus, 'codex'), { recursive: true });
  cpSync(join(REPO, 'examples'), join(corpus, 'examples'), { recursive: true });
});
afterEach(() => cleanup());

function ledgerPairs(home: string): string[] {
  const path = join(home, 'archives', 'ledger.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const record = JSON.parse(line) as { session_id: string; content_hash: string };
      return `${record.session_id} ${record.content_hash}`;
    });
}

/** What an index holds, independent of row ids and timing: per-session entry keys and texts, and the files' offsets. */
function snapshotIndex(home: string): { sessions: unknown[]; entries: unknown[]; files: unknown[] } {
  const db = new Database(join(home, 'moon.db'), { readonly: true });
  try {
    return {
      sessions: db.prepare('SELECT id, source, project, start_ms, end_ms, entry_count FROM sessions ORDER BY id').all(),
      entries: db.prepare('SELECT session_id, key, role, text, result FROM entries ORDER BY session_id, seq, key').all(),
      files: db
        .prepare('SELECT path, session_id, size, content_hash, offset, excluded FROM files ORDER BY path')
        .all()
        .map((row) => ({ ...(row as Record<string, unknown>), path: String((row as { path: string }).path).replace(root, 'ROOT') })),
    };
  } finally {
    db.close();
  }
}

describe('two moon index runs on one home', () => {
  test('the second waits for the first: both exit 0, each (session, hash) is in the ledger once, the index equals one run', async () => {
    const home = join(root, 'home');
    const env = { MOON_HOME: home };
    const [a, b] = await Promise.all([spawnMoon(['index', corpus, '--json'], env), spawnMoon(['index', corpus, '--json'], env)]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(`${a.stderr}${b.stderr}`).not.toMatch(/database is locked/i);
    const reports = [JSON.parse(a.stdout), JSON.parse(b.stdout)];
    expect(reports.every((report) => report.failed === 0)).toBe(true);

    const pairs = ledgerPairs(home);
    expect(pairs.length).toBeGreaterThan(5);
    expect(new Set(pairs).size).toBe(pairs.length);

    const single = join(root, 'single');
    const one = await spawnMoon(['index', corpus, '--json'], { MOON_HOME: single });
    expect(one.code, one.stderr).toBe(0);
    expect(snapshotIndex(home)).toEqual(snapshotIndex(single));
    expect(ledgerPairs(home).sort()).toEqual(ledgerPairs(single).sort());
    expect(readdirSync(join(home, 'archives', 'mlib')).sort()).toEqual(readdirSync(join(single, 'archives', 'mlib')).sort());
  });

  test('a writer that cannot get in before index.lock_timeout_ms fails naming the database', async () => {
    const home = join(root, 'home');
    const first = await spawnMoon(['index', join(corpus, 'examples')], { MOON_HOME: home });
    expect(first.code, first.stderr).toBe(0);
    const holder = new Database(join(home, 'moon.db'));
    try {
      holder.exec('BEGIN IMMEDIATE');
      const blocked = await spawnMoon(['index', corpus], { MOON_HOME: home, MOON_LOCK_TIMEOUT_MS: '1500' });
      expect(blocked.code).toBe(1);
      expect(blocked.stderr).toContain(join(home, 'moon.db'));
      expect(blocked.stderr).toMatch(/waiting for another moon process/);
      expect(blocked.stderr).toMatch(/is locked: another moon process/);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    // Nothing of the blocked run reached the ledger.
    const pairs = ledgerPairs(home);
    expect(new Set(pairs).size).toBe(pairs.length);
    const again = await spawnMoon(['index', corpus, '--json'], { MOON_HOME: home });
    expect(again.code, again.stderr).toBe(0);
  });
});
